/**
 * The lifecycle of one branch as an XState v5 machine — the model, not a copy of one: each
 * branch's state value is what the fold keeps (decider/state.ts), the decider sends a
 * candidate event through `transition()` to learn whether the move is legal, and what the
 * machine emits is what is appended; replay sends each logged event through the same
 * `transition()` to move the branch on.
 *
 * The machine's events are the domain events themselves. It never throws and never looks
 * outside its own context: an illegal move is a self-transition that emits `gcc.rejected`
 * with an error code, so the rejection is data, visible in the diagram. Closed branches are
 * ordinary (non-final) states on purpose: a final state would make the snapshot `done`, and a
 * done snapshot silently ignores every event, so it could not reject.
 */
import type { SnapshotFrom } from 'xstate';
import type { ErrorCode } from '../errors.js';
import { xstateLib } from '../runtime/lazy-deps.js';
import type { EventPayloads, NewEvent } from '../events/types.js';

type Domain<K extends 'branch.created' | 'commit.recorded' | 'branch.merged' | 'branch.abandoned'> = {
  type: K;
  data: EventPayloads[K];
};

/** The events a branch's machine takes: the domain events that move or touch a branch. */
export type BranchMachineEvent =
  | Domain<'branch.created'>
  | Domain<'commit.recorded'>
  | Domain<'branch.merged'>
  | Domain<'branch.abandoned'>;

export type RejectCode = Extract<
  ErrorCode,
  'E_BRANCH_EXISTS' | 'E_BRANCH_NOT_FOUND' | 'E_BRANCH_CLOSED' | 'E_MERGE_SELF' | 'E_MERGE_MAIN' | 'E_ABANDON_MAIN'
>;

export interface BranchRejected {
  type: 'gcc.rejected';
  code: RejectCode;
  branch: string;
  /** The event that was refused. */
  refused: BranchMachineEvent['type'];
}

export type BranchEmitted = NewEvent | BranchRejected;

export interface BranchContext {
  name: string;
  /** null only for main, the trunk. */
  parent: string | null;
}

const reject = (code: RejectCode) => ({ type: 'reject' as const, params: { code } });

const isMain = (context: BranchContext): boolean => context.parent === null;
const intoSelf = (context: BranchContext, event: BranchMachineEvent): boolean =>
  event.type === 'branch.merged' && event.data.into === context.name;

/**
 * All that the machine's guards read of a move, as a key: with the state and the event's type
 * it settles the outcome (which transition, what is emitted), so steps.ts works each outcome out
 * once and keeps it. A new guard must add what it reads here.
 */
export function guardKey(context: BranchContext, event: BranchMachineEvent): string {
  return `${isMain(context) ? 'main' : ''}/${intoSelf(context, event) ? 'self' : ''}`;
}

function defineBranchMachine() {
  const { emit, setup } = xstateLib();
  return setup({
    types: {
      input: {} as { name: string; parent: string | null },
      context: {} as BranchContext,
      events: {} as BranchMachineEvent,
      emitted: {} as BranchEmitted,
    },
    guards: {
      isMain: ({ context }) => isMain(context),
      intoSelf: ({ context, event }) => intoSelf(context, event),
    },
    actions: {
      reject: emit(({ context, event }, params: { code: RejectCode }) => ({
        type: 'gcc.rejected' as const,
        code: params.code,
        branch: context.name,
        refused: event.type,
      })),
      /** The move is legal: the event is what gets appended. */
      accept: emit(({ event }) => ({ type: event.type, data: event.data }) as NewEvent),
    },
  }).createMachine({
    id: 'branch',
    context: ({ input }) => ({ name: input.name, parent: input.parent }),
    initial: 'unborn',
    states: {
      // No branch of this name yet: only its creation is legal.
      unborn: {
        on: {
          'branch.created': { target: 'active', actions: 'accept' },
          'commit.recorded': { actions: reject('E_BRANCH_NOT_FOUND') },
          'branch.merged': { actions: reject('E_BRANCH_NOT_FOUND') },
          'branch.abandoned': { actions: reject('E_BRANCH_NOT_FOUND') },
        },
      },
      active: {
        on: {
          'branch.created': { actions: reject('E_BRANCH_EXISTS') },
          'commit.recorded': { actions: 'accept' },
          'branch.merged': [
            { guard: 'isMain', actions: reject('E_MERGE_MAIN') },
            { guard: 'intoSelf', actions: reject('E_MERGE_SELF') },
            { target: 'merged', actions: 'accept' },
          ],
          'branch.abandoned': [
            { guard: 'isMain', actions: reject('E_ABANDON_MAIN') },
            { target: 'abandoned', actions: 'accept' },
          ],
        },
      },
      merged: {
        on: {
          'branch.created': { actions: reject('E_BRANCH_EXISTS') },
          'commit.recorded': { actions: reject('E_BRANCH_CLOSED') },
          'branch.merged': { actions: reject('E_BRANCH_CLOSED') },
          'branch.abandoned': { actions: reject('E_BRANCH_CLOSED') },
        },
      },
      abandoned: {
        on: {
          'branch.created': { actions: reject('E_BRANCH_EXISTS') },
          'commit.recorded': { actions: reject('E_BRANCH_CLOSED') },
          'branch.merged': { actions: reject('E_BRANCH_CLOSED') },
          'branch.abandoned': { actions: reject('E_BRANCH_CLOSED') },
        },
      },
    },
  });
}

let machine: ReturnType<typeof defineBranchMachine> | undefined;

/** The machine, defined on first use: a process that moves no branch loads no xstate. */
export function branchMachine(): ReturnType<typeof defineBranchMachine> {
  machine ??= defineBranchMachine();
  return machine;
}

export type BranchSnapshot = SnapshotFrom<ReturnType<typeof branchMachine>>;

/** The states a branch can be in: what the fold keeps and metadata.yaml shows. */
export type BranchLifecycle = 'unborn' | 'active' | 'merged' | 'abandoned';
export const BRANCH_LIFECYCLES: readonly BranchLifecycle[] = ['unborn', 'active', 'merged', 'abandoned'];
