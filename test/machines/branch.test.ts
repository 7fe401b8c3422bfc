import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  branchView, decideBranchOp, initialBranchWorld, replayBranch, worldFromView,
  type BranchOp, type BranchWorld, type CommitData,
} from '../../src/machines/branch.js';
import { GccError } from '../../src/errors.js';
import type { NewEvent } from '../../src/events/types.js';
import { refApply, refInitial, refView } from './branch-ref.js';

let n = 0;
const commit = (title = 'work'): CommitData => ({
  id: `h${++n}`, label: 'C001', title, contribution: 'c', purpose: 'p', previous: '', files: [],
});

function run(ops: BranchOp[], world: BranchWorld = initialBranchWorld()): { world: BranchWorld; events: NewEvent[]; codes: string[] } {
  const events: NewEvent[] = [];
  const codes: string[] = [];
  for (const op of ops) {
    const r = decideBranchOp(world, op);
    if (r.ok) { events.push(...r.emitted); world = r.next; codes.push('ok'); } else codes.push(r.error.code);
  }
  return { world, events, codes };
}

describe('decideBranchOp: the guards', () => {
  it('refuses each illegal move with its typed error', () => {
    const { codes } = run([
      { type: 'create', name: 'feat', purpose: 'try x' },
      { type: 'create', name: 'feat', purpose: 'again' },                      // E_BRANCH_EXISTS
      { type: 'commit', commit: commit() },
      { type: 'switch', to: 'main' },                                         // E_BUSY: commit in flight
      { type: 'merge', branch: 'feat', commit: commit() },                    // E_BUSY
      { type: 'settle' },
      { type: 'merge', branch: 'feat', into: 'feat', commit: commit() },      // E_MERGE_SELF
      { type: 'merge', branch: 'main', into: 'feat', commit: commit() },      // E_MERGE_MAIN
      { type: 'abandon', branch: 'main', reason: 'no' },                      // E_ABANDON_MAIN
      { type: 'switch', to: 'nope' },                                         // E_BRANCH_NOT_FOUND
      { type: 'merge', branch: 'feat', commit: commit() },
      { type: 'settle' },
      { type: 'switch', to: 'feat' },                                         // E_BRANCH_CLOSED
      { type: 'create', name: 'gone', purpose: 'dead end' },
      { type: 'abandon', branch: 'gone', reason: 'did not pan out' },
      { type: 'merge', branch: 'feat', into: 'gone', commit: commit() },      // E_BRANCH_CLOSED (source merged)
      { type: 'create', name: 'late', purpose: 'x' },
      { type: 'merge', branch: 'late', into: 'gone', commit: commit() },      // E_BRANCH_CLOSED (target abandoned)
    ]);
    expect(codes).toEqual([
      'ok', 'E_BRANCH_EXISTS', 'ok', 'E_BUSY', 'E_BUSY', 'ok', 'E_MERGE_SELF', 'E_MERGE_MAIN', 'E_ABANDON_MAIN',
      'E_BRANCH_NOT_FOUND', 'ok', 'ok', 'E_BRANCH_CLOSED', 'ok', 'ok', 'E_BRANCH_CLOSED', 'ok', 'E_BRANCH_CLOSED',
    ]);
  });

  it('errors are GccErrors whose message and fix say what to do', () => {
    const r = decideBranchOp(initialBranchWorld(), { type: 'abandon', branch: 'main', reason: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(GccError);
    expect(r.error.fix).toMatch(/abandon a branch/);
  });

  it('a commit on a branch merged by another session is refused', () => {
    const world = worldFromView({ current: 'feat', branches: { feat: { status: 'merged', parent: 'main' } } });
    const r = decideBranchOp(world, { type: 'commit', commit: commit() });
    expect(r.ok ? 'ok' : r.error.code).toBe('E_BRANCH_CLOSED');
  });

  it('merge emits the synthesis commit, then the merge; the switch back is implied', () => {
    const { events, world } = run([
      { type: 'create', name: 'feat', purpose: 'p', session: 's1' },
      { type: 'merge', branch: 'feat', commit: commit('synth'), session: 's1' },
    ]);
    expect(events.map((e) => e.type)).toEqual(['branch.created', 'commit.recorded', 'branch.merged']);
    expect(events[2]).toEqual({ type: 'branch.merged', data: { branch: 'feat', into: 'main', commit: `h${n}`, session: 's1' } });
    expect(branchView(world).current).toBe('main');
  });

  it('abandoning the current branch falls back to its parent (implied, no switch event)', () => {
    const { world, events } = run([
      { type: 'create', name: 'a', purpose: 'p' },
      { type: 'create', name: 'b', purpose: 'p' },
      { type: 'abandon', branch: 'b', reason: 'dead end' },
    ]);
    expect(world.current).toBe('a');
    expect(events.at(-1)).toEqual({ type: 'branch.abandoned', data: { branch: 'b', reason: 'dead end' } });
    expect(branchView(replayBranch(events)).current).toBe('a');
  });

  it('a view round-trips through worldFromView', () => {
    const { world } = run([{ type: 'create', name: 'a', purpose: 'p' }, { type: 'commit', commit: commit() }]);
    expect(branchView(worldFromView(branchView(world)))).toEqual(branchView(world));
  });
});

// Names include one that never exists, so E_BRANCH_NOT_FOUND is reachable.
const name = fc.constantFrom('main', 'a', 'b', 'c', 'ghost');
const arbOp: fc.Arbitrary<BranchOp> = fc.oneof(
  name.map((n) => ({ type: 'create' as const, name: n, purpose: `p ${n}` })),
  name.map((to) => ({ type: 'switch' as const, to })),
  fc.constant(null).map(() => ({ type: 'commit' as const, commit: commit() })),
  fc.tuple(name, fc.option(name, { nil: undefined })).map(([b, into]) =>
    into === undefined ? { type: 'merge' as const, branch: b, commit: commit() } : { type: 'merge' as const, branch: b, into, commit: commit() }),
  name.map((b) => ({ type: 'abandon' as const, branch: b, reason: 'r' })),
  fc.constant({ type: 'settle' as const }),
);

describe('decideBranchOp against a reference model (fast-check)', () => {
  it('every op succeeds or fails exactly as the model says; replay of the emitted events equals the incremental state', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 40 }), fc.constantFrom(undefined, 's1'), (plain, session) => {
        // One acting session (or none) for the whole run: the world's current is that session's.
        const ops = plain.map((op): BranchOp => (session === undefined || op.type === 'settle' || op.type === 'commit' ? op : { ...op, session }));
        const model = refInitial();
        let world = initialBranchWorld();
        const log: NewEvent[] = [];
        for (const op of ops) {
          const want = refApply(model, op);
          const got = decideBranchOp(world, op);
          if (!want.ok) {
            expect(got.ok ? 'ok' : got.error.code).toBe(want.code);
            continue;
          }
          if (!got.ok) throw new Error(`expected ok for ${JSON.stringify(op)}, got ${got.error.oneLine()}`);
          expect(got.emitted.map((e) => e.type)).toEqual(want.types);
          world = got.next;
          log.push(...got.emitted);
          expect(branchView(world)).toEqual(refView(model));
        }
        // Replay folds settled history: settle first, as the store would after acknowledging.
        const settled = decideBranchOp(world, { type: 'settle' });
        if (!settled.ok) throw settled.error;
        expect(branchView(replayBranch(log, session === undefined ? {} : { session }))).toEqual(branchView(settled.next));
      }),
      { numRuns: 200 },
    );
  });
});
