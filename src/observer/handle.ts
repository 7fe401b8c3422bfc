import { BLOCKED } from '../events/guard.js';
import { boundText, ERROR_LIMIT, INPUT_LIMIT, RESULT_LIMIT, SCAN_LIMIT } from './bound.js';
import { commitNudge, type PendingWork } from './commit-nudge.js';
import { describeFailure, describeInput } from './describe-call.js';
import type { HookDecision, HookEnvelope } from './envelope.js';
import { fileChangesFor } from './file-changes.js';
import { asProjectData } from './framing.js';
import { safeText } from '../log/safe-text.js';
import type { HookMemory } from './memory-port.js';
import type { SessionSignal } from '../machines/session.js';
import { approachesOf, repeatOf, repeatText } from './repeat-guard.js';
import { countInjection } from './token-ledger.js';

/**
 * The hook logic every host shares (the Pi adapter in-process, `gctx hook` for Claude Code and
 * others): log each call as an OTA entry, tell an agent that plainly writes into `.GCC/` to use
 * the memory tools (observer/gcc-write-guard.ts), suggest commits, hand out the briefing. It never
 * throws and never blocks on a failure of its own: an error, a timeout or an abort yields
 * `{ kind: 'none' }`, so a hiccup never stops a call the user asked for.
 */

export interface HookOptions {
  /** Cap on the whole decision, in ms. The work may still finish in the background. */
  timeoutMs?: number;
  /** Token budget of the briefing handed out on session start and after compaction. */
  briefingBudget?: number;
  signal?: AbortSignal;
  /** Called with anything that went wrong, for a host that wants to surface it. */
  onError?: (err: unknown) => void;
}

const DEFAULT_HOOK_TIMEOUT_MS = 5_000;
/** Characters kept of a user's prompt: their instructions are in its sentences, not in pasted logs. */
const PROMPT_LIMIT = 2_000;

const NONE: HookDecision = { kind: 'none' };

export async function handleHook(memory: HookMemory, env: HookEnvelope, opts: HookOptions = {}): Promise<HookDecision> {
  try {
    // The write guard is decided first, before anything is appended: a block must not lose a
    // race with a slow log append, and it needs nothing from the store.
    if (env.event === 'pre-tool') {
      const reason = await blockReason(memory, env);
      if (reason) {
        // The append is not waited for, but it starts before the answer: a host drains it.
        const clean = await cleaner();
        void bounded(recordCall(memory, env, clean, `${BLOCKED}${reason}`, true), opts).catch((e) => opts.onError?.(e));
        return { kind: 'block', reason: safeText(reason) };
      }
      return repeatGuard(memory, env);
    }
    const decision = guarded(await bounded(decide(memory, env, opts), opts));
    if (decision.kind === 'context' || decision.kind === 'guidance')
      countInjection(
        memory.gccDir,
        env.session,
        env.host,
        decision.kind === 'context' ? 'briefing' : 'guidance',
        decision.text,
      );
    return decision;
  } catch (err) {
    opts.onError?.(err);
    return NONE;
  }
}

/**
 * The write guard, loaded by the first call it judges: a process that only logs calls (a
 * PostToolUse hook) never loads the reading of shell commands behind it.
 */
let guarding: Promise<typeof import('./gcc-write-guard.js')> | undefined;

async function blockReason(memory: HookMemory, env: HookEnvelope): Promise<string | null> {
  if (!env.tool || env.tool === 'Memory' || !env.input) return null;
  const { gccWriteReason } = await (guarding ??= import('./gcc-write-guard.js'));
  const cwd = env.cwd ?? memory.root;
  return gccWriteReason({
    tool: env.tool,
    input: env.input,
    cwd,
    gccDir: memory.gccDir,
    ...(env.hostTool ? { hostTool: env.hostTool } : {}),
  });
}

/** Calls that only look: reading about an approach that failed is not trying it again. */
const LOOKS = new Set(['Read', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'Memory']);

/** A call that plainly repeats a failed approach gets context naming it and why, never a refusal. */
function repeatGuard(memory: HookMemory, env: HookEnvelope): HookDecision {
  if (!env.tool || LOOKS.has(env.tool) || !env.input) return NONE;
  const src = memory.approaches?.() ?? memory.state;
  const hit = src ? repeatOf({ tool: env.hostTool ?? env.tool, input: env.input }, approachesOf(src)) : null;
  return hit ? { kind: 'context', text: asProjectData(safeText(repeatText(hit))) } : NONE;
}

/** The session machine's signals for each lifecycle event of a host. */
const SIGNALS: Record<'session-start' | 'compaction' | 'compacted' | 'stop', (reason?: string) => SessionSignal[]> = {
  // Claude Code starts a session again after a compaction (source "compact"): that finishes it.
  'session-start': (reason) =>
    reason === 'compact'
      ? [{ type: 'COMPACT' }, { type: 'COMPACTED' }]
      : [{ type: 'START', reason: reason ?? 'startup' }, { type: 'OPENED' }],
  compaction: () => [{ type: 'COMPACT' }],
  compacted: () => [{ type: 'COMPACT' }, { type: 'COMPACTED' }],
  stop: (reason) => [{ type: 'SHUTDOWN', reason: reason ?? 'quit' }],
};

async function decide(memory: HookMemory, env: HookEnvelope, opts: HookOptions): Promise<HookDecision> {
  const session = env.session;
  switch (env.event) {
    case 'session-start':
    case 'compaction':
    case 'compacted':
    case 'stop': {
      await memory.execute({ type: 'session', signals: SIGNALS[env.event](env.reason), host: env.host }, { session });
      // Before a compaction the briefing rides along; the new context gets it again when it starts.
      if (env.event === 'compaction') await recordCheckpoint(memory, env);
      return env.event === 'stop' ? NONE : briefing(memory, session, opts);
    }
    case 'prompt': {
      // The user's own words: their instructions outlive the transcript (decider/constraints.ts).
      const text = (await cleaner())((env.prompt ?? '').trim(), PROMPT_LIMIT);
      if (text.trim()) await memory.execute({ type: 'record-prompt', text, host: env.host }, { session });
      return NONE;
    }
    case 'post-tool': {
      // Memory tools log themselves through the operation they perform.
      if (!env.tool || env.tool === 'Memory') return NONE;
      const before = pending(memory, session);
      const branch = await recordCall(memory, env, await cleaner(), env.result ?? '', env.isError ?? false);
      const after = pending(memory, session);
      if (!before || !after) return NONE;
      const text = commitNudge(before, after, memory.config, branch);
      return text ? { kind: 'guidance', text } : NONE;
    }
    default:
      return NONE;
  }
}

/** What a host is handed carries no control character, whatever text of the memory or the call it quotes. */
function guarded(d: HookDecision): HookDecision {
  return d.kind === 'guidance' || d.kind === 'context' ? { ...d, text: safeText(d.text) } : d;
}

function briefing(memory: HookMemory, session: string, opts: HookOptions): HookDecision {
  const budget = opts.briefingBudget;
  const text = memory.briefing(budget === undefined ? { session } : { session, budget });
  return { kind: 'context', text: asProjectData(text) };
}

interface Cleaner {
  /** Redact, then bound: a secret is always seen whole by the redactor before any cut. */
  (text: string, limit: number): string;
  /** A failing call's output, redacted, then told from its error lines (describeFailure). */
  failure(text: string, limit: number): string;
  /** A file path, redacted whole (never cut: the decider refuses an overlong one). */
  path(path: string): string;
}

/** The redactor is loaded when the first call is logged: a PreToolUse that decides nothing logs nothing. */
async function cleaner(): Promise<Cleaner> {
  const { redactSecrets, redactToolText } = await import('./redact.js');
  return Object.assign((text: string, limit: number) => boundText(redactToolText(boundText(text, SCAN_LIMIT)), limit), {
    path: redactSecrets,
    failure: (text: string, limit: number) =>
      boundText(describeFailure(redactToolText(boundText(text, SCAN_LIMIT)), limit), limit),
  });
}

async function recordCall(
  memory: HookMemory,
  env: HookEnvelope,
  clean: Cleaner,
  result: string,
  isError: boolean,
): Promise<string> {
  const cwd = env.cwd ?? memory.root;
  const files = isError
    ? []
    : fileChangesFor(env.tool, env.input, env.fileStates, cwd, memory.root).map((f) => ({
        ...f,
        path: clean.path(f.path),
      }));
  const res = await memory.execute(
    {
      type: 'record-tool',
      tool: env.hostTool ?? env.tool ?? 'unknown',
      input: clean(describeInput(env.tool, env.input, cwd, memory.root), INPUT_LIMIT),
      // A refusal of gctx's own guard is kept as written: readers recognise it by its head.
      result:
        isError && !result.startsWith(BLOCKED)
          ? clean.failure(result, ERROR_LIMIT)
          : clean(result, isError ? ERROR_LIMIT : RESULT_LIMIT),
      isError,
      files,
      host: env.host,
    },
    { session: env.session },
  );
  return res.branch;
}

/** Characters kept of the agent's last words in a checkpoint. */
const SAID_LIMIT = 1_200;

/**
 * Before a compaction, what the transcript held that memory may not: the user's last request
 * (recorded as a prompt, unless it is the one recorded last: the decider says so) and the agent's
 * last words — where it stood — as a log entry beside the work in flight the state already holds.
 */
export async function recordCheckpoint(memory: HookMemory, env: HookEnvelope): Promise<void> {
  const cp = env.checkpoint;
  if (!cp) return;
  const clean = await cleaner();
  if (cp.prompt?.trim())
    await memory.execute(
      { type: 'record-prompt', text: clean(cp.prompt, PROMPT_LIMIT), host: env.host },
      { session: env.session },
    );
  const work = pending(memory, env.session);
  const files = work?.files.length
    ? `; files in flight: ${work.files.slice(0, 8).join(', ')}` +
      (work.files.length > 8 ? `, +${work.files.length - 8} more` : '')
    : '';
  if (!cp.said?.trim() && !files) return;
  await memory.execute(
    {
      type: 'log',
      observation:
        `Checkpoint before a compactio` +
        `n${work?.turns ? ` (${work.turns} step${work.turns === 1 ? '' : 's'} since the last commit${files})` : ''}`,
      thought: cp.said?.trim() ? clean(cp.said, SAID_LIMIT) : '',
      action: '',
    },
    { session: env.session },
  );
}

function pending(memory: HookMemory, session: string): PendingWork | null {
  try {
    return memory.pendingWork(session);
  } catch {
    return null;
  }
}

function bounded<T>(work: Promise<T>, opts: HookOptions): Promise<T> {
  const ms = opts.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  // AbortSignal.timeout's timer does not keep the process alive.
  const stop = AbortSignal.any([AbortSignal.timeout(ms), ...(opts.signal ? [opts.signal] : [])]);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(opts.signal?.aborted ? 'hook aborted' : `hook timed out after ${ms} ms`));
    if (stop.aborted) onAbort();
    stop.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => stop.removeEventListener('abort', onAbort));
  });
}
