/**
 * Running the branch and session machines purely: a snapshot restored from the value the fold
 * keeps, `transition()` with one event, the next value and what was emitted. No actors, no
 * clocks — the decider and replay both step through here, so they cannot disagree.
 */
import {
  type BranchContext,
  type BranchEmitted,
  type BranchLifecycle,
  branchMachine,
  type BranchMachineEvent,
  type BranchRejected,
  guardKey,
} from './branch-machine.js';
import { type SessionDomainEvent, type SessionLifecycle, sessionMachine, type SessionSignal } from './session.js';
import type { NewEvent } from '../events/types.js';
import { xstateLib } from '../runtime/lazy-deps.js';

/**
 * What `transition()` emitted. Emits come back typed by their setup names, but at run time every
 * `emit` action is the built-in `xstate.emit` carrying the event in `params.event`
 * (reference/xstate.md §1.4), so we match on that.
 */
export function emittedBy<E>(actions: readonly { type: string; params?: unknown }[]): E[] {
  return actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: E }).event);
}

/** One transition of a branch or session machine, as an inspector sees it. */
export interface StepRecord {
  machine: 'branch' | 'session';
  /** The branch name, or the session id. */
  id: string;
  event: string;
  from: string;
  to: string;
  /** `decide`: a move asked for now; `fold`: a logged event replayed. */
  origin: 'decide' | 'fold';
}

let observer: ((r: StepRecord) => void) | null = null;

/** Watch every step (live inspection, diagrams/inspect.ts); returns how to stop watching. */
export function observeSteps(fn: (r: StepRecord) => void): () => void {
  observer = fn;
  return () => {
    if (observer === fn) observer = null;
  };
}

export interface BranchStep {
  life: BranchLifecycle;
  /** What the machine emitted: the event itself when the move is legal. */
  accepted: NewEvent[];
  rejected: BranchRejected | null;
}

/**
 * Each outcome of the branch machine, by state, event type and what its guards read
 * (guardKey): worked out by the machine once and kept, since a commit steps the machine in
 * decide and the fold replays every creation, merge and abandon.
 */
const outcomes = new Map<string, { to: BranchLifecycle; code: BranchRejected['code'] | null }>();

/** The machine's verdict on `event` for a branch in `life`: the event itself when legal, else the rejection. */
export function branchStep(
  life: BranchLifecycle,
  context: BranchContext,
  event: BranchMachineEvent,
  origin: StepRecord['origin'] = 'decide',
): BranchStep {
  const key = `${life}\u0000${event.type}\u0000${guardKey(context, event)}`;
  let outcome = outcomes.get(key);
  if (!outcome) {
    const machine = branchMachine();
    const [next, actions] = xstateLib().transition(machine, machine.resolveState({ value: life, context }), event);
    const refused = emittedBy<BranchEmitted>(actions).find((e): e is BranchRejected => e.type === 'gcc.rejected');
    outcome = { to: next.value as BranchLifecycle, code: refused?.code ?? null };
    outcomes.set(key, outcome);
  }
  const { to, code } = outcome;
  const rejected = code ? { type: 'gcc.rejected' as const, code, branch: context.name, refused: event.type } : null;
  observer?.({
    machine: 'branch',
    id: context.name,
    event: rejected ? `${event.type} (refused: ${rejected.code})` : event.type,
    from: life,
    to,
    origin,
  });
  // What the machine emits for a legal move is the event itself (branch-machine.ts `accept`).
  return { life: to, accepted: rejected ? [] : [{ type: event.type, data: event.data } as NewEvent], rejected };
}

/** What the fold keeps of a session's machine. */
export interface SessionMemo {
  life: SessionLifecycle;
  started: boolean;
  reason: string;
}

export interface SessionStep extends SessionMemo {
  emitted: SessionDomainEvent[];
}

export function sessionStep(
  memo: SessionMemo,
  who: { host: string; session: string },
  signals: readonly SessionSignal[],
  origin: StepRecord['origin'] = 'decide',
): SessionStep {
  const machine = sessionMachine();
  const { transition } = xstateLib();
  let snapshot = machine.resolveState({
    value: memo.life,
    context: {
      host: who.host,
      session: who.session,
      reason: memo.reason,
      started: memo.started,
    },
  });
  const emitted: SessionDomainEvent[] = [];
  for (const s of signals) {
    const [next, actions] = transition(machine, snapshot, s);
    observer?.({
      machine: 'session',
      id: who.session,
      event: s.type,
      from: String(snapshot.value),
      to: String(next.value),
      origin,
    });
    snapshot = next;
    emitted.push(...emittedBy<SessionDomainEvent>(actions));
  }
  return {
    life: snapshot.value as SessionLifecycle,
    started: snapshot.context.started,
    reason: snapshot.context.reason,
    emitted,
  };
}
