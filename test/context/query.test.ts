/**
 * Finding one commit (src/context/query.ts findCommit): by label, display label or hash prefix —
 * and a bare word that reads as both (`c200` is a label and a hash) is whichever names a commit,
 * with errors that list what could be meant, each in a form that names one.
 */
import { describe, expect, it } from 'vitest';
import { type ContextSource, findCommit } from '../../src/context/query.js';
import { replay } from '../../src/decider/evolve.js';
import type { Placed } from '../../src/events/types.js';
import { GccError } from '../../src/errors.js';
import { created, given, init, commit as milestone } from '../support/given.js';

const commit = (branch: string, label: string, id: string): Placed =>
  milestone(branch, label, { id, title: `work ${label} ${id}`, contribution: 'did it' });

/** A source over events held in memory: the fold's state, and the events read back newest first. */
function source(placed: Placed[]): ContextSource {
  const events = given([init, ...placed]);
  return {
    state: replay(events),
    newest: () => [],
    scan: (q, visit) => {
      for (const e of [...events].reverse()) if ((!q.branch || e.branch === q.branch) && !visit(e)) return;
    },
    search: () => {
      throw new Error('not used');
    },
  };
}

const id = (src: ContextSource, ref: string) => findCommit(src, ref).data.id;
function error(src: ContextSource, ref: string): GccError {
  try {
    findCommit(src, ref);
  } catch (e) {
    if (e instanceof GccError) return e;
    throw e;
  }
  throw new Error(`${ref} was found`);
}

describe('findCommit', () => {
  it('a hash that reads as a label is found by its hash when no commit carries the label', () => {
    const src = source([
      commit('main', 'C001', 'c200abc'),
      commit('main', 'C002', 'c2014ff'),
      commit('main', 'C003', '1234567'),
    ]);
    expect(id(src, 'c200')).toBe('c200abc');
    expect(id(src, 'C200')).toBe('c200abc');
    expect(id(src, 'c200ab')).toBe('c200abc');
    expect(id(src, 'c2014')).toBe('c2014ff');
    expect(id(src, '1234')).toBe('1234567');
    // Labels as before.
    expect(id(src, 'C002')).toBe('c2014ff');
    expect(id(src, 'main@C003')).toBe('1234567');
  });

  it('a label a commit carries comes first; the hash is the way to the other', () => {
    const src = source([commit('main', 'C001', 'aaaaaaa'), commit('main', 'C002', 'c001bbb')]);
    expect(id(src, 'c001')).toBe('aaaaaaa');
    expect(id(src, 'c001b')).toBe('c001bbb');
  });

  it('a qualified label or a label with its hash is never read as a hash', () => {
    const src = source([commit('main', 'C001', 'c200abc')]);
    expect(error(src, 'main@c200').code).toBe('E_COMMIT_NOT_FOUND');
    expect(error(src, 'C200.c200abc').code).toBe('E_COMMIT_NOT_FOUND');
  });

  it('several commits a hash prefix starts: each listed, with its branch and label', () => {
    const src = source([commit('main', 'C001', 'c300aaa'), created('x'), commit('x', 'C001', 'c300bbb')]);
    const e = error(src, 'c300');
    expect(e.code).toBe('E_COMMIT_NOT_FOUND');
    expect(e.message).toMatch(
      /c300 starts the hash of several commits: c300bbb \(x@C001 "[^"]*"\), c300aaa \(main@C001 "[^"]*"\)/,
    );
    expect(e.fix).toBe('give more characters of the hash (c300bbb or c300aaa)');
    expect(id(src, 'c300a')).toBe('c300aaa');
  });

  it('a label on several other branches that also starts a hash: every reading is offered', () => {
    const src = source([
      created('x'),
      commit('x', 'C001', '0000001'),
      created('y'),
      commit('y', 'C001', '0000002'),
      commit('main', 'C001', 'c002fff'),
    ]);
    // C002 is on no branch: the hash it starts names one commit.
    expect(id(src, 'c002')).toBe('c002fff');
    const both = source([
      created('x'),
      commit('x', 'C001', '0000001'),
      commit('x', 'C002', '0000003'),
      created('y'),
      commit('y', 'C001', '0000002'),
      commit('y', 'C002', '0000004'),
      commit('main', 'C001', 'c002fff'),
    ]);
    const e = error(both, 'c002');
    expect(e.message).toMatch(
      /C002 is not on main and names commits on several branches \(y, x\); it also starts the hash of c002fff \(main@C001 /,
    );
    expect(e.fix).toMatch(/name the branch: y@C002 or x@C002, or use the hash/);
  });

  it('nothing by that name: the fix says what is taken', () => {
    const e = error(source([commit('main', 'C001', 'abcdef1')]), 'C999');
    expect(e.code).toBe('E_COMMIT_NOT_FOUND');
    expect(e.fix).toMatch(/hash \(4 characters or more\)/);
  });
});
