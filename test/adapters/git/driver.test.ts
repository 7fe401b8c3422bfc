/**
 * The merge driver fails safe, and install is idempotent and polite to existing hooks.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GITATTRIBUTES } from '../../../src/adapters/git/attributes.js';
import { shellQuote } from '../../../src/adapters/git/git.js';
import { installGit } from '../../../src/adapters/git/install.js';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { CLI, conflictMarkers, Sandbox, staleProjections } from './support.js';

afterAll(cleanup);

async function repo(box: Sandbox, name: string): Promise<string> {
  const dir = join(box.root, name);
  box.git(box.root, 'init', '-q', '-b', 'main', dir);
  box.identity(dir, name);
  (await Memory.open(dir, { create: true })).close();
  return dir;
}

describe('git merge driver', () => {
  it('a side it cannot vouch for gives a plain conflict over our intact log, never markers', async () => {
    const box = new Sandbox(tempProject('gcc-driver-'));
    const dir = await repo(box, 'r');
    installGit(dir, `${shellQuote(process.execPath)} ${shellQuote(CLI)}`);
    box.git(dir, 'add', '-A');
    box.git(dir, 'commit', '-qm', 'init');
    box.git(dir, 'checkout', '-qb', 'other');
    const log = join(dir, '.GCC', 'log.md');
    // Their side: an entry edited by hand, so its checksum no longer matches.
    writeFileSync(log, readFileSync(log, 'utf8').replace('Memory initialized', 'Memory initialised'));
    box.git(dir, 'commit', '-qam', 'damaged');
    box.git(dir, 'checkout', '-q', 'main');
    const m = await Memory.open(dir);
    await m.execute({ type: 'roadmap', action: 'add', target: 'ours' });
    m.close();
    box.git(dir, 'add', '-A');
    box.git(dir, 'commit', '-qm', 'ours');
    const ours = readFileSync(log, 'utf8');

    const merge = box.tryGit(dir, 'merge', '--no-edit', 'other');
    expect(merge.status).not.toBe(0);
    expect(merge.out).toMatch(/CONFLICT \(content\): Merge conflict in \.GCC\/log\.md/);
    expect(merge.out).toMatch(/integrity check/);
    expect(box.git(dir, 'ls-files', '--unmerged', '--', '.GCC/log.md')).not.toBe('');
    expect(readFileSync(log, 'utf8')).toBe(ours);
    expect(conflictMarkers(dir)).toEqual([]);
  });
});

describe('gctx git install', () => {
  it('is idempotent, extends an existing shell hook, and leaves other hooks alone', async () => {
    const box = new Sandbox(tempProject('gcc-install-'));
    const dir = await repo(box, 'r');
    const hooks = join(dir, '.git', 'hooks');
    mkdirSync(hooks, { recursive: true });
    writeFileSync(join(hooks, 'post-merge'), '#!/bin/sh\necho team hook\n');
    writeFileSync(join(hooks, 'post-rewrite'), '#!/usr/bin/env python3\nprint("hi")\n');

    const first = installGit(dir, 'gctx-cmd');
    expect(first.attributesWritten).toBe(true);
    expect(readFileSync(join(dir, '.GCC', '.gitattributes'), 'utf8')).toBe(GITATTRIBUTES);
    expect(Object.fromEntries(first.hooks.map((h) => [h.hook, h.action]))).toEqual({ 'post-merge': 'updated', 'post-checkout': 'created', 'post-rewrite': 'skipped' });
    const merged = readFileSync(join(hooks, 'post-merge'), 'utf8');
    expect(merged).toMatch(/^#!\/bin\/sh\necho team hook\n# >>> gctx \.\n/);
    expect(merged).toContain("gctx-cmd git sync --dir '.' >/dev/null || true");
    expect(box.git(dir, 'config', 'merge.gcc-log.driver').trim()).toBe('gctx-cmd git merge-driver %O %A %B %P');
    expect(box.git(dir, 'check-attr', 'merge', 'text', '--', '.GCC/branches/x/log.md', '.GCC/main.md')).toBe(
      '.GCC/branches/x/log.md: merge: gcc-log\n.GCC/branches/x/log.md: text: unset\n.GCC/main.md: merge: gcc-projection\n.GCC/main.md: text: unset\n',
    );

    const again = installGit(dir, 'gctx-cmd');
    expect(again.attributesWritten).toBe(false);
    expect(again.hooks.map((h) => h.action)).toEqual(['unchanged', 'unchanged', 'skipped']);
    expect(readFileSync(join(hooks, 'post-merge'), 'utf8')).toBe(merged);
    // A moved package: the block is rewritten in place, not added twice.
    installGit(dir, 'gctx-moved');
    const moved = readFileSync(join(hooks, 'post-merge'), 'utf8');
    expect(moved.match(/# >>> gctx/g)).toHaveLength(1);
    expect(moved).toContain('gctx-moved git sync');
    expect(existsSync(join(hooks, 'post-checkout'))).toBe(true);
  });

  it('leaves a hook manager\'s folder (core.hooksPath in the working tree) alone, and refuses a folder without memory', async () => {
    const box = new Sandbox(tempProject('gcc-install-'));
    const dir = await repo(box, 'r');
    box.git(dir, 'config', 'core.hooksPath', '.husky');
    const r = installGit(dir, 'gctx-cmd');
    expect(r.hooks.every((h) => h.action === 'skipped')).toBe(true);
    expect(existsSync(join(dir, '.husky'))).toBe(false);
    const bare = join(box.root, 'plain');
    box.git(box.root, 'init', '-q', bare);
    expect(() => installGit(bare, 'gctx-cmd')).toThrow(/no memory/);
  });
});

describe('a fresh clone', () => {
  it('of a commit whose projections lag its logs (a merge commit): install rebuilds them quietly', async () => {
    const box = new Sandbox(tempProject('gcc-clone-'));
    const dir = await repo(box, 'r');
    box.git(dir, 'add', '-A');
    box.git(dir, 'commit', '-qm', 'init');
    const m = await Memory.open(dir);
    await m.execute({ type: 'roadmap', action: 'add', target: 'from the other side' });
    m.close();
    box.git(dir, 'checkout', '-q', 'HEAD', '--', '.GCC/main.md'); // main.md of before the event
    box.git(dir, 'add', '-A');
    box.git(dir, 'commit', '-qm', 'logs ahead of main.md');
    const clone = box.clone(dir, 'clone');
    expect(staleProjections(clone)).toEqual(['.GCC/main.md']);
    const r = box.gctx(clone, 'git', 'install');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(staleProjections(clone)).toEqual([]);
    expect(existsSync(join(clone, '.GCC', 'aside'))).toBe(false);
  });
});
