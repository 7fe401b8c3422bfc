/**
 * The branch lifecycle machine is the model: the decider asks it whether a move is legal and
 * appends what it emits; the fold moves each branch's kept state through the same
 * transition(). Model-based over xstate/graph paths, plus properties against the fold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { type BranchEmitted, branchMachine, type BranchMachineEvent } from '../../src/machines/branch-machine.js';
import { branchStep } from '../../src/machines/steps.js';
import { counted, modelOf } from './mbt.js';

const commit = (id = 'abcdef1'): BranchMachineEvent => ({
  type: 'commit.recorded',
  data: { id, label: 'C001', title: 't', contribution: 'c', purpose: 'p', previous: 'none', files: [] },
});
const events: BranchMachineEvent[] = [
  { type: 'branch.created', data: { name: 'exp', parent: 'main', purpose: 'p', hypotheses: [] } },
  commit(),
  { type: 'branch.merged', data: { branch: 'exp', into: 'main', commit: 'abcdef1' } },
  { type: 'branch.merged', data: { branch: 'exp', into: 'exp', commit: 'abcdef1' } },
  { type: 'branch.abandoned', data: { branch: 'exp', reason: 'slower' } },
];

describe('branch lifecycle: model-based', () => {
  const model = modelOf(branchMachine(), { input: { name: 'exp', parent: 'main' }, events });
  const paths = [...model.getShortestPaths(), ...model.getSimplePaths()];

  it('paths reach every state, and every state is one a branch can be in', () => {
    const seen = new Set(paths.flatMap((p) => p.steps.map((s) => String(s.state.value))));
    expect([...seen].sort()).toEqual(['abandoned', 'active', 'merged', 'unborn']);
  });

  for (const path of paths.slice(0, 40)) {
    it(path.description, async () => {
      const sut = createActor(branchMachine(), { input: { name: 'exp', parent: 'main' } });
      const out: BranchEmitted[] = [];
      sut.on('*', (e) => out.push(e));
      sut.start();
      const accepted = () => out.filter((e) => e.type !== 'gcc.rejected').map((e) => e.type);
      const { states } = counted({
        '#branch.unborn': () => expect(accepted()).toEqual([]),
        '#branch.active': () => expect(accepted()[0]).toBe('branch.created'),
        '#branch.merged': () => expect(accepted().filter((t) => t === 'branch.merged')).toHaveLength(1),
        '#branch.abandoned': () => expect(accepted().filter((t) => t === 'branch.abandoned')).toHaveLength(1),
      });
      await path.test({
        states,
        events: Object.fromEntries(
          ['branch.created', 'commit.recorded', 'branch.merged', 'branch.abandoned'].map((t) => [
            t,
            ({ event }: { event: { type: string } }) => sut.send(event as BranchMachineEvent),
          ]),
        ),
      });
    });
  }
});

describe('branch lifecycle: what the machine accepts and refuses', () => {
  it('emits the very event it accepts: that is what gets appended', () => {
    const step = branchStep('unborn', { name: 'exp', parent: 'main' }, events[0]!);
    expect(step.accepted).toEqual([{ type: events[0]!.type, data: events[0]!.data }]);
    expect(step.life).toBe('active');
  });

  it('refuses with a code: closed branches, merging into itself, main as a source, duplicates', () => {
    expect(branchStep('merged', { name: 'exp', parent: 'main' }, commit()).rejected?.code).toBe('E_BRANCH_CLOSED');
    expect(branchStep('abandoned', { name: 'exp', parent: 'main' }, events[2]!).rejected?.code).toBe('E_BRANCH_CLOSED');
    expect(branchStep('active', { name: 'exp', parent: 'main' }, events[3]!).rejected?.code).toBe('E_MERGE_SELF');
    expect(
      branchStep(
        'active',
        { name: 'main', parent: null },
        { type: 'branch.merged', data: { branch: 'main', into: 'x', commit: 'abcdef1' } },
      ).rejected?.code,
    ).toBe('E_MERGE_MAIN');
    expect(
      branchStep(
        'active',
        { name: 'main', parent: null },
        { type: 'branch.abandoned', data: { branch: 'main', reason: 'r' } },
      ).rejected?.code,
    ).toBe('E_ABANDON_MAIN');
    expect(branchStep('active', { name: 'exp', parent: 'main' }, events[0]!).rejected?.code).toBe('E_BRANCH_EXISTS');
    expect(branchStep('unborn', { name: 'exp', parent: 'main' }, commit()).rejected?.code).toBe('E_BRANCH_NOT_FOUND');
  });

  it('a refused move leaves the state as it was; the pure step agrees with an actor on any sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...events), { maxLength: 12 }), (seq) => {
        const actor = createActor(branchMachine(), { input: { name: 'exp', parent: 'main' } });
        actor.start();
        let life = 'unborn' as Parameters<typeof branchStep>[0];
        for (const e of seq) {
          const before = life;
          const step = branchStep(life, { name: 'exp', parent: 'main' }, e);
          actor.send(e);
          if (step.rejected) expect(step.life).toBe(before);
          life = step.life;
          expect(life).toBe(actor.getSnapshot().value);
        }
        actor.stop();
      }),
      { numRuns: 300 },
    );
  });
});

describe('branchStep keeps what the machine decided, and only where nothing else can matter', () => {
  it('gives what the machine gives, first and every later time, for every state and event', async () => {
    const { transition } = await import('xstate');
    const { branchMachine, BRANCH_LIFECYCLES } = await import('../../src/machines/branch-machine.js');
    const { branchStep } = await import('../../src/machines/steps.js');
    const { emittedBy } = await import('../../src/machines/steps.js');
    const events = [
      { type: 'branch.created', data: { name: 'x', parent: 'main', purpose: 'p', hypotheses: [] } },
      {
        type: 'commit.recorded',
        data: { id: 'abcdef1', label: 'C001', title: 't', contribution: 'c', purpose: 'p', previous: '', files: [] },
      },
      { type: 'branch.merged', data: { branch: 'x', into: 'main' } },
      { type: 'branch.abandoned', data: { branch: 'x', reason: 'r' } },
    ] as const;
    for (const context of [
      { name: 'x', parent: 'main' },
      { name: 'main', parent: null },
    ]) {
      for (const life of BRANCH_LIFECYCLES) {
        for (const event of events) {
          const [next, actions] = transition(
            branchMachine(),
            branchMachine().resolveState({ value: life, context }),
            event as never,
          );
          const out = emittedBy<{ type: string }>(actions);
          for (let i = 0; i < 2; i++) {
            const step = branchStep(life, context, event as never);
            expect(step.life).toBe(next.value);
            expect([...step.accepted, ...(step.rejected ? [step.rejected] : [])]).toEqual(out);
          }
        }
      }
    }
  });
});
