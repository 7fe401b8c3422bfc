/**
 * The lifecycle of one host session, the same for every host — Pi, Claude Code and Codex
 * hooks, MCP clients, the daemon: START (startup, reload, new, resume, fork, …), the memory
 * OPENED, ready, COMPACT/COMPACTED, SHUTDOWN.
 *
 * What it emits is what gets logged: reaching ready emits `session.started`, finishing a
 * compaction `session.compacted`, shutting down (or a new START of the same instance)
 * `session.ended`. The fold keeps each session's state value, so a host that runs a fresh
 * process per event (a hook) restores the snapshot, sends the signal and appends what the
 * machine emits; replay moves the snapshot with the signals each logged event stands for
 * (SIGNALS_OF). A host whose memory fails to open sends nothing more (hosts fail open), so
 * the machine has no state for it.
 */
import type { NewEvent } from '../events/types.js';
import { xstateLib, type XState } from '../runtime/lazy-deps.js';

export type SessionSignal =
  | { type: 'START'; reason: string }
  | { type: 'OPENED' }
  | { type: 'COMPACT' }
  | { type: 'COMPACTED' }
  | { type: 'SHUTDOWN'; reason?: string };

export type SessionDomainEvent = Extract<NewEvent, { type: 'session.started' | 'session.compacted' | 'session.ended' }>;

export interface SessionContext {
  host: string;
  session: string;
  reason: string;
  /** session.started was emitted, so a session.ended is owed. */
  started: boolean;
}

export type SessionLifecycle = 'idle' | 'opening' | 'ready' | 'compacting' | 'ended';

function defineSessionMachine() {
  // Annotated: an assertion (assertEvent) is called through a name with a declared type.
  const xstate: XState = xstateLib();
  const { assign, emit, setup } = xstate;
  return setup({
    types: {
      input: {} as { host: string; session: string },
      context: {} as SessionContext,
      events: {} as SessionSignal,
      emitted: {} as SessionDomainEvent,
    },
    actions: {
      begin: assign(({ event }) => {
        xstate.assertEvent(event, 'START');
        return { reason: event.reason, started: false };
      }),
      emitStarted: emit(({ context }) => ({
        type: 'session.started' as const,
        data: { session: context.session, host: context.host, reason: context.reason },
      })),
      markStarted: assign({ started: true }),
      emitCompacted: emit(({ context }) => ({
        type: 'session.compacted' as const,
        data: { session: context.session, host: context.host },
      })),
      emitEnded: emit(({ context, event }) => ({
        type: 'session.ended' as const,
        data: {
          session: context.session,
          host: context.host,
          reason:
            event.type === 'SHUTDOWN'
              ? (event.reason ?? 'shutdown')
              : event.type === 'START'
                ? `restarted: ${event.reason}`
                : 'ended',
        },
      })),
      markEnded: assign({ started: false }),
    },
  }).createMachine({
    id: 'session',
    context: ({ input }) => ({
      host: input.host,
      session: input.session,
      reason: '',
      started: false,
    }),
    initial: 'idle',
    states: {
      idle: { on: { START: { target: 'opening', actions: 'begin' }, SHUTDOWN: 'ended' } },
      opening: {
        on: {
          OPENED: { target: 'ready', actions: ['markStarted', 'emitStarted'] },
          SHUTDOWN: 'ended',
        },
      },
      ready: {
        on: {
          COMPACT: 'compacting',
          // A new start of the same session ends what was running, so the log shows the seam.
          START: { target: 'opening', actions: ['emitEnded', 'markEnded', 'begin'] },
          SHUTDOWN: { target: 'ended', actions: ['emitEnded', 'markEnded'] },
        },
      },
      compacting: {
        on: {
          COMPACTED: { target: 'ready', actions: 'emitCompacted' },
          SHUTDOWN: { target: 'ended', actions: ['emitEnded', 'markEnded'] },
        },
      },
      // A resumed host session starts again from here (Claude Code resumes a session by id).
      ended: { on: { START: { target: 'opening', actions: 'begin' } } },
    },
  });
}

let machine: ReturnType<typeof defineSessionMachine> | undefined;

/** The machine, defined on first use: a process that moves no session loads no xstate. */
export function sessionMachine(): ReturnType<typeof defineSessionMachine> {
  machine ??= defineSessionMachine();
  return machine;
}

/** The signals each logged lifecycle event stands for: replay moves a session's snapshot with them. */
export function signalsOf(e: SessionDomainEvent): SessionSignal[] {
  switch (e.type) {
    case 'session.started':
      return [{ type: 'START', reason: e.data.reason }, { type: 'OPENED' }];
    case 'session.compacted':
      return [{ type: 'COMPACT' }, { type: 'COMPACTED' }];
    case 'session.ended':
      return [{ type: 'SHUTDOWN', reason: e.data.reason }];
  }
}
