/**
 * A new branch's name: refused, as a command, wherever git would refuse it for a branch
 * (`git check-ref-format --branch`, asked of the real git here), with a valid name to use
 * instead; a name logs written before already hold still loads, switches and merges.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/decider/decide.js';
import { replay } from '../../src/decider/evolve.js';
import { currentBranch } from '../../src/decider/state.js';
import { branchNameLike, newBranchNameProblem } from '../../src/events/rules.js';
import { created, given, init } from '../support/given.js';

const ctx = { session: 's1', nonce: '0123456789abcdef' };

/** Names git refuses for a branch, one per rule of check-ref-format. */
const GIT_REFUSES = [
  'a..b',
  'x..',
  'a@{b',
  'x.lock',
  'feat/x.lock',
  '-x',
  '.x',
  'feat/.x',
  'x/',
  'x.',
  'a//b',
  'a\u0001b',
  'a\u007fb',
  'a b',
  'a~b',
  'a^b',
  'a:b',
  'a?b',
  'a*b',
  'a[b',
  'a\\b',
];

function gitAccepts(name: string): boolean {
  return spawnSync('git', ['check-ref-format', '--branch', name], { encoding: 'utf8' }).status === 0;
}

describe("a new branch's name", () => {
  it('is refused wherever git refuses it, with a fix naming a valid name', () => {
    const state = replay(given([init]));
    for (const name of GIT_REFUSES) {
      expect(gitAccepts(name), name).toBe(false);
      const d = decide(state, { type: 'branch', name, purpose: 'x' }, ctx);
      expect(d.ok, name).toBe(false);
      if (d.ok) continue;
      expect(d.error.code).toBe('E_BRANCH_NAME');
      const valid = /e\.g\. `gctx branch (\S+) --purpose "…"`$/.exec(d.error.fix ?? '')?.[1];
      expect(valid, name).toBeDefined();
      expect(newBranchNameProblem(valid), valid).toBeNull();
      expect(gitAccepts(valid!), valid).toBe(true);
    }
    const fix = (name: string) => {
      const d = decide(state, { type: 'branch', name, purpose: 'x' }, ctx);
      return d.ok ? '' : d.error.fix;
    };
    expect(fix('a..b')).toBe('pick a valid name, e.g. `gctx branch a-b --purpose "…"`');
    expect(fix('main')).toMatch(/`gctx branch main-2 /);
  });

  it('suggests a free name when the nearest valid one is taken', () => {
    const d = decide(replay(given([init, created('a-b')])), { type: 'branch', name: 'a..b', purpose: 'x' }, ctx);
    expect(!d.ok && d.error.fix).toMatch(/`gctx branch a-b-2 /);
  });

  it('accepts nothing git refuses, and suggests only names git accepts', () => {
    const chars = fc.constantFrom(...'ab./-_@{}~^:?*[\\ \u0001'.split(''));
    fc.assert(
      fc.property(
        fc.array(chars, { minLength: 1, maxLength: 8 }).map((c) => c.join('')),
        (name) => {
          if (newBranchNameProblem(name) === null) expect(gitAccepts(name), name).toBe(true);
          const like = branchNameLike(name);
          if (like !== null) expect(gitAccepts(like), like).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('held only by new branches: a name in logs written before loads, and is switched to and merged', () => {
    const state = replay(given([init, created('a..b')]));
    expect(state.branches['a..b']?.life).toBe('active');
    const sw = decide(state, { type: 'switch', name: 'a..b' }, ctx);
    expect(sw.ok).toBe(true);
    const on = replay(
      given([init, created('a..b'), { type: 'branch.switched', data: { to: 'a..b', session: 's1' }, branch: 'a..b' }]),
    );
    expect(currentBranch(on, 's1')).toBe('a..b');
    const merged = decide(state, { type: 'merge', branch: 'a..b', synthesis: 'done' }, ctx);
    expect(merged.ok).toBe(true);
  });
});
