/**
 * The shape of each event's payload, once: the checks that events read from disk are held to,
 * and, inferred from them, the payload types (types.ts). A machine line with a valid CRC can
 * still have been written by anyone (a CRC is a checksum, not a signature), so an event from a
 * log is untrusted input held to the same rules as a command: known type, fields of the right
 * kind and size, names that are safe to turn into paths, ids of the right shape and not from
 * the future.
 */
import { type Config, EVENT_TYPES, type FileChange, FORMAT_VERSION, type GccEvent, idTime } from './types.js';
import {
  branchNameProblem,
  COMMIT_HASH,
  configValueProblem,
  COMMIT_LABEL,
  EVENT_ID,
  MAX_ITEMS,
  MAX_LINE,
  MAX_PATH,
  MAX_TEXT,
  OBJECTIVE_ID,
  SHORT_LINE,
} from './rules.js';

/** How far ahead of this clock an event's id may be: clocks of a team's machines disagree a little. */
export const FUTURE_SKEW_MS = 24 * 60 * 60 * 1000;

/** What is wrong with a value, or null; `T` is what it admits, for the payload types. */
type Check<T = unknown> = ((v: unknown) => string | null) & { readonly admits?: T };
/** Field → check; a name ending in `?` is optional. */
type Shape = Record<string, Check>;

type Admits<C> = C extends Check<infer T> ? T : never;
/** The payload a shape admits: its fields, those named with `?` optional. */
export type Payload<S> = {
  [K in keyof S as K extends `${string}?` ? never : K]: Admits<S[K]>;
} & { [K in keyof S as K extends `${infer N}?` ? N : never]?: Admits<S[K]> } extends infer P
  ? { [K in keyof P]: P[K] }
  : never;

const text =
  (max: number): Check<string> =>
  (v) =>
    typeof v !== 'string' ? 'is not text' : v.length > max ? `is longer than ${max} characters` : null;
const pattern =
  (re: RegExp, what: string): Check<string> =>
  (v) =>
    typeof v === 'string' && re.test(v) ? null : `is not ${what}`;
/** Names already found valid: a history names few branches many times. */
const validNames = new Set<string>();
function nameProblem(v: unknown): string | null {
  if (typeof v === 'string' && validNames.has(v)) return null;
  const p = branchNameProblem(v);
  if (p === null && validNames.size < 100_000) validNames.add(v as string);
  return p;
}
const branch: Check<string> = (v) => {
  const p = nameProblem(v);
  return p ? `is not a valid branch name (${p})` : null;
};
const bool: Check<boolean> = (v) => (typeof v === 'boolean' ? null : 'is not true or false');
const count: Check<number> = (v) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER
    ? null
    : 'is not a whole number';
/**
 * Words in a problem that a newer gctx may have caused (a later format, an event type added
 * since): the way out is an upgrade, not a repair that would drop what this one cannot read.
 */
export const NEWER_GCTX = 'written by a newer gctx?';
const format: Check<number> = (v) =>
  count(v) ??
  ((v as number) > FORMAT_VERSION
    ? `is ${v as number}, above the ${FORMAT_VERSION} this gctx reads (${NEWER_GCTX})`
    : null);
const texts =
  (max: number): Check<string[]> =>
  (v) => {
    if (!Array.isArray(v)) return 'is not a list';
    if (v.length > MAX_ITEMS) return `has more than ${MAX_ITEMS} items`;
    for (const s of v) if (text(max)(s)) return 'holds an item that is not text of at most ' + max + ' characters';
    return null;
  };
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const BLOB = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const files: Check<FileChange[]> = (v) => {
  if (!Array.isArray(v)) return 'is not a list';
  if (v.length > MAX_ITEMS) return `has more than ${MAX_ITEMS} items`;
  for (const f of v) {
    if (!isRecord(f) || text(MAX_PATH)(f.path) || f.path === '' || count(f.added) || count(f.removed))
      return 'holds an entry that is not {path, added, removed}';
    if (f.blob !== undefined && (typeof f.blob !== 'string' || !BLOB.test(f.blob)))
      return 'holds a blob that is not 40 or 64 hex digits';
  }
  return null;
};
const object = <S extends Shape>(shape: S): Check<Payload<S>> => {
  const fields = rows(shape);
  return (v) => (isRecord(v) ? rowsProblem(fields, v, '') : 'is not an object');
};
/** Typed as a setting's value: one of another type is refused with the key (configValueProblem). */
const scalar: Check<Config[keyof Config]> = (v) =>
  typeof v === 'string'
    ? text(MAX_LINE)(v)
    : typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
      ? null
      : 'is not a value';
const configObject: Check<Config> = (v) => {
  if (!isRecord(v)) return 'is not an object';
  for (const [k, x] of Object.entries(v)) {
    if (scalar(x)) return `has a bad value for ${k}`;
    const p = configValueProblem(k, x);
    if (p) return `is refused: ${p}`;
  }
  return null;
};

type Rows = readonly (readonly [string, Check, boolean])[];

const rows = (shape: Shape): Rows =>
  Object.entries(shape).map(([k, check]) => [k.replace('?', ''), check, k.endsWith('?')] as const);

const commitShape = {
  /** Content-derived short hash; stable because it is stored, never recomputed. */
  id: pattern(COMMIT_HASH, 'a commit hash'),
  /** Per-branch display label, C001, C002, ... (see docs/cli.md: what a label promises). */
  label: pattern(COMMIT_LABEL, 'a label like C001'),
  title: text(MAX_LINE),
  contribution: text(MAX_TEXT),
  purpose: text(MAX_TEXT),
  previous: text(MAX_TEXT),
  files,
  /** The next step, where the committer named one. */
  'next?': text(MAX_TEXT),
  /** Set on synthesis commits written by MERGE: what it integrates. */
  'merge?': object({ from: branch, tried: text(MAX_TEXT), learned: text(MAX_TEXT), integrated: text(MAX_TEXT) }),
  /** Set on the record ABANDON writes on the parent: the approach that failed and why. */
  'abandon?': object({ from: branch, tried: text(MAX_TEXT), reason: text(MAX_TEXT) }),
};

export const SHAPES = {
  'memory.initialized': { format, config: configObject },
  'objective.added': { id: pattern(OBJECTIVE_ID, 'an objective id'), text: text(MAX_LINE) },
  /** `text` names the objective for readers of the log (absent on events of format 1). */
  'objective.checked': { id: pattern(OBJECTIVE_ID, 'an objective id'), 'text?': text(MAX_LINE) },
  'objective.unchecked': { id: pattern(OBJECTIVE_ID, 'an objective id'), 'text?': text(MAX_LINE) },
  'objective.removed': { id: pattern(OBJECTIVE_ID, 'an objective id'), 'text?': text(MAX_LINE) },
  'objective.edited': { id: pattern(OBJECTIVE_ID, 'an objective id'), text: text(MAX_LINE) },
  /** A person's edit of main.md's Notes section, kept as a unified patch (made with `diff`). */
  'notes.patched': { patch: text(MAX_TEXT) },
  'config.set': { key: text(64) as Check<keyof Config>, value: scalar },
  'branch.created': { name: branch, parent: branch, purpose: text(MAX_TEXT), hypotheses: texts(MAX_TEXT) },
  'commit.recorded': commitShape,
  'branch.merged': { branch, into: branch, commit: pattern(COMMIT_HASH, 'a commit hash') },
  'branch.abandoned': { branch, reason: text(MAX_TEXT) },
  'ota.logged': { observation: text(MAX_TEXT), thought: text(MAX_TEXT), action: text(MAX_TEXT) },
  'tool.recorded': {
    tool: text(MAX_LINE),
    input: text(MAX_TEXT),
    result: text(MAX_TEXT),
    isError: bool,
    files,
    'host?': text(SHORT_LINE),
  },
  /** Damage that could not be restored from git, recorded so the loss is never silent. */
  'memory.repaired': { segment: text(MAX_PATH), kept: count, lost: count, reason: text(MAX_TEXT) },
  /** Local: a session's (or, without one, the clone's default) current branch moved. */
  'branch.switched': { to: branch, 'session?': text(SHORT_LINE) },
  /** Local: a host session's lifecycle, as its machine emitted it. */
  'session.started': { session: text(SHORT_LINE), host: text(SHORT_LINE), reason: text(SHORT_LINE) },
  'session.compacted': { session: text(SHORT_LINE), host: text(SHORT_LINE) },
  'session.ended': { session: text(SHORT_LINE), host: text(SHORT_LINE), reason: text(SHORT_LINE) },
  /** Local: what the user asked, in their words (redacted, bounded): their instructions are read from it. */
  'prompt.recorded': { session: text(SHORT_LINE), host: text(SHORT_LINE), text: text(MAX_LINE) },
} satisfies Record<string, Shape>;

const COMPILED = new Map<string, Rows>(Object.entries(SHAPES).map(([type, shape]) => [type, rows(shape)]));

function rowsProblem(fields: Rows, data: Record<string, unknown>, where: string): string | null {
  for (const [key, check, optional] of fields) {
    const v = Object.hasOwn(data, key) ? data[key] : undefined;
    if (v === undefined && optional) continue;
    const p = v === undefined ? 'is missing' : check(v);
    if (p) return `${where}${key} ${p}`;
  }
  return null;
}

const TYPES = new Set<string>(EVENT_TYPES);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/**
 * What is wrong with a value parsed from a machine line, or null when it is an event this
 * engine may fold. `now` bounds how far in the future an id may lie.
 */
export function eventProblem(raw: unknown, now: number = Date.now()): string | null {
  if (!isRecord(raw)) return 'not an object';
  const e = raw;
  if (typeof e.id !== 'string' || !EVENT_ID.test(e.id)) return 'missing or malformed id';
  if (idTime(e.id) > now + FUTURE_SKEW_MS)
    return `id ${e.id} is dated in the future (${new Date(idTime(e.id)).toISOString()})`;
  if (typeof e.seq !== 'number' || !Number.isInteger(e.seq) || e.seq < 1) return 'missing or bad seq';
  if (typeof e.at !== 'string' || !ISO.test(e.at)) return 'missing or bad time';
  const b = nameProblem(e.branch);
  if (b) return `bad branch (${b})`;
  if (typeof e.type !== 'string' || !TYPES.has(e.type))
    return `unknown event type ${JSON.stringify(String(e.type)).slice(0, 80)} (${NEWER_GCTX})`;
  if (e.more !== undefined && (typeof e.more !== 'number' || !Number.isInteger(e.more) || e.more < 1))
    return 'bad batch marker';
  if (!isRecord(e.data)) return 'missing data';
  const p = rowsProblem(COMPILED.get(e.type)!, e.data, `${e.type}: `);
  if (p || e.type !== 'config.set') return p;
  const c = configValueProblem(String(e.data.key), e.data.value);
  return c ? `config.set: ${c}` : null;
}

/** The event, or throws with what is wrong. */
export function validateEvent(raw: unknown, now?: number): GccEvent {
  const p = eventProblem(raw, now);
  if (p) throw new Error(p);
  return raw as GccEvent;
}
