/**
 * The readiness barrier: a turn waits, under one cap, for this instance's session
 * hook to have run, then for the memory tools to be callable. In-process tools are callable
 * at once (the host calls toolsReady() right away); MCP tools appear later. If the cap expires
 * first, exactly one turn is told that memory may not be callable yet and pointed at /reload.
 *
 * The "exactly one" lives in the machine (timedOut.unreported → reported on the first TURN),
 * not in host code, so the model-based and property tests cover it. Late arrivals after the
 * cap still move the barrier to ready: the turns after that simply see memory working.
 *
 * Host API: createReadinessBarrier({ capMs, clock?, inspect? }) → ReadinessBarrier.
 * Arm it when the extension instance is constructed: the cap runs from then.
 */
import type { InspectionEvent, Observer } from 'xstate';
import { xstateLib } from '../runtime/lazy-deps.js';

export type Missing = 'sessionHook' | 'tools';

export type ReadinessEmitted =
  | { type: 'ready' }
  | { type: 'timedOut'; missing: Missing[]; capMs: number }
  | { type: 'notice'; text: string };

export type ReadinessEvent = { type: 'SESSION_HOOK_RAN' } | { type: 'TOOLS_READY' } | { type: 'TURN' };

export function readinessNotice(missing: readonly Missing[], capMs: number): string {
  const what = missing.includes('sessionHook') ? 'the session hook had not run' : 'the memory tools had not appeared';
  return (
    `GCC memory may not be callable yet: after ${capMs} ms ${what}. If a memory tool is ` +
    `missing or fails, run /reload.`
  );
}

function defineReadinessMachine() {
  const { assign, emit, setup } = xstateLib();
  return setup({
    types: {
      input: {} as { capMs: number },
      context: {} as { capMs: number; hookRan: boolean; toolsReady: boolean },
      events: {} as ReadinessEvent,
      emitted: {} as ReadinessEmitted,
    },
    guards: {
      toolsAlready: ({ context }) => context.toolsReady,
      hookAlready: ({ context }) => context.hookRan,
    },
    delays: { cap: ({ context }) => context.capMs },
    actions: {
      markHook: assign({ hookRan: true }),
      markTools: assign({ toolsReady: true }),
      reportReady: emit({ type: 'ready' as const }),
      reportTimedOut: emit(({ context }) => ({
        type: 'timedOut' as const,
        capMs: context.capMs,
        missing: missingOf(context),
      })),
      notice: emit(({ context }) => ({
        type: 'notice' as const,
        text: readinessNotice(missingOf(context), context.capMs),
      })),
    },
  }).createMachine({
    id: 'readiness',
    context: ({ input }) => ({ capMs: input.capMs, hookRan: false, toolsReady: false }),
    initial: 'waiting',
    states: {
      waiting: {
        // The cap sits on the parent so one deadline spans both steps and is cancelled on exit.
        after: { cap: { target: 'timedOut' } },
        initial: 'awaitHook',
        states: {
          awaitHook: {
            on: {
              SESSION_HOOK_RAN: [
                { guard: 'toolsAlready', target: '#readiness.ready', actions: 'markHook' },
                { target: 'awaitTools', actions: 'markHook' },
              ],
              TOOLS_READY: { actions: 'markTools' }, // in-process tools can be callable before the hook
            },
          },
          awaitTools: { on: { TOOLS_READY: { target: '#readiness.ready', actions: 'markTools' } } },
        },
      },
      timedOut: {
        entry: 'reportTimedOut',
        initial: 'unreported',
        states: {
          unreported: { on: { TURN: { target: 'reported', actions: 'notice' } } },
          reported: {},
        },
        on: {
          SESSION_HOOK_RAN: [{ guard: 'toolsAlready', target: 'ready', actions: 'markHook' }, { actions: 'markHook' }],
          TOOLS_READY: [{ guard: 'hookAlready', target: 'ready', actions: 'markTools' }, { actions: 'markTools' }],
        },
      },
      ready: { type: 'final', entry: 'reportReady' },
    },
  });
}

let machine: ReturnType<typeof defineReadinessMachine> | undefined;

/** The machine, defined on first use. */
export function readinessMachine(): ReturnType<typeof defineReadinessMachine> {
  machine ??= defineReadinessMachine();
  return machine;
}

function missingOf(c: { hookRan: boolean; toolsReady: boolean }): Missing[] {
  return [...(c.hookRan ? [] : ['sessionHook' as const]), ...(c.toolsReady ? [] : ['tools' as const])];
}

/** The clock xstate schedules `after` with; SimulatedClock fits. */
export interface BarrierClock {
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
  clearTimeout(id: unknown): void;
}

/** Real timers, unref'd: a pending cap never keeps the host process alive. */
export const unrefClock: BarrierClock = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

export interface TurnReadiness {
  ready: boolean;
  /** Given to exactly one turn, the first after the cap expired with memory not ready. */
  notice?: string;
}

export interface ReadinessBarrier {
  sessionHookRan(): void;
  toolsReady(): void;
  /** Resolves when memory is ready or the cap has expired; never rejects. */
  awaitTurn(): Promise<TurnReadiness>;
  state(): 'waiting' | 'timedOut' | 'ready';
  stop(): void;
}

export function createReadinessBarrier(opts: {
  capMs: number;
  clock?: BarrierClock;
  inspect?: Observer<InspectionEvent> | ((ev: InspectionEvent) => void);
}): ReadinessBarrier {
  const actor = xstateLib().createActor(readinessMachine(), {
    input: { capMs: opts.capMs },
    clock: opts.clock ?? unrefClock,
    ...(opts.inspect ? { inspect: opts.inspect } : {}),
  });
  let notice: string | undefined;
  actor.on('notice', (e) => {
    notice = e.text;
  });
  const parked: Array<(r: TurnReadiness) => void> = [];

  const state = (): 'waiting' | 'timedOut' | 'ready' => {
    const s = actor.getSnapshot();
    return s.matches('waiting') ? 'waiting' : s.matches('timedOut') ? 'timedOut' : 'ready';
  };
  const settleTurn = (): TurnReadiness => {
    if (state() === 'ready') return { ready: true };
    notice = undefined;
    if (actor.getSnapshot().status === 'active') actor.send({ type: 'TURN' });
    const text = notice;
    return text === undefined ? { ready: false } : { ready: false, notice: text };
  };
  const release = (): void => {
    // Parked turns are released in arrival order, so the first of them gets the notice.
    while (parked.length > 0 && state() !== 'waiting') parked.shift()?.(settleTurn());
  };
  // Released in a microtask: sending TURN from inside the actor's own notification would queue
  // behind the current step, and the notice would miss the turn it belongs to.
  actor.subscribe({ next: () => queueMicrotask(release), error: () => undefined });
  actor.start();

  const send = (type: 'SESSION_HOOK_RAN' | 'TOOLS_READY'): void => {
    if (actor.getSnapshot().status === 'active') actor.send({ type });
  };
  return {
    sessionHookRan: () => send('SESSION_HOOK_RAN'),
    toolsReady: () => send('TOOLS_READY'),
    awaitTurn: () => {
      if (state() !== 'waiting' && parked.length === 0) return Promise.resolve(settleTurn());
      return new Promise((resolve) => {
        parked.push(resolve);
        if (state() !== 'waiting') queueMicrotask(release);
      });
    },
    state,
    stop: () => {
      actor.stop();
      // A stopped barrier never reports; parked turns go ahead without memory.
      while (parked.length > 0) parked.shift()?.({ ready: false });
    },
  };
}
