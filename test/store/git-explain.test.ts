/**
 * What gctx says when a stash took a segment: the command it suggests names the part of the
 * stash that holds it, and works when followed. Real git, the real CLI.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { git } from '../support/project.js';

afterAll(cleanup);

function repo(): string {
  const dir = tempProject();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@example.invalid');
  git(dir, 'config', 'user.name', 'T');
  expect(gctx(dir, ['init']).code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'memory');
  expect(gctx(dir, ['commit', 'a milestone']).code).toBe(0);
  return dir;
}

describe('a segment a stash took', () => {
  it('`git stash` (no -u) of a staged new segment: pop first, or the one command that brings it back', () => {
    const dir = repo();
    git(dir, 'add', '-A');
    git(dir, 'stash', '-q');
    // This clone's own segment: read from its journal meanwhile.
    expect(gctx(dir, ['status']).code).toBe(0);
    expect(gctx(dir, ['context', '--branch']).stdout).toMatch(/a milestone/);
    // Another clone's (no journal copy): the command that brings it back.
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    const m = /`git stash pop` \(or only it: `git checkout (stash@\{0\}) -- (\S+)`\)/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    git(dir, 'checkout', m![1]!, '--', m![2]!);
    expect(gctx(dir, ['status']).code).toBe(0);
    expect(gctx(dir, ['context', '--branch']).stdout).toMatch(/a milestone/);
  });

  it('`git stash -u` of an untracked segment: its untracked part', () => {
    const dir = repo();
    git(dir, 'stash', '-q', '-u');
    expect(gctx(dir, ['status']).code).toBe(0);
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    const m = /`git checkout (stash@\{0\}\^3) -- (\S+)`/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    git(dir, 'checkout', m![1]!, '--', m![2]!);
    expect(gctx(dir, ['status']).code).toBe(0);
  });
});
