/** Views of branches no longer in memory: found, removed with their emptied folders, never through a link. */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initialState, newBranch } from '../../src/decider/state.js';
import { branchViews, removeGoneViews } from '../../src/engine/branch-views.js';
import { layout } from '../../src/store/paths.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

function put(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'x\n');
}

describe('views of gone branches', () => {
  it('are removed with their emptied folders; a kept branch, nested under a gone one, and other files stay', () => {
    const l = layout(tempProject());
    for (const b of ['feat', 'feat/kept', 'gone/deep'])
      for (const f of ['commit.md', 'log.md']) put(join(l.gcc, 'branches', ...b.split('/'), f));
    put(join(l.gcc, 'branches', 'feat', 'notes.txt'));
    const state = initialState();
    state.branches['feat/kept'] = newBranch('feat/kept', 'main', '', '', []);
    expect(branchViews(l.gcc).map((v) => v.branch)).toEqual(expect.arrayContaining(['feat', 'feat/kept', 'gone/deep']));
    removeGoneViews(l, state);
    expect(existsSync(join(l.gcc, 'branches', 'gone'))).toBe(false);
    expect(existsSync(join(l.gcc, 'branches', 'feat', 'log.md'))).toBe(false);
    expect(existsSync(join(l.gcc, 'branches', 'feat', 'notes.txt'))).toBe(true);
    expect(existsSync(join(l.gcc, 'branches', 'feat', 'kept', 'log.md'))).toBe(true);
  });

  it('include the summary of a branch whose creation a revert took (a rebuild writes none for it)', () => {
    const l = layout(tempProject());
    for (const f of ['commit.md', 'log.md', 'summary.md']) put(join(l.gcc, 'branches', 'exp', f));
    const state = initialState();
    state.branches.exp = { ...newBranch('exp', 'main', '', '', []), life: 'unborn' };
    removeGoneViews(l, state);
    expect(existsSync(join(l.gcc, 'branches', 'exp', 'summary.md'))).toBe(false);
    expect(existsSync(join(l.gcc, 'branches', 'exp', 'log.md'))).toBe(true);
  });

  it('are never looked for through a link in place of .GCC/branches', () => {
    const outside = tempProject();
    put(join(outside, 'gone', 'log.md'));
    const l = layout(tempProject());
    mkdirSync(l.gcc, { recursive: true });
    symlinkSync(outside, join(l.gcc, 'branches'));
    expect(branchViews(l.gcc)).toEqual([]);
    removeGoneViews(l, initialState());
    expect(existsSync(join(outside, 'gone', 'log.md'))).toBe(true);
  });
});
