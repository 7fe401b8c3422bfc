/**
 * The event model. Every change to memory is one of these events, appended to a log.
 * Payloads are self-contained: everything a projection renders is in the event, so replay
 * never has to recompute (and can never recompute differently).
 *
 * Two kinds of log hold them (docs/architecture.md): shared segments under `.GCC/events/`,
 * which travel through git, and this clone's local log, which never does. Which kind takes
 * an event is a property of its type (LOCAL_TYPES).
 */
import type { Payload, SHAPES } from './validate.js';

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

/** Each event's payload, as its shape in validate.ts admits it. */
export type EventPayloads = { [K in keyof typeof SHAPES]: Payload<(typeof SHAPES)[K]> };

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
