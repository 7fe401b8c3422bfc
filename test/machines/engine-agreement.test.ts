/**
 * The machine's view equals the store's replayed view: events decided by decideBranchOp,
 * folded by the engine's own projection (src/projections/evolve.ts), give the same branch
 * statuses, parents and current branch as the machines' replayBranch and as the incremental
 * world. A drift between the two sides of the event model fails here.
 *
 * Mutation check done by hand (not committed), caught: Pointers moving sessions off an
 * abandoned branch to main instead of its parent (decideBranchOp then emits a redundant
 * 'branch.switched', which the assertion on implied switches rejects).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currentBranch } from '../../src/decider/decide.js';
import type { GccEvent } from '../../src/events/types.js';
import { branchView, decideBranchOp, initialBranchWorld, replayBranch, type BranchOp, type BranchWorld, type CommitData } from '../../src/machines/branch.js';
import { replay } from '../../src/projections/evolve.js';

let n = 0;
const commit = (): CommitData => ({ id: `h${++n}`, label: 'C001', title: 't', contribution: 'c', purpose: 'p', previous: '', files: [] });
const name = fc.constantFrom('main', 'a', 'b', 'c');
const arbOp: fc.Arbitrary<BranchOp> = fc.oneof(
  name.map((x) => ({ type: 'create' as const, name: x, purpose: `p ${x}` })),
  name.map((to) => ({ type: 'switch' as const, to })),
  fc.constant(null).map(() => ({ type: 'commit' as const, commit: commit() })),
  fc.tuple(name, fc.option(name, { nil: undefined })).map(([b, into]) => ({ type: 'merge' as const, branch: b, commit: commit(), ...(into ? { into } : {}) })),
  name.map((b) => ({ type: 'abandon' as const, branch: b, reason: 'r' })),
);

describe('decideBranchOp agrees with the engine projection', () => {
  it('statuses, parents and the current branch match after any history (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 30 }), fc.constantFrom(undefined, 's1'), (plain, session) => {
        let world: BranchWorld = initialBranchWorld();
        const log: GccEvent[] = [];
        for (const p of plain) {
          const op = session === undefined || p.type === 'commit' ? p : { ...p, session };
          const r = decideBranchOp(world, op);
          if (!r.ok) continue;
          // Switches the projection implies are never repeated: only an explicit switch, or a
          // sessionless merge run from a third branch, may carry one.
          const third = op.type === 'merge' && !('session' in op) && world.current !== op.branch && world.current !== r.next.current;
          if (op.type !== 'switch' && !third) expect(r.emitted.map((e) => e.type)).not.toContain('branch.switched');
          for (const e of r.emitted) {
            // A commit lives in the log of the branch it lands on: the merge target, or the current branch.
            const branch = e.type === 'commit.recorded' ? (op.type === 'merge' ? r.next.current : world.current) : world.current;
            log.push({ ...e, id: `e${log.length}`, seq: log.length + 1, at: '2025-01-01T00:00:00.000Z', branch } as GccEvent);
          }
          const s = decideBranchOp(r.next, { type: 'settle' });
          if (!s.ok) throw s.error;
          world = s.next;
        }
        const engine = replay(log);
        const machines = branchView(replayBranch(log, session === undefined ? {} : { session }));
        expect(currentBranch(engine, session)).toBe(world.current);
        expect(machines.current).toBe(world.current);
        const engineBranches = Object.fromEntries(Object.values(engine.branches).map((b) => [b.name, `${b.status} <- ${b.parent}`]));
        const machineBranches = Object.fromEntries(Object.entries(machines.branches).map(([k, b]) => [k, `${b.status} <- ${b.parent}`]));
        expect(machineBranches).toEqual(engineBranches);
      }),
      { numRuns: 200 },
    );
  });
});
