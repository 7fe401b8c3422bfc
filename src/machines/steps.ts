/**
 * Running the branch and session machines purely: a snapshot restored from the value the fold
 * keeps, `transition()` with one event, the next value and what was emitted. No actors, no
 * clocks — the decider and replay both step through here, so they cannot disagree.
 */
import { transition } from 'xstate';
import { type BranchContext, type BranchEmitted, type BranchLifecycle, branchMachine, type BranchMachineEvent, type BranchRejected } from './branch-machine.js';
import { emittedBy } from './effects.js';
import { type SessionDomainEvent, type SessionEmitted, type SessionLifecycle, sessionMachine, type SessionSignal } from './session.js';
import type { NewEvent } from '../events/types.js';

export interface BranchStep {
  life: BranchLifecycle;
  /** What the machine emitted: the event itself when the move is legal. */
  accepted: NewEvent[];
  rejected: BranchRejected | null;
}

export function branchStep(life: BranchLifecycle, context: BranchContext, event: BranchMachineEvent): BranchStep {
  const snapshot = branchMachine.resolveState({ value: life, context });
  const [next, actions] = transition(branchMachine, snapshot, event);
  const out = emittedBy<BranchEmitted>(actions);
  const rejected = (out.find((e) => e.type === 'gcc.rejected') as BranchRejected | undefined) ?? null;
  return { life: next.value as BranchLifecycle, accepted: out.filter((e): e is NewEvent => e.type !== 'gcc.rejected'), rejected };
}

/** What the fold keeps of a session's machine. */
export interface SessionMemo {
  life: SessionLifecycle;
  started: boolean;
  reason: string;
}

export interface SessionStep extends SessionMemo {
  emitted: SessionDomainEvent[];
  degraded: string | null;
}

export function sessionStep(memo: SessionMemo, who: { host: string; session: string }, signals: readonly SessionSignal[]): SessionStep {
  let snapshot = sessionMachine.resolveState({
    value: memo.life,
    context: { host: who.host, session: who.session, reason: memo.reason, started: memo.started, openCapMs: 10_000, degraded: null },
  });
  const emitted: SessionDomainEvent[] = [];
  let degraded: string | null = null;
  for (const s of signals) {
    const [next, actions] = transition(sessionMachine, snapshot, s);
    snapshot = next;
    for (const e of emittedBy<SessionEmitted>(actions)) {
      if (e.type === 'gcc.degraded') degraded = e.reason;
      else emitted.push(e);
    }
  }
  return { life: snapshot.value as SessionLifecycle, started: snapshot.context.started, reason: snapshot.context.reason, emitted, degraded };
}
