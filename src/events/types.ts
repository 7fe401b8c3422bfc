/**
 * The event model. Every change to memory is one of these events, appended to a log.md.
 * Payloads are self-contained: everything a projection renders is in the event, so replay
 * never has to recompute (and can never recompute differently).
 */

export const FORMAT_VERSION = 1 as const;

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
}

export interface EventPayloads {
  'memory.initialized': { format: number; config: Config };
  'objective.added': { id: string; text: string };
  'objective.checked': { id: string };
  'objective.unchecked': { id: string };
  'objective.removed': { id: string };
  'objective.edited': { id: string; text: string };
  /** A person's edit of main.md's Notes section, kept as a unified patch (made with `diff`). */
  'notes.patched': { patch: string };
  'config.set': { key: keyof Config; value: Config[keyof Config] };
  'branch.created': {
    name: string;
    parent: string;
    purpose: string;
    hypotheses: string[];
    session?: string;
  };
  'branch.switched': { to: string; session?: string };
  'commit.recorded': {
    /** Content-derived short hash; stable because it is stored, never recomputed. */
    id: string;
    /** Per-branch display label, C001, C002, ... */
    label: string;
    title: string;
    contribution: string;
    purpose: string;
    previous: string;
    files: FileChange[];
    /** Set on synthesis commits written by MERGE. */
    merge?: { from: string; tried: string; learned: string; integrated: string };
  };
  'branch.merged': { branch: string; into: string; commit: string; session?: string };
  'branch.abandoned': { branch: string; reason: string; session?: string };
  'ota.logged': { observation: string; thought: string; action: string };
  'tool.recorded': {
    tool: string;
    input: string;
    result: string;
    isError: boolean;
    files: FileChange[];
    host?: string;
  };
  'session.started': { session: string; host: string; reason: string };
  'session.compacted': { session: string; host: string };
  'session.ended': { session: string; host: string; reason: string };
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
  'branch.switched',
  'commit.recorded',
  'branch.merged',
  'branch.abandoned',
  'ota.logged',
  'tool.recorded',
  'session.started',
  'session.compacted',
  'session.ended',
] as const satisfies readonly EventType[];

/** What a decision produces: an event before the store gives it an id, sequence and time. */
export type NewEvent = { [K in EventType]: { type: K; data: EventPayloads[K] } }[EventType];

/** An event as it stands in a log: the envelope the store adds around a decided event. */
export type GccEvent = { [K in EventType]: Envelope<K> }[EventType];

export interface Envelope<K extends EventType = EventType> {
  /** Globally unique (time-ordered, random tail), so two clones' logs can be unioned. */
  id: string;
  /** Position in its log file, 1-based and gapless. */
  seq: number;
  /** ISO 8601 UTC time of the append. */
  at: string;
  /** The branch whose log holds the event. */
  branch: string;
  type: K;
  data: EventPayloads[K];
  /** Present on all but the last event of a multi-event batch: how many follow in the batch. */
  more?: number;
}

export type EventOf<K extends EventType> = Envelope<K>;

export const MAIN = 'main';
