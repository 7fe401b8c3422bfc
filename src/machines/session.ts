/**
 * The host session lifecycle: start (startup / reload / new / resume / fork), opening
 * (resolve config → open the store with torn-tail recovery → replay → build the briefing),
 * ready, compacting, shutdown, and degraded.
 *
 * The opening steps are events the host sends when each step finishes (CONFIG_RESOLVED,
 * STORE_OPENED, REPLAYED, BRIEFING_BUILT) or FAILED, rather than invoked promises: the machine
 * then runs under plain `transition()` with no engine, and the host stays in charge of I/O.
 *
 * Fail open: any failure, or an opening that outlasts its cap (a wedged lock), lands in
 * `degraded`, which records the step and the reason and never blocks the host. Only START
 * (e.g. /reload) or SHUTDOWN leave it.
 *
 * Emits the domain events the host appends ('session.started' | 'session.compacted' |
 * 'session.ended'; pick them with sessionDomainEvents) and one host notice, 'gcc.degraded'.
 */
import { assertEvent, assign, emit, setup } from 'xstate';
import type { NewEvent } from '../events/types.js';

export const START_REASONS = ['startup', 'reload', 'new', 'resume', 'fork'] as const;
export type StartReason = (typeof START_REASONS)[number];
export type SessionStep = 'config' | 'store' | 'replay' | 'briefing' | 'compacting' | 'ready';

export type SessionEvent =
  | { type: 'START'; session: string; reason: StartReason }
  | { type: 'CONFIG_RESOLVED' }
  /** quarantined: torn-tail entries set aside while opening (0 on a clean open). */
  | { type: 'STORE_OPENED'; quarantined: number }
  | { type: 'REPLAYED'; events: number }
  | { type: 'BRIEFING_BUILT' }
  | { type: 'FAILED'; reason: string }
  | { type: 'COMPACT' }
  | { type: 'COMPACTED' }
  | { type: 'SHUTDOWN'; reason?: string };

export type SessionDomainEvent = Extract<NewEvent, { type: 'session.started' | 'session.compacted' | 'session.ended' }>;
export type SessionEmitted = SessionDomainEvent | { type: 'gcc.degraded'; step: SessionStep; reason: string };

export interface SessionContext {
  host: string;
  session: string | null;
  reason: StartReason | null;
  /** Where we are (or were, when degraded): named in the degraded record. */
  step: SessionStep;
  /** session.started was emitted, so a session.ended is owed. */
  started: boolean;
  openCapMs: number;
  quarantined: number;
  replayed: number;
  degraded: { step: SessionStep; reason: string } | null;
}

export function sessionDomainEvents(emitted: readonly SessionEmitted[]): SessionDomainEvent[] {
  return emitted.filter((e): e is SessionDomainEvent => e.type.startsWith('session.'));
}

export const sessionMachine = setup({
  types: {
    input: {} as { host: string; openCapMs?: number },
    context: {} as SessionContext,
    events: {} as SessionEvent,
    emitted: {} as SessionEmitted,
  },
  delays: { openCap: ({ context }) => context.openCapMs },
  guards: { owesEnd: ({ context }) => context.started },
  actions: {
    begin: assign(({ event }) => {
      assertEvent(event, 'START');
      return { session: event.session, reason: event.reason, started: false, degraded: null, quarantined: 0, replayed: 0 };
    }),
    at: assign((_, params: { step: SessionStep }) => ({ step: params.step })),
    storeOpened: assign(({ event }) => {
      assertEvent(event, 'STORE_OPENED');
      return { quarantined: event.quarantined };
    }),
    replayed: assign(({ event }) => {
      assertEvent(event, 'REPLAYED');
      return { replayed: event.events };
    }),
    markStarted: assign({ started: true }),
    emitStarted: emit(({ context }) => ({
      type: 'session.started' as const,
      data: { session: context.session ?? '', host: context.host, reason: context.reason ?? 'startup' },
    })),
    emitCompacted: emit(({ context }) => ({
      type: 'session.compacted' as const, data: { session: context.session ?? '', host: context.host },
    })),
    emitEnded: emit(({ context, event }) => ({
      type: 'session.ended' as const,
      data: {
        session: context.session ?? '', host: context.host,
        reason: event.type === 'SHUTDOWN' ? event.reason ?? 'shutdown' : event.type === 'START' ? event.reason : 'ended',
      },
    })),
    markEnded: assign({ started: false }),
    recordFailure: assign(({ context, event }) => ({
      degraded: {
        step: context.step,
        reason: event.type === 'FAILED' ? event.reason : `opening took longer than ${context.openCapMs} ms`,
      },
    })),
    emitDegraded: emit(({ context }) => ({
      type: 'gcc.degraded' as const, step: context.degraded?.step ?? context.step, reason: context.degraded?.reason ?? 'unknown',
    })),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    host: input.host, session: null, reason: null, step: 'config', started: false,
    openCapMs: input.openCapMs ?? 10_000, quarantined: 0, replayed: 0, degraded: null,
  }),
  initial: 'idle',
  states: {
    idle: { on: { START: { target: 'opening', actions: 'begin' } } },
    opening: {
      initial: 'config',
      after: { openCap: { target: 'degraded', actions: 'recordFailure' } },
      states: {
        config: { entry: { type: 'at', params: { step: 'config' } }, on: { CONFIG_RESOLVED: 'store' } },
        store: { entry: { type: 'at', params: { step: 'store' } }, on: { STORE_OPENED: { target: 'replay', actions: 'storeOpened' } } },
        replay: { entry: { type: 'at', params: { step: 'replay' } }, on: { REPLAYED: { target: 'briefing', actions: 'replayed' } } },
        briefing: {
          entry: { type: 'at', params: { step: 'briefing' } },
          on: { BRIEFING_BUILT: { target: '#session.ready', actions: ['markStarted', 'emitStarted'] } },
        },
      },
      on: {
        FAILED: { target: 'degraded', actions: 'recordFailure' },
        SHUTDOWN: 'ended',
      },
    },
    ready: {
      entry: { type: 'at', params: { step: 'ready' } },
      on: {
        COMPACT: 'compacting',
        // A new start in the same instance ends this session first, so the log shows the seam.
        START: { target: 'opening', actions: ['emitEnded', 'markEnded', 'begin'] },
        SHUTDOWN: { target: 'ended', actions: ['emitEnded', 'markEnded'] },
        FAILED: { target: 'degraded', actions: 'recordFailure' },
      },
    },
    compacting: {
      entry: { type: 'at', params: { step: 'compacting' } },
      on: {
        COMPACTED: { target: 'ready', actions: 'emitCompacted' },
        FAILED: { target: 'degraded', actions: 'recordFailure' },
        SHUTDOWN: { target: 'ended', actions: ['emitEnded', 'markEnded'] },
      },
    },
    degraded: {
      entry: 'emitDegraded',
      on: {
        START: [
          { guard: 'owesEnd', target: 'opening', actions: ['emitEnded', 'markEnded', 'begin'] },
          { target: 'opening', actions: 'begin' },
        ],
        SHUTDOWN: [
          { guard: 'owesEnd', target: 'ended', actions: ['emitEnded', 'markEnded'] },
          { target: 'ended' },
        ],
      },
    },
    ended: { type: 'final' },
  },
});
