/**
 * The readiness barrier: a turn waits, under one cap, for this instance's session hook to have
 * run and for the memory tools to be callable. In-process tools are callable at once (the host
 * calls toolsReady() right away); MCP tools appear later. If the cap expires first, exactly one
 * turn — the first to ask — is told that memory may not be callable yet and pointed at /reload;
 * late arrivals still make the barrier ready, and the turns after that see memory working.
 * Arm it when the extension instance is constructed: the cap runs from then.
 */

/** The clock the cap is scheduled on; xstate's SimulatedClock fits. */
export interface BarrierClock {
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
  clearTimeout(id: unknown): void;
}

/** Real timers, unref'd: a pending cap never keeps the host process alive. */
const unrefClock: BarrierClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
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

export function createReadinessBarrier(opts: { capMs: number; clock?: BarrierClock }): ReadinessBarrier {
  const { capMs, clock = unrefClock } = opts;
  let hook = false;
  let tools = false;
  let noticed = false;
  let stopped = false;
  let phase: 'waiting' | 'timedOut' | 'ready' = 'waiting';
  /** Turns asked while waiting, released in arrival order: the first of them gets the notice. */
  const parked: ((r: TurnReadiness) => void)[] = [];
  const settle = (): TurnReadiness => {
    if (phase === 'ready') return { ready: true };
    if (noticed || stopped) return { ready: false };
    noticed = true;
    const what = hook ? 'the memory tools had not appeared' : 'the session hook had not run';
    return {
      ready: false,
      notice:
        `GCC memory may not be callable yet: after ${capMs} ms ${what}. If a memory tool is ` +
        'missing or fails, run /reload.',
    };
  };
  const release = (): void => {
    for (const resolve of parked.splice(0)) resolve(settle());
  };
  const timer = clock.setTimeout(() => {
    if (phase !== 'waiting') return;
    phase = 'timedOut';
    release();
  }, capMs);
  const arrived = (): void => {
    if (phase === 'ready' || !hook || !tools) return;
    phase = 'ready';
    clock.clearTimeout(timer);
    release();
  };
  return {
    sessionHookRan: () => {
      hook = true;
      arrived();
    },
    toolsReady: () => {
      tools = true;
      arrived();
    },
    awaitTurn: () =>
      phase === 'waiting' && !stopped ? new Promise((resolve) => parked.push(resolve)) : Promise.resolve(settle()),
    state: () => phase,
    stop: () => {
      // A stopped barrier never reports; parked turns go ahead without memory.
      stopped = true;
      clock.clearTimeout(timer);
      for (const resolve of parked.splice(0)) resolve({ ready: false });
    },
  };
}
