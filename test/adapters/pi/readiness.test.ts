/**
 * The readiness barrier: a turn parked before the cap, tools before the hook, and a property
 * over any order of events against a reference model. They are written to fail when a reported
 * timeout gives a second notice, or when a hook arriving first cancels the cap.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createReadinessBarrier, type TurnReadiness } from '../../../src/adapters/pi/readiness.js';

const CAP = 1000;
/** Lets parked promises and queued microtasks settle (no timers involved). */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('readiness barrier: host wrapper', () => {
  it('a turn parked before the cap gets the notice; a parked second turn does not', async () => {
    const clock = new SimulatedClock();
    const barrier = createReadinessBarrier({ capMs: CAP, clock });
    barrier.sessionHookRan();
    const first = barrier.awaitTurn();
    const second = barrier.awaitTurn();
    clock.increment(CAP - 1);
    await flush();
    expect(barrier.state()).toBe('waiting');
    clock.increment(1);
    const [a, b] = await Promise.all([first, second]);
    expect(a.notice).toMatch(/memory tools had not appeared/);
    expect(b).toEqual({ ready: false });
    barrier.toolsReady(); // late MCP tools: the barrier lets later turns through
    expect(await barrier.awaitTurn()).toEqual({ ready: true });
  });

  it('in-process tools ready before the hook: ready as soon as the hook runs', async () => {
    const barrier = createReadinessBarrier({ capMs: CAP, clock: new SimulatedClock() });
    barrier.toolsReady();
    const turn = barrier.awaitTurn();
    barrier.sessionHookRan();
    expect(await turn).toEqual({ ready: true });
  });
});

type Cmd = { k: 'hook' } | { k: 'tools' } | { k: 'turn' } | { k: 'tick'; ms: number };
const arbCmd: fc.Arbitrary<Cmd> = fc.oneof(
  fc.constant({ k: 'hook' as const }),
  fc.constant({ k: 'tools' as const }),
  fc.constant({ k: 'turn' as const }),
  fc.integer({ min: 1, max: 700 }).map((ms) => ({ k: 'tick' as const, ms })),
);

/** The reference: ten lines of plain state, no XState. */
function reference(cmds: Cmd[]): TurnReadiness[] {
  let t = 0,
    hook = false,
    tools = false,
    noticed = false;
  let phase: 'waiting' | 'timedOut' | 'ready' = 'waiting';
  const out: TurnReadiness[] = [];
  const parked: number[] = [];
  const tell = (): TurnReadiness => (noticed ? { ready: false } : ((noticed = true), { ready: false, notice: 'N' }));
  for (const c of [...cmds, { k: 'tick', ms: 10 * CAP } as const]) {
    if (c.k === 'hook') hook = true;
    if (c.k === 'tools') tools = true;
    if (c.k === 'tick') t += c.ms;
    if (c.k === 'turn') {
      if (phase === 'waiting') parked.push(out.push({ ready: false }) - 1);
      else out.push(phase === 'ready' ? { ready: true } : tell());
    }
    if (phase !== 'ready' && hook && tools) {
      if (phase === 'waiting') for (const i of parked.splice(0)) out[i] = { ready: true };
      phase = 'ready';
    }
    if (phase === 'waiting' && t >= CAP) {
      phase = 'timedOut';
      for (const i of parked.splice(0)) out[i] = tell();
    }
  }
  return out;
}

describe('readiness barrier: property against a reference model', () => {
  it('reports at most once, and only if the cap elapsed before memory was ready', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbCmd, { maxLength: 25 }), async (cmds) => {
        const clock = new SimulatedClock();
        const barrier = createReadinessBarrier({ capMs: CAP, clock });
        const turns: Promise<TurnReadiness>[] = [];
        for (const c of cmds) {
          if (c.k === 'hook') barrier.sessionHookRan();
          if (c.k === 'tools') barrier.toolsReady();
          if (c.k === 'turn') turns.push(barrier.awaitTurn());
          if (c.k === 'tick') clock.increment(c.ms);
          await flush();
        }
        clock.increment(10 * CAP); // the cap expires for anyone still parked
        await flush();
        const got = (await Promise.all(turns)).map((r) => (r.notice === undefined ? r : { ...r, notice: 'N' }));
        expect(got).toEqual(reference(cmds));
        expect(got.filter((r) => r.notice).length).toBeLessThanOrEqual(1);
        barrier.stop();
      }),
      { numRuns: 200 },
    );
  });
});
