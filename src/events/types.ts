/**
 * The event model. Every change to memory is one of these events, appended to a log.
 * Payloads are self-contained: everything a projection renders is in the event, so replay
 * never has to recompute (and can never recompute differently).
 *
 * Two kinds of log hold them (docs/architecture.md): shared segments under `.GCC/events/`,
 * which travel through git, and this clone's local log, which never does. Which kind takes
 * an event is a property of its type (LOCAL_TYPES).
 */

export const FORMAT_VERSION = 2 as const;

export interface Config {
  /** Suggest a commit once enough work has piled up since the last one. */
  proactive_commits: boolean;
  /** Edits since the last commit that trigger a suggestion. */
  commit_after_edits: number;
  /** Tool calls (turns) since the last commit that trigger a suggestion. */
  commit_after_turns: number;
}

export const DEFAULT_CONFIG: Config = {
  proactive_commits: true,
  commit_after_edits: 8,
  commit_after_turns: 25,
};

export interface FileChange {
  path: string;
  added: number;
  removed: number;
  /** The git blob the file had when the commit was recorded (40 or 64 hex): reads tell when it changed since. */
  blob?: string;
}

/** What a MERGE integrates, on its synthesis commit. */
export interface MergeRecord {
  from: string;
  tried: string;
  learned: string;
  integrated: string;
}

/** What an ABANDON records on the parent: the approach that failed and why. */
export interface AbandonRecord {
  from: string;
  tried: string;
  reason: string;
}

export interface EventPayloads {
  'memory.initialized': { format: number; config: Config };
  'objective.added': { id: string; text: string };
  /** `text` names the objective for readers of the log (absent on events of format 1). */
  'objective.checked': { id: string; text?: string };
  'objective.unchecked': { id: string; text?: string };
  'objective.removed': { id: string; text?: string };
  'objective.edited': { id: string; text: string };
  /** A person's edit of main.md's Notes section, kept as a unified patch (made with `diff`). */
  'notes.patched': { patch: string };
  'config.set': { key: keyof Config; value: Config[keyof Config] };
  'branch.created': { name: string; parent: string; purpose: string; hypotheses: string[] };
  'commit.recorded': {
    /** Content-derived short hash; stable because it is stored, never recomputed. */
    id: string;
    /** Per-branch display label, C001, C002, ... (see docs/cli.md: what a label promises). */
    label: string;
    title: string;
    contribution: string;
    purpose: string;
    previous: string;
    files: FileChange[];
    /** The next step, where the committer named one. */
    next?: string;
    /** Set on synthesis commits written by MERGE. */
    merge?: MergeRecord;
    /** Set on the record ABANDON writes on the parent. */
    abandon?: AbandonRecord;
  };
  'branch.merged': { branch: string; into: string; commit: string };
  'branch.abandoned': { branch: string; reason: string };
  'ota.logged': { observation: string; thought: string; action: string };
  'tool.recorded': {
    tool: string;
    input: string;
    result: string;
    isError: boolean;
    files: FileChange[];
    host?: string;
  };
  /** Damage that could not be restored from git, recorded so the loss is never silent. */
  'memory.repaired': { segment: string; kept: number; lost: number; reason: string };
  /** Local: a session's (or, without one, the clone's default) current branch moved. */
  'branch.switched': { to: string; session?: string };
  /** Local: a host session's lifecycle, as its machine emitted it. */
  'session.started': { session: string; host: string; reason: string };
  'session.compacted': { session: string; host: string };
  'session.ended': { session: string; host: string; reason: string };
  /** Local: what the user asked, in their words (redacted, bounded): their instructions are read from it. */
  'prompt.recorded': { session: string; host: string; text: string };
}

export type EventType = keyof EventPayloads;

export const EVENT_TYPES = [
  'memory.initialized',
  'objective.added',
  'objective.checked',
  'objective.unchecked',
  'objective.removed',
  'objective.edited',
  'notes.patched',
  'config.set',
  'branch.created',
  'commit.recorded',
  'branch.merged',
  'branch.abandoned',
  'ota.logged',
  'tool.recorded',
  'memory.repaired',
  'branch.switched',
  'session.started',
  'session.compacted',
  'session.ended',
  'prompt.recorded',
] as const satisfies readonly EventType[];

/** Types that live in this clone's local log and never travel through git. */
export const LOCAL_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'branch.switched',
  'session.started',
  'session.compacted',
  'session.ended',
  'prompt.recorded',
]);

export const isLocalType = (type: EventType): boolean => LOCAL_TYPES.has(type);

/** What a decision produces: an event before the store gives it an id, sequence and time. */
export type NewEvent = { [K in EventType]: { type: K; data: EventPayloads[K] } }[EventType];

/** A decided event and the memory branch it belongs to. */
export type Placed = NewEvent & { branch: string };

/** An event as it stands in a log: the envelope the store adds around a decided event. */
export type GccEvent = { [K in EventType]: Envelope<K> }[EventType];

export interface Envelope<K extends EventType = EventType> {
  /** Globally unique and time-ordered (12 hex of milliseconds, 10 random hex). */
  id: string;
  /** Position in its log file, 1-based and gapless. */
  seq: number;
  /** ISO 8601 UTC time of the append. */
  at: string;
  /** The memory branch the event belongs to. */
  branch: string;
  type: K;
  data: EventPayloads[K];
  /** Present on all but the last event of a multi-event batch: how many follow in the batch. */
  more?: number;
}

export type EventOf<K extends EventType> = Envelope<K>;

export const MAIN = 'main';

/** The time an event id encodes, in ms since the epoch (NaN for a malformed id). */
export function idTime(id: string): number {
  return /^[0-9a-f]{12}/.test(id) ? Number.parseInt(id.slice(0, 12), 16) : Number.NaN;
}
