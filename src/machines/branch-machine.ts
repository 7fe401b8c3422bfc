/**
 * The lifecycle of ONE branch as an XState v5 machine. The world of all branches, and the
 * routing of each operation to the machines it touches, lives in ./branch.ts.
 *
 * The machine never throws and never looks outside its own context: an illegal move is a
 * self-transition that emits `gcc.rejected` with an error code, so the rejection is data,
 * visible in the diagram, and the same under `transition()` as under an actor.
 * Closed branches are ordinary (non-final) states on purpose: a final state would make the
 * snapshot `done`, and a done snapshot silently ignores every event, so we could not reject.
 */
import { assertEvent, assign, emit, setup, type SnapshotFrom } from 'xstate';
import type { ErrorCode } from '../errors.js';
import type { EventPayloads, NewEvent } from '../events/types.js';

export type CommitData = EventPayloads['commit.recorded'];

export type BranchMachineEvent =
  | { type: 'CREATE'; parent: string; purpose: string; hypotheses: string[]; session?: string }
  /** The current branch gives way to a new child branch (refused if closed or busy). */
  | { type: 'FORK' }
  | { type: 'SWITCH_IN'; session?: string }
  /** The session leaves this branch; always allowed unless a commit is in flight. */
  | { type: 'SWITCH_OUT' }
  | { type: 'COMMIT'; commit: CommitData }
  | { type: 'MERGE'; into: string; commit: string; session?: string }
  | { type: 'ABANDON'; reason: string; session?: string }
  /** The store acknowledged the in-flight append. */
  | { type: 'DONE' };

export type RejectCode = Extract<
  ErrorCode,
  'E_BRANCH_CLOSED' | 'E_MERGE_SELF' | 'E_MERGE_MAIN' | 'E_ABANDON_MAIN' | 'E_BUSY'
>;

export interface BranchRejected {
  type: 'gcc.rejected';
  code: RejectCode;
  branch: string;
  /** The machine event that was refused. */
  op: BranchMachineEvent['type'];
}

export type BranchEmitted = NewEvent | BranchRejected;

export interface BranchContext {
  name: string;
  /** null only for main. */
  parent: string | null;
}

const withSession = <T extends object>(data: T, session: string | undefined): T & { session?: string } =>
  session === undefined ? data : { ...data, session };

export const branchMachine = setup({
  types: {
    input: {} as { name: string; parent?: string | null },
    context: {} as BranchContext,
    events: {} as BranchMachineEvent,
    emitted: {} as BranchEmitted,
  },
  guards: {
    isMain: ({ context }) => context.parent === null,
    intoSelf: ({ context, event }) => event.type === 'MERGE' && event.into === context.name,
  },
  actions: {
    reject: emit(({ context, event }, params: { code: RejectCode }) => ({
      type: 'gcc.rejected' as const,
      code: params.code,
      branch: context.name,
      op: event.type,
    })),
    adopt: assign(({ event }) => {
      assertEvent(event, 'CREATE');
      return { parent: event.parent };
    }),
    emitCreated: emit(({ context, event }) => {
      assertEvent(event, 'CREATE');
      const data = { name: context.name, parent: event.parent, purpose: event.purpose, hypotheses: event.hypotheses };
      return { type: 'branch.created' as const, data: withSession(data, event.session) };
    }),
    emitSwitched: emit(({ context, event }) => {
      assertEvent(event, 'SWITCH_IN');
      return { type: 'branch.switched' as const, data: withSession({ to: context.name }, event.session) };
    }),
    emitCommit: emit(({ event }) => {
      assertEvent(event, 'COMMIT');
      return { type: 'commit.recorded' as const, data: event.commit };
    }),
    emitMerged: emit(({ context, event }) => {
      assertEvent(event, 'MERGE');
      const data = { branch: context.name, into: event.into, commit: event.commit };
      return { type: 'branch.merged' as const, data: withSession(data, event.session) };
    }),
    emitAbandoned: emit(({ context, event }) => {
      assertEvent(event, 'ABANDON');
      const data = { branch: context.name, reason: event.reason };
      return { type: 'branch.abandoned' as const, data: withSession(data, event.session) };
    }),
  },
}).createMachine({
  id: 'branch',
  context: ({ input }) => ({ name: input.name, parent: input.parent ?? null }),
  initial: 'created',
  states: {
    created: {
      on: { CREATE: { target: 'active.notCurrent', actions: ['adopt', 'emitCreated'] } },
    },
    active: {
      initial: 'notCurrent',
      states: {
        notCurrent: {
          on: { SWITCH_IN: { target: 'current', actions: 'emitSwitched' } },
        },
        current: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                COMMIT: { target: 'committing', actions: 'emitCommit' },
                FORK: { target: '#branch.active.notCurrent' },
                SWITCH_OUT: { target: '#branch.active.notCurrent' },
              },
            },
            // A commit is in flight until the store acknowledges it: nothing else may move.
            committing: {
              on: {
                DONE: { target: 'idle' },
                COMMIT: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
                FORK: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
                SWITCH_OUT: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
                MERGE: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
                ABANDON: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
              },
            },
          },
        },
      },
      on: {
        MERGE: [
          { guard: 'isMain', actions: { type: 'reject', params: { code: 'E_MERGE_MAIN' } } },
          { guard: 'intoSelf', actions: { type: 'reject', params: { code: 'E_MERGE_SELF' } } },
          { target: 'merging', actions: 'emitMerged' },
        ],
        ABANDON: [
          { guard: 'isMain', actions: { type: 'reject', params: { code: 'E_ABANDON_MAIN' } } },
          { target: 'closed.abandoned', actions: 'emitAbandoned' },
        ],
      },
    },
    // The merge is decided; the branch closes once the store has the synthesis commit.
    merging: {
      on: {
        DONE: { target: 'closed.merged' },
        COMMIT: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
        FORK: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
        SWITCH_IN: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
        MERGE: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
        ABANDON: { actions: { type: 'reject', params: { code: 'E_BUSY' } } },
      },
    },
    // Terminal. SWITCH_OUT is deliberately unhandled: leaving a closed branch is always fine.
    closed: {
      initial: 'merged',
      states: { merged: {}, abandoned: {} },
      on: {
        COMMIT: { actions: { type: 'reject', params: { code: 'E_BRANCH_CLOSED' } } },
        FORK: { actions: { type: 'reject', params: { code: 'E_BRANCH_CLOSED' } } },
        SWITCH_IN: { actions: { type: 'reject', params: { code: 'E_BRANCH_CLOSED' } } },
        MERGE: { actions: { type: 'reject', params: { code: 'E_BRANCH_CLOSED' } } },
        ABANDON: { actions: { type: 'reject', params: { code: 'E_BRANCH_CLOSED' } } },
      },
    },
  },
});

export type BranchSnapshot = SnapshotFrom<typeof branchMachine>;

/** Coarse status, the vocabulary of metadata.yaml. */
export type BranchStatus = 'active' | 'merged' | 'abandoned';

export function branchStatus(s: BranchSnapshot): BranchStatus {
  if (s.matches({ closed: 'merged' })) return 'merged';
  if (s.matches({ closed: 'abandoned' })) return 'abandoned';
  return 'active';
}

/** In-flight work of a branch, if any. */
export function branchInFlight(s: BranchSnapshot): 'commit' | 'merge' | null {
  if (s.matches('merging')) return 'merge';
  if (s.matches({ active: { current: 'committing' } })) return 'commit';
  return null;
}
