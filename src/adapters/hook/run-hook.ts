/**
 * One hook event in, at most one decision out: the handler `gctx hook` (a fresh process per
 * event, raw stdin) and `gctx serve` (POST /hooks/<agent>, the request body) share. The
 * shared logic (src/observer) decides; this module only translates and carries. Nothing here
 * may block the agent by failing: malformed input, a missing or broken memory, a timeout all
 * end in "no decision", with one line for stderr when something was actually wrong.
 *
 * Where the memory comes from is the one thing the two callers do differently, so it is a
 * port (`HookMemories`): the process opens one per event, lazily (`processMemories`); the
 * daemon lends the memory it keeps open.
 */
import type { HookDecision, HookEnvelope } from '../../observer/envelope.js';
import { handleHook } from '../../observer/handle.js';
import type { HookMemory } from '../../observer/memory-port.js';
import {
  answer,
  answerEnvelope,
  type ClaudeStyleHost,
  HookInputError,
  parseEnvelope,
  translate,
} from './claude-format.js';
import { memoryServers } from './host-tools.js';
import { LazyHookMemory } from './lazy-memory.js';
import { findMemoryRoot } from '../../store/paths.js';
import { asGccError } from '../../errors.js';

export type HookAgent = ClaudeStyleHost | 'generic';
export const HOOK_AGENTS: readonly HookAgent[] = ['claude-code', 'codex', 'generic'];

export interface HookRequest {
  agent: HookAgent;
  /** The raw payload: stdin, or the request body. */
  input: string;
  /** Project folder (--dir); default: the nearest `.GCC/` upward from the event's cwd. */
  dir?: string | undefined;
  /** Overrides the host's session id (--session, GCC_SESSION). */
  session?: string | undefined;
  /** Where to look for the memory when the event names no cwd (default: this process's). */
  cwd?: string | undefined;
}

/** The memory of one event, as the hook logic uses it and its caller releases it. */
export interface EventMemory extends HookMemory {
  /** Ready to read (opened, caught up with other writers); `slim`: the event only records calls. */
  open(slim?: boolean): Promise<unknown>;
  /** Every write the hook logic started, including fire-and-forget ones, has landed. */
  drain(): Promise<void>;
  /** Engine warnings raised for this event. */
  readonly warnings: readonly string[];
  close(): void;
}

/** Where the memory of an event comes from. */
export interface HookMemories {
  /** The memory of the project at `root` for one event. */
  forEvent(root: string, session: string | undefined): EventMemory;
}

/** A fresh process: opens the project's memory for the event, only once it is needed. */
export const processMemories: HookMemories = { forEvent: (root, session) => new LazyHookMemory(root, session) };

export interface HookOutcome {
  /** What to print on stdout; null prints nothing. */
  stdout: string | null;
  /** Lines for stderr. */
  stderr: string[];
}

interface Parsed {
  envelopes: HookEnvelope[];
  cwd: string | undefined;
  reply: (d: HookDecision) => string | null;
}

function parse(req: HookRequest): Parsed {
  let payload: unknown;
  try {
    payload = JSON.parse(req.input);
  } catch (err) {
    throw new HookInputError(req.input.trim() ? `stdin is not JSON (${(err as Error).message})` : 'nothing on stdin');
  }
  if (req.agent === 'generic') {
    const env = parseEnvelope(payload);
    return { envelopes: [env], cwd: env.cwd, reply: answerEnvelope };
  }
  const t = translate(payload, req.agent, memoryServers());
  return { envelopes: t.envelopes, cwd: t.cwd, reply: (d) => answer(t.hostEvent, d) };
}

/** The first block wins (any file of a patch may be refused); else the first thing to say. */
function combine(decisions: HookDecision[]): HookDecision {
  return decisions.find((d) => d.kind === 'block') ?? decisions.find((d) => d.kind !== 'none') ?? { kind: 'none' };
}

export async function runHook(req: HookRequest, memories: HookMemories = processMemories): Promise<HookOutcome> {
  const stderr: string[] = [];
  let parsed: Parsed;
  try {
    parsed = parse(req);
  } catch (err) {
    if (err instanceof HookInputError)
      return { stdout: null, stderr: [`gctx hook: ignored malformed ${req.agent} input: ${err.message}`] };
    throw err;
  }
  if (!parsed.envelopes.length) return { stdout: null, stderr };
  const envelopes = req.session ? parsed.envelopes.map((e) => ({ ...e, session: req.session! })) : parsed.envelopes;
  const start = parsed.cwd ?? req.cwd ?? process.cwd();
  const root = req.dir ?? findMemoryRoot(start);
  const preTool = envelopes.every((e) => e.event === 'pre-tool');
  // No memory here: the project does not use GCC. Writes into a `.GCC/` are still refused.
  if (!root && !preTool) return { stdout: null, stderr };
  const memory = memories.forEvent(root ?? start, req.session);
  try {
    if (!preTool) await memory.open(envelopes.every((e) => e.event === 'post-tool'));
  } catch (err) {
    return { stdout: null, stderr: [`gctx hook: memory unavailable, no decision: ${oneLine(err)}`] };
  }
  const onError = (err: unknown) => {
    // Recording a refused write in a folder with no memory is expected to fail; stay quiet.
    if (!root) return;
    stderr.push(`gctx hook: ${oneLine(err)}`);
  };
  try {
    const decisions: HookDecision[] = [];
    for (const env of envelopes) decisions.push(await handleHook(memory, env, { onError }));
    await memory.drain();
    for (const w of memory.warnings) stderr.push(`gctx hook: warning: ${w}`);
    return { stdout: parsed.reply(combine(decisions)), stderr };
  } finally {
    memory.close();
  }
}

/** Anything thrown, on one line: its code, message and fix. */
const oneLine = (err: unknown): string =>
  asGccError(err)
    .oneLine()
    .replace(/\s*\n\s*/g, ' ');
