/**
 * What a host sends `gctx hook` and gets back. Claude Code's protocol (Codex speaks the same
 * wire format): one JSON object on stdin with `session_id`, `cwd`, `hook_event_name` and
 * per-event fields; the answer on stdout is JSON with `hookSpecificOutput` (a PreToolUse
 * `permissionDecision`, or `additionalContext` for the events that take it). Without
 * `--agent`, stdin holds the normalized envelope itself and the answer is the decision as
 * JSON. Exit status is always 0: blocking goes through the JSON, so a hook that fails can
 * never block the agent.
 */
import type { CanonicalTool, HookDecision, HookEnvelope, HookEventKind } from '../../observer/envelope.js';
import { canonicalCalls, fileStatesFrom, resultText } from './host-tools.js';
import { transcriptCheckpoint } from './transcript.js';

/** Input the hook cannot use: reported as one line on stderr, answered with no decision. */
export class HookInputError extends Error {
  override readonly name = 'HookInputError';
}

export type ClaudeStyleHost = 'claude-code' | 'codex';

export interface Translation {
  /** The host's event name, echoed in the answer. */
  hostEvent: string;
  /** Envelopes to decide on (several for a multi-file patch before it runs); empty: nothing to do. */
  envelopes: HookEnvelope[];
  cwd: string | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Host events that carry memory work. Stop (end of a turn), SubagentStop, Notification,
 * PermissionRequest and PostCompact are accepted and answered with nothing. After a
 * compaction Claude Code fires SessionStart with source "compact", which hands the briefing
 * back; PreCompact records that it happened and a checkpoint of what the transcript held.
 */
const EVENTS: Record<string, HookEventKind> = {
  SessionStart: 'session-start',
  PreToolUse: 'pre-tool',
  PostToolUse: 'post-tool',
  PostToolUseFailure: 'post-tool',
  UserPromptSubmit: 'prompt',
  PreCompact: 'compaction',
  SessionEnd: 'stop',
};

/** Events whose answer may carry `additionalContext` for the model (PreToolUse: the repeat guard's). */
const TAKES_CONTEXT = new Set(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

export function translate(payload: unknown, host: ClaudeStyleHost, servers: readonly string[]): Translation {
  if (!isObj(payload)) throw new HookInputError('expected one JSON object on stdin');
  const hostEvent = str(payload.hook_event_name);
  if (!hostEvent) throw new HookInputError('missing hook_event_name');
  const session = str(payload.session_id);
  if (!session) throw new HookInputError('missing session_id');
  const cwd = str(payload.cwd);
  const event = EVENTS[hostEvent];
  if (!event) return { hostEvent, envelopes: [], cwd };
  const base: HookEnvelope = { host, session, event, ...(cwd ? { cwd } : {}) };

  switch (event) {
    case 'session-start':
      return { hostEvent, cwd, envelopes: [{ ...base, reason: str(payload.source) ?? 'startup' }] };
    case 'stop':
      return { hostEvent, cwd, envelopes: [{ ...base, reason: str(payload.reason) ?? 'other' }] };
    case 'prompt':
      return {
        hostEvent,
        cwd,
        envelopes: [{ ...base, prompt: typeof payload.prompt === 'string' ? payload.prompt : '' }],
      };
    case 'compaction':
      return {
        hostEvent,
        cwd,
        envelopes: [
          {
            ...base,
            reason: str(payload.trigger) ?? 'auto',
            checkpoint: transcriptCheckpoint(payload.transcript_path),
          },
        ],
      };
    default:
      break;
  }

  const name = str(payload.tool_name);
  if (!name) throw new HookInputError(`${hostEvent} without tool_name`);
  if (payload.tool_input !== undefined && !isObj(payload.tool_input))
    throw new HookInputError('tool_input is not an object');
  const calls = canonicalCalls(name, payload.tool_input, servers);

  if (event === 'pre-tool') {
    return { hostEvent, cwd, envelopes: calls.map((c) => ({ ...base, tool: c.tool, hostTool: name, input: c.input })) };
  }
  // After the call: one log entry for the whole call, whatever it touched.
  const failed = hostEvent === 'PostToolUseFailure';
  const r = failed ? { text: str(payload.error) ?? 'failed', isError: true } : resultText(payload.tool_response, cwd);
  const first = calls[0]!;
  const patch = name === 'apply_patch' && isObj(payload.tool_input) ? str(payload.tool_input.command) : undefined;
  // The log keeps the patch itself: it says what changed in every file, not just the first.
  const input = patch ? { file_path: first.input.file_path ?? '', command: patch } : first.input;
  const env: HookEnvelope = {
    ...base,
    tool: first.tool === 'Write' && calls.length > 1 ? 'Edit' : first.tool,
    hostTool: name,
    input,
    result: r.text,
    isError: r.isError,
  };
  const states = r.isError ? undefined : fileStatesFrom(name, payload.tool_input, payload.tool_response);
  if (states) env.fileStates = states;
  return { hostEvent, cwd, envelopes: [env] };
}

/** The answer for the host, or null to print nothing. */
export function answer(hostEvent: string, decision: HookDecision): string | null {
  switch (decision.kind) {
    case 'block':
      if (hostEvent !== 'PreToolUse') return null;
      return JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: decision.reason,
        },
      });
    case 'guidance':
    case 'context': {
      if (!TAKES_CONTEXT.has(hostEvent)) return null;
      return JSON.stringify({ hookSpecificOutput: { hookEventName: hostEvent, additionalContext: decision.text } });
    }
    default:
      return null;
  }
}

const ENVELOPE_KEYS = [
  'host',
  'session',
  'event',
  'tool',
  'cwd',
  'hostTool',
  'result',
  'reason',
  'prompt',
  'input',
  'isError',
  'fileStates',
] as const;
const KINDS: readonly HookEventKind[] = [
  'pre-tool',
  'post-tool',
  'session-start',
  'prompt',
  'compaction',
  'compacted',
  'stop',
];
const TOOLS: readonly CanonicalTool[] = [
  'Read',
  'Write',
  'Edit',
  'Bash',
  'Grep',
  'Glob',
  'WebFetch',
  'WebSearch',
  'Task',
  'Memory',
  'Other',
];

/**
 * The normalized envelope (`gctx hook` without `--agent`), checked field by field by hand
 * rather than with a schema library, so a hook process loads nothing it does not need.
 */
export function parseEnvelope(payload: unknown): HookEnvelope {
  if (!isObj(payload)) throw new HookInputError('expected one JSON object (the hook envelope) on stdin');
  const bad = (why: string) => {
    throw new HookInputError(why);
  };
  const given = ENVELOPE_KEYS.filter((k) => payload[k] !== undefined);
  for (const key of given) {
    const v = payload[key];
    if (key === 'input') isObj(v) || bad('input must be an object');
    else if (key === 'isError') typeof v === 'boolean' || bad('isError must be a boolean');
    else if (key !== 'fileStates' && typeof v !== 'string') bad(`${key} must be a string`);
  }
  const { host, session, event, tool, fileStates } = payload;
  if (!host) bad('missing host');
  if (!session) bad('missing session');
  if (!KINDS.includes(event as HookEventKind)) bad(`event must be one of ${KINDS.join(', ')}`);
  if (tool !== undefined && !TOOLS.includes(tool as CanonicalTool)) bad(`tool must be one of ${TOOLS.join(', ')}`);
  const text = (v: unknown) => v === null || typeof v === 'string';
  const state = (f: unknown) => isObj(f) && typeof f.path === 'string' && text(f.before) && text(f.after);
  if (fileStates !== undefined && !(Array.isArray(fileStates) && fileStates.every(state)))
    bad('fileStates must be a list of {path, before, after}');
  return Object.fromEntries(given.map((k) => [k, payload[k]])) as unknown as HookEnvelope;
}

/** The generic answer: the decision itself as JSON, or nothing for "no decision". */
export function answerEnvelope(decision: HookDecision): string | null {
  return decision.kind === 'none' ? null : JSON.stringify(decision);
}
