/**
 * `gctx hook` without `--agent`: stdin holds the normalized envelope itself (the shape the Pi
 * adapter builds in-process), checked field by field here. Checked by hand rather than with a
 * schema library so a hook process loads nothing it does not need.
 */
import type { CanonicalTool, HookDecision, HookEnvelope, HookEventKind } from '../../observer/envelope.js';
import { HookInputError } from './input-error.js';

const EVENTS: readonly HookEventKind[] = [
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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function optString(o: Obj, key: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new HookInputError(`${key} must be a string`);
  return v;
}

export function parseEnvelope(payload: unknown): HookEnvelope {
  if (!isObj(payload)) throw new HookInputError('expected one JSON object (the hook envelope) on stdin');
  const host = optString(payload, 'host');
  const session = optString(payload, 'session');
  const event = optString(payload, 'event');
  if (!host) throw new HookInputError('missing host');
  if (!session) throw new HookInputError('missing session');
  if (!event || !EVENTS.includes(event as HookEventKind))
    throw new HookInputError(`event must be one of ${EVENTS.join(', ')}`);
  const env: HookEnvelope = { host, session, event: event as HookEventKind };
  const tool = optString(payload, 'tool');
  if (tool !== undefined) {
    if (!TOOLS.includes(tool as CanonicalTool)) throw new HookInputError(`tool must be one of ${TOOLS.join(', ')}`);
    env.tool = tool as CanonicalTool;
  }
  for (const key of ['cwd', 'hostTool', 'result', 'reason', 'prompt'] as const) {
    const v = optString(payload, key);
    if (v !== undefined) env[key] = v;
  }
  if (payload.input !== undefined) {
    if (!isObj(payload.input)) throw new HookInputError('input must be an object');
    env.input = payload.input;
  }
  if (payload.isError !== undefined) {
    if (typeof payload.isError !== 'boolean') throw new HookInputError('isError must be a boolean');
    env.isError = payload.isError;
  }
  if (payload.fileStates !== undefined) {
    const states = payload.fileStates;
    const ok = (v: unknown) => v === null || typeof v === 'string';
    if (
      !Array.isArray(states) ||
      !states.every((s) => isObj(s) && typeof s.path === 'string' && ok(s.before) && ok(s.after))
    ) {
      throw new HookInputError('fileStates must be a list of {path, before, after}');
    }
    env.fileStates = states as HookEnvelope['fileStates'];
  }
  return env;
}

/** The generic answer: the decision itself as JSON, or nothing for "no decision". */
export function answerEnvelope(decision: HookDecision): string | null {
  return decision.kind === 'none' ? null : JSON.stringify(decision);
}
