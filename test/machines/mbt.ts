/**
 * Model-based testing helpers over xstate/graph.
 *
 * Two traps from reference/xstate.md §3.1 are handled here:
 * - createTestModel refuses machines with `after`, so we build `new TestModel` ourselves, and
 * - TestModel's default stateMatcher only matches '*', so `states: {...}` assertions would
 *   silently never run. We pass a real matcher AND count which state keys ran, so a test can
 *   assert that every assertion was exercised at least once.
 */
import { TestModel } from 'xstate/graph';
import type { ActorLogic, AnyMachineSnapshot, AnyStateMachine, EventFrom, InputFrom, SnapshotFrom } from 'xstate';

/** A delayed `after` transition, offered to the path generator as an ordinary event (§3.1). */
export type AfterEvent = { type: `xstate.after.${string}` };

export type Snap<M extends AnyStateMachine> = SnapshotFrom<M>;

export function modelOf<M extends AnyStateMachine>(
  machine: M,
  opts: { events: Array<EventFrom<M> | AfterEvent>; input?: InputFrom<M> },
): TestModel<Snap<M>, EventFrom<M> | AfterEvent, InputFrom<M>> {
  // The cast: TestModel's ActorLogic has `emitted = EventObject`, which machines with typed emits do not satisfy.
  const logic = machine as unknown as ActorLogic<Snap<M>, EventFrom<M> | AfterEvent, InputFrom<M>>;
  return new TestModel(logic, {
    events: opts.events,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    stateMatcher: (snapshot, key) => {
      const snap = snapshot as unknown as AnyMachineSnapshot;
      return key.startsWith('#') ? snap._nodes.includes(machine.getStateNodeById(key)) : snap.matches(key as never);
    },
  });
}

/** Wraps state assertions so the caller can check each one really ran. */
export function counted<S>(states: Record<string, (s: S) => void | Promise<void>>): {
  states: Record<string, (s: S) => Promise<void>>;
  ran: Map<string, number>;
} {
  const ran = new Map<string, number>(Object.keys(states).map((k) => [k, 0]));
  const wrapped: Record<string, (s: S) => Promise<void>> = {};
  for (const [k, fn] of Object.entries(states)) {
    wrapped[k] = async (s) => {
      ran.set(k, (ran.get(k) ?? 0) + 1);
      await fn(s);
    };
  }
  return { states: wrapped, ran };
}
