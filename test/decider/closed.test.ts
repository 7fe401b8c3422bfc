/**
 * What the state keeps of a closed branch — every read holds the state, so what closed
 * branches keep is what makes it grow with the history — and how compactly, and the fold that
 * does not freeze.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evolve, evolveUnfrozen, replay } from '../../src/decider/evolve.js';
import type { Placed } from '../../src/events/types.js';
import { given, init, commit as milestone, created as opened, merged as mergedInto } from '../support/given.js';

const created = (name: string): Placed => opened(name, 'main', ['h']);
/** A milestone with its own id and a file, its contribution long enough to be cut short in a summary. */
const commit = (branch: string, label: string, extra: object = {}): Placed =>
  milestone(branch, label, {
    id: `c${label.slice(1)}${branch.length}`.padEnd(7, '0'),
    contribution: `did ${label} on ${branch}, at length`,
    files: [{ path: `src/${branch}.ts`, added: 1, removed: 0 }],
    ...extra,
  });
const merged = (branch: string): Placed[] => {
  const record = commit('main', 'C002', {
    contribution: 'merged',
    merge: { from: branch, tried: 't', learned: 'l', integrated: 'i' },
  });
  return [record, mergedInto(branch, 'main', (record.data as { id: string }).id)];
};

describe('a closed branch in the state', () => {
  it('keeps its commits’ labels, ids and titles, not their prose; an open branch keeps its own', () => {
    const s = replay(
      given([
        init,
        commit('main', 'C001'),
        created('x'),
        commit('x', 'C001', { next: 'then this' }),
        commit('x', 'C002'),
        created('y'),
        commit('y', 'C001'),
        ...merged('x'),
        { type: 'branch.abandoned', data: { branch: 'y', reason: 'no' }, branch: 'y' },
      ]),
    );
    for (const name of ['x', 'y']) {
      const b = s.branches[name]!;
      expect(b.life).not.toBe('active');
      expect(b.recent.length).toBeGreaterThan(0);
      for (const c of b.recent) {
        expect(c.gist).toBeUndefined();
        expect(c.title).toMatch(/^work C00/);
        expect(c.label).toMatch(/^C00/);
      }
      expect(b.last).toMatchObject({ contribution: '', files: [] });
    }
    const main = s.branches.main!;
    expect(main.recent.every((c) => typeof c.gist === 'string' && c.gist.length > 0)).toBe(true);
    expect(main.last?.contribution).toBe('merged');
  });

  it('keeps its records compact: no record of the state is held as a hash table, whichever way it was folded', () => {
    // V8 keeps an object a property was deleted from as a hash table, several times its size:
    // over thousands of closed branches, that was most of the state.
    const child = fileURLToPath(new URL('./state-shape.child.ts', import.meta.url));
    const out = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', child], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ replay: [], unfrozen: [], immer: [], closed: true });
  });

  it('does not hand its next step to the merge that closes it: the merge supersedes it', () => {
    // The branch's step was most often "merge it back": carried on, it outlived the merge that did it.
    const s = replay(
      given([
        init,
        commit('main', 'C001', { next: 'try x' }),
        created('x'),
        commit('x', 'C001', { next: 'merge x back' }),
        ...merged('x'),
      ]),
    );
    expect(s.branches.main!.last).toMatchObject({ label: 'C002', next: null });
    expect(s.branches.main!.last).not.toHaveProperty('nextFrom');
    // A merge that records a step of its own shows that one.
    const [record, close] = merged('x');
    const own = replay(
      given([
        init,
        created('x'),
        commit('x', 'C001', { next: 'merge x back' }),
        { ...record!, data: { ...(record!.data as object), next: 'measure it on main' } } as Placed,
        close!,
      ]),
    );
    expect(own.branches.main!.last).toMatchObject({ next: 'measure it on main' });
  });
});

describe('evolveUnfrozen', () => {
  it('folds as evolve does and leaves the earlier state as it was, without freezing', () => {
    const base = given([init, commit('main', 'C001'), created('x')]);
    const more = given([commit('x', 'C001'), ...merged('x')]);
    const before = structuredClone(replay(base));
    const start = structuredClone(before);
    const after = evolveUnfrozen(start, more);
    expect(after).toEqual(evolve(replay(base), more));
    expect(start).toEqual(before);
    expect(Object.isFrozen(after)).toBe(false);
  });
});
