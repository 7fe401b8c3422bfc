/**
 * Histories as data for the unit tests of the fold, the decider and the projections: `given`
 * gives placed events their envelopes (growing ids and times, gapless sequence numbers), and the
 * builders below make the placed events most histories are written with.
 */
import { DEFAULT_CONFIG, type EventPayloads, type GccEvent, type Placed } from '../../src/events/types.js';

let clock = 1_700_000_000_000;

/** The events as a log holds them, one millisecond apart; `start` sets the clock first. */
export function given(events: readonly Placed[], start = clock): GccEvent[] {
  clock = start;
  return events.map(
    (e, i) =>
      ({
        id: `${(clock++).toString(16).padStart(12, '0')}00000000${String(i % 100).padStart(2, '0')}`,
        seq: i + 1,
        at: new Date(clock).toISOString(),
        branch: e.branch,
        type: e.type,
        data: e.data,
      }) as GccEvent,
  );
}

export const init: Placed = { type: 'memory.initialized', data: { format: 2, config: DEFAULT_CONFIG }, branch: 'main' };

export const created = (name: string, parent = 'main', hypotheses: string[] = []): Placed => ({
  type: 'branch.created',
  data: { name, parent, purpose: `try ${name}`, hypotheses },
  branch: name,
});

export const switched = (to: string, session?: string): Placed => ({
  type: 'branch.switched',
  data: session ? { to, session } : { to },
  branch: to,
});

/** A milestone on `branch`; `extra` overrides any field (id, title, files, merge…). */
export const commit = (
  branch: string,
  label = 'C001',
  extra: Partial<EventPayloads['commit.recorded']> = {},
): Placed => ({
  type: 'commit.recorded',
  data: {
    id: 'abcdef1',
    label,
    title: `work ${label}`,
    contribution: `did ${label}`,
    purpose: 'p',
    previous: 'none',
    files: [],
    ...extra,
  },
  branch,
});

export const merged = (branch: string, into = 'main', commitId = 'abcdef1'): Placed => ({
  type: 'branch.merged',
  data: { branch, into, commit: commitId },
  branch,
});

export const abandoned = (branch: string, reason = 'no'): Placed => ({
  type: 'branch.abandoned',
  data: { branch, reason },
  branch,
});
