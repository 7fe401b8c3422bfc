/**
 * The readiness barrier: its paths, a replay of recorded steps and a property over any order of
 * events. They are written to fail when a reported timeout gives a second notice, or when the cap
 * moves onto one step so that a hook arriving first cancels it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, SimulatedClock, transition } from 'xstate';
import {
  createReadinessBarrier,
  readinessMachine,
  type ReadinessEvent,
  type TurnReadiness,
} from '../../src/machines/readiness.js';
import { counted, flush, modelOf } from './mbt.js';

const CAP = 1000;
const AFTER_CAP = 'xstate.after.cap.readiness.waiting' as const;

describe('readiness barrier: model-based (xstate/graph paths incl. the delayed cap)', () => {
  const model = modelOf(readinessMachine(), {
    input: { capMs: CAP },
    events: [{ type: 'SESSION_HOOK_RAN' }, { type: 'TOOLS_READY' }, { type: 'TURN' }, { type: AFTER_CAP }],
  });
  const shortest = model.getShortestPaths();
  const simple = model.getSimplePaths();
  const ranAll = new Map<string, number>();

  it('has paths through every state', () => {
    const seen = new Set([...shortest, ...simple].flatMap((p) => p.steps.map((s) => JSON.stringify(s.state.value))));
    expect([...seen].sort()).toEqual([
      '"ready"',
      '{"timedOut":"reported"}',
      '{"timedOut":"unreported"}',
      '{"waiting":"awaitHook"}',
      '{"waiting":"awaitTools"}',
    ]);
  });

  for (const path of [...shortest, ...simple]) {
    it(path.description, async () => {
      const clock = new SimulatedClock();
      const barrier = createReadinessBarrier({ capMs: CAP, clock });
      const turns: TurnReadiness[] = [];
      const notices = () => turns.filter((t) => t.notice !== undefined).length;
      const { states, ran } = counted({
        '#readiness.waiting': () => {
          expect(barrier.state()).toBe('waiting');
          expect(turns).toEqual([]);
        },
        '#readiness.ready': async () => {
          expect(barrier.state()).toBe('ready');
          expect(await barrier.awaitTurn()).toEqual({ ready: true });
          expect(notices()).toBeLessThanOrEqual(1);
        },
        '#readiness.timedOut.unreported': () => {
          expect(barrier.state()).toBe('timedOut');
          expect(notices()).toBe(0);
        },
        '#readiness.timedOut.reported': async () => {
          expect(notices()).toBe(1);
          expect(turns.at(-1)?.notice).toMatch(/\/reload/);
          const again = await barrier.awaitTurn();
          expect(again).toEqual({ ready: false }); // no other turn repeats the notice
        },
      });
      await path.test({
        events: {
          SESSION_HOOK_RAN: () => barrier.sessionHookRan(),
          TOOLS_READY: () => barrier.toolsReady(),
          TURN: async () => {
            turns.push(await barrier.awaitTurn());
          },
          [AFTER_CAP]: async () => {
            clock.increment(CAP);
            await flush();
          },
        },
        states,
      });
      for (const [k, v] of ran) ranAll.set(k, (ranAll.get(k) ?? 0) + v);
      barrier.stop();
    });
  }

  it('every state assertion ran at least once', () => {
    expect([...ranAll.entries()].filter(([, v]) => v === 0)).toEqual([]);
    expect(ranAll.size).toBe(4);
  });
});

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

  it('replays without an actor or a clock: the cap is an effect, the timeout an event', () => {
    const [s0, fx] = initialTransition(readinessMachine(), { capMs: CAP });
    expect(fx.some((a) => (a.params as { delay?: number } | undefined)?.delay === CAP)).toBe(true);
    const [s1] = transition(readinessMachine(), s0, { type: 'SESSION_HOOK_RAN' });
    const [s2] = transition(readinessMachine(), s1, { type: AFTER_CAP } as unknown as ReadinessEvent);
    expect(s2.value).toEqual({ timedOut: 'unreported' });
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
