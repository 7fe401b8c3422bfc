/**
 * The session lifecycle machine, every host's: model-based over xstate/graph paths, and the
 * pure stepping the engine does (restore the folded state, send a signal, append what is
 * emitted) agreeing with an actor driven through the same signals. Each state's assertion checks
 * that session boundaries balance, so a transition that forgets to emit `session.ended` fails.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type SessionDomainEvent, sessionMachine, type SessionSignal, signalsOf } from '../../src/machines/session.js';
import { sessionStep } from '../../src/machines/steps.js';
import { counted, modelOf } from './mbt.js';

const input = { host: 'pi', session: 's1' };

const signals: SessionSignal[] = [
  { type: 'START', reason: 'startup' },
  { type: 'OPENED' },
  { type: 'COMPACT' },
  { type: 'COMPACTED' },
  { type: 'SHUTDOWN', reason: 'quit' },
];

describe('session lifecycle: model-based (xstate/graph paths)', () => {
  const model = modelOf(sessionMachine(), { input, events: signals });
  const paths = [...model.getShortestPaths(), ...model.getSimplePaths()];

  it('paths reach every state (no state in the diagram that never happens)', () => {
    const seen = new Set(paths.flatMap((p) => p.steps.map((s) => JSON.stringify(s.state.value))));
    for (const v of ['"idle"', '"opening"', '"ready"', '"compacting"', '"ended"']) expect(seen).toContain(v);
  });

  for (const path of paths.slice(0, 60)) {
    it(path.description, async () => {
      const sut = createActor(sessionMachine(), { input });
      const out: SessionDomainEvent[] = [];
      sut.on('*', (e) => out.push(e));
      sut.start();
      const count = (t: string) => out.filter((e) => e.type === t).length;
      // Session boundaries must balance: at most one open, and open only when ready or compacting.
      const open = () => count('session.started') - count('session.ended');
      const { states } = counted({
        '#session.idle': () => expect(out).toEqual([]),
        '#session.opening': () => expect(open()).toBe(0),
        '#session.ready': () => expect(open()).toBe(1),
        '#session.compacting': () => expect(open()).toBe(1),
        '#session.ended': () => expect(open()).toBe(0),
      });
      await path.test({
        states,
        events: Object.fromEntries(
          signals.map((s) => [s.type, ({ event }: { event: { type: string } }) => sut.send(event as SessionSignal)]),
        ),
      });
    });
  }
});

describe('session lifecycle: the pure step the engine folds agrees with an actor', () => {
  it('for any signals, restoring the kept state after each step emits what the actor emits', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...signals), { maxLength: 20 }), (seq) => {
        const actor = createActor(sessionMachine(), { input });
        const fromActor: SessionDomainEvent[] = [];
        actor.on('*', (e) => fromActor.push(e));
        actor.start();
        let memo = { life: 'idle' as const, started: false, reason: '' } as Parameters<typeof sessionStep>[0];
        const fromSteps: string[] = [];
        for (const s of seq) {
          actor.send(s);
          const step = sessionStep(memo, { host: 'pi', session: 's1' }, [s]);
          memo = step;
          fromSteps.push(...step.emitted.map((e) => JSON.stringify(e)));
          expect(step.life).toBe(actor.getSnapshot().value);
        }
        expect(fromSteps).toEqual(fromActor.map((e) => JSON.stringify(e)));
        actor.stop();
      }),
      { numRuns: 300 },
    );
  });

  it('replaying each logged event through the signals it stands for lands where the host left the machine', () => {
    let memo = { life: 'idle', started: false, reason: '' } as Parameters<typeof sessionStep>[0];
    const logged = [];
    for (const s of [
      { type: 'START', reason: 'resume' },
      { type: 'OPENED' },
      { type: 'COMPACT' },
      { type: 'COMPACTED' },
      { type: 'SHUTDOWN', reason: 'quit' },
    ] as SessionSignal[]) {
      const step = sessionStep(memo, { host: 'claude-code', session: 's' }, [s]);
      memo = step;
      logged.push(...step.emitted);
    }
    expect(logged.map((e) => e.type)).toEqual(['session.started', 'session.compacted', 'session.ended']);
    let replayed = { life: 'idle', started: false, reason: '' } as Parameters<typeof sessionStep>[0];
    for (const e of logged) replayed = sessionStep(replayed, { host: 'claude-code', session: 's' }, signalsOf(e));
    expect(replayed.life).toBe(memo.life);
  });
});
