/**
 * Files touched when git moved HEAD between two memory commits: what a pull, a rebase or a
 * merge brought, and what another git worktree did, are not this clone's work; what it changed
 * and what it committed to git since is. Real git, the real CLI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempProject } from '../support/tmp.js';
import { Sandbox } from './git/support.js';

afterAll(cleanup);

function files(s: Sandbox, dir: string, label: string): string {
  const got = /Files touched\*\*: (.*)/.exec(s.ok(dir, 'context', '--commit', label))?.[1] ?? '';
  return got === '(none recorded)' ? '' : got;
}

function changed(s: Sandbox, dir: string): string {
  return /Changed in the work tree since the last memory commit \(git\): (.*)\./.exec(s.ok(dir, 'status'))?.[1] ?? '';
}

/** Alice and Bob share an origin; Alice committed memory and code; Bob pushed two files since. */
function teammates(): { s: Sandbox; alice: string; bob: string } {
  const s = new Sandbox(tempProject());
  const origin = s.origin();
  const alice = s.clone(origin, 'alice');
  const bob = s.clone(origin, 'bob');
  writeFileSync(join(alice, 'shared.txt'), 'alice\n');
  s.ok(alice, 'commit', 'shared file');
  s.commitAll(alice, 'alice: shared');
  s.git(alice, 'push', '-q', 'origin', 'main');
  s.git(bob, 'pull', '-q', '--no-rebase');
  writeFileSync(join(bob, 'other.txt'), 'bob\n');
  writeFileSync(join(bob, 'shared.txt'), 'alice\nbob\n');
  s.commitAll(bob, 'bob: other, shared');
  s.git(bob, 'push', '-q', 'origin', 'main');
  return { s, alice, bob };
}

describe('files touched when git moved HEAD', () => {
  it("a pull (merge) brings a teammate's files, which are not counted; what was edited or committed here is", () => {
    const { s, alice } = teammates();
    writeFileSync(join(alice, 'mine.txt'), 'm\n');
    s.git(alice, 'add', 'mine.txt');
    s.git(alice, 'commit', '-qm', 'alice: mine');
    s.git(alice, 'pull', '-q', '--no-rebase', '--no-edit');
    writeFileSync(join(alice, 'wip.txt'), 'w\n');
    expect(changed(s, alice)).toBe('mine.txt (+1 -0), wip.txt (+1 -0)');
    s.ok(alice, 'commit', 'after the pull');
    expect(files(s, alice, 'C002')).toBe('mine.txt (+1 -0), wip.txt (+1 -0)');
    // A file the teammate changed counts once it is edited here.
    writeFileSync(join(alice, 'shared.txt'), 'alice\nbob\nalice again\n');
    expect(changed(s, alice)).toBe('shared.txt (+1 -0)');
  });

  it("a pull --rebase, and a rebase stopped on a conflict, count only this clone's own work", () => {
    const { s, alice } = teammates();
    writeFileSync(join(alice, 'shared.txt'), 'alice\nconflicting\n');
    s.git(alice, 'commit', '-qam', 'alice: conflicting');
    writeFileSync(join(alice, 'late.txt'), 'l\n');
    s.git(alice, 'add', 'late.txt');
    s.git(alice, 'commit', '-qm', 'alice: late');
    expect(s.tryGit(alice, 'pull', '-q', '--rebase').status).not.toBe(0); // stopped on shared.txt
    // Mid-rebase the work tree has Bob's files and lacks late.txt: none of that is recorded.
    expect(s.gctx(alice, 'status').stdout).not.toMatch(/Changed in the work tree/);
    s.ok(alice, 'commit', 'mid-rebase');
    expect(files(s, alice, 'C002')).toBe('');
    writeFileSync(join(alice, 'shared.txt'), 'alice\nbob\nconflicting\n');
    s.git(alice, 'add', 'shared.txt');
    s.git(alice, '-c', 'core.editor=true', 'rebase', '--continue');
    writeFileSync(join(alice, 'after.txt'), 'a\n');
    s.ok(alice, 'commit', 'after the rebase');
    // Alice's commits since her last memory commit are hers; Bob's other.txt is not.
    expect(files(s, alice, 'C003')).toBe('after.txt (+1 -0), late.txt (+1 -0), shared.txt (+2 -0)');
  });

  it('a git merge under way does not record the files it brings', () => {
    const { s, alice } = teammates();
    s.git(alice, 'fetch', '-q');
    s.git(alice, 'merge', '--no-commit', '--no-ff', 'origin/main');
    writeFileSync(join(alice, 'note.txt'), 'n\n');
    s.ok(alice, 'commit', 'mid-merge');
    expect(files(s, alice, 'C002')).toBe('');
    s.git(alice, 'commit', '-qm', 'merge');
    s.ok(alice, 'commit', 'after the merge');
    expect(files(s, alice, 'C003')).toBe('note.txt (+1 -0)');
  });

  it('a switch to another git branch does not count its files', () => {
    const { s, alice } = teammates();
    s.git(alice, 'fetch', '-q');
    s.git(alice, 'switch', '-q', '-c', 'theirs', 'origin/main');
    writeFileSync(join(alice, 'mine.txt'), 'm\n');
    s.ok(alice, 'commit', 'on their branch');
    expect(files(s, alice, 'C002')).toBe('mine.txt (+1 -0)');
  });

  it('each git worktree counts from its own last memory commit', () => {
    const s = new Sandbox(tempProject());
    const wt = join(s.root, 'wt');
    const wt2 = join(s.root, 'wt2');
    s.git(s.root, 'init', '-q', '-b', 'main', wt);
    s.identity(wt, 'a');
    writeFileSync(join(wt, 'a.txt'), 'a\n');
    s.ok(wt, 'init');
    s.commitAll(wt, 'i');
    s.git(wt, 'worktree', 'add', '-q', wt2, '-b', 'second');
    writeFileSync(join(wt, 'only-in-wt1.txt'), 'one\n');
    s.ok(wt, 'commit', 'wt1 adds file');
    writeFileSync(join(wt2, 'only-in-wt2.txt'), 'two\n');
    s.ok(wt2, 'commit', 'wt2 adds its own file');
    expect(files(s, wt2, 'C001')).toBe('only-in-wt2.txt (+1 -0)');
    expect(files(s, wt, 'C001')).toBe('only-in-wt1.txt (+1 -0)');
    writeFileSync(join(wt, 'only-in-wt1.txt'), 'one\nmore\n');
    s.ok(wt, 'commit', 'wt1 again');
    expect(files(s, wt, 'C002')).toBe('only-in-wt1.txt (+1 -0)');
  });

  it('a project in a sub-folder of the repository counts its own files', () => {
    const s = new Sandbox(tempProject());
    const top = join(s.root, 'repo');
    const proj = join(top, 'proj');
    s.git(s.root, 'init', '-q', '-b', 'main', top);
    s.identity(top, 'a');
    mkdirSync(join(proj, 'src'), { recursive: true });
    writeFileSync(join(top, 'outside.txt'), 'o\n');
    s.ok(proj, 'init');
    s.ok(proj, 'commit', 'start');
    writeFileSync(join(proj, 'src', 'x.ts'), 'x\n');
    writeFileSync(join(top, 'outside.txt'), 'o\n2\n');
    s.ok(proj, 'commit', 'x');
    expect(files(s, proj, 'C002')).toBe('src/x.ts (+1 -0)');
  });
});
