/**
 * A top-level view deleted by hand is written again at the next open, byte for byte as before;
 * the branches' folder deleted under a running process is made again by its next replay.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

describe('a deleted view', () => {
  it.each(['commit.md', 'metadata.yaml', 'main.md', 'log.md'])('%s is rebuilt by the next open', async (view) => {
    const dir = tempProject();
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', title: 'first milestone', contribution: 'the parser reads entries' });
    m.close();
    const path = join(dir, '.GCC', view);
    const before = readFileSync(path, 'utf8');
    rmSync(path);
    const again = await Memory.open(dir);
    try {
      expect(existsSync(path)).toBe(true);
      expect(readFileSync(path, 'utf8')).toBe(before);
      expect(again.verify()).toEqual([]);
    } finally {
      again.close();
    }
  });

  it('the branches folder removed under a running process comes back with its replay', async () => {
    const dir = tempProject();
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'branch', name: 'feat', purpose: 'try a cache' });
    await m.execute({ type: 'commit', contribution: 'the cache holds entries' });
    await m.replay();
    const summary = join(dir, '.GCC', 'branches', 'feat', 'summary.md');
    const before = readFileSync(summary, 'utf8');
    rmSync(join(dir, '.GCC', 'branches'), { recursive: true });
    await m.replay();
    expect(readFileSync(summary, 'utf8')).toBe(before);
    expect(m.verify()).toEqual([]);
    m.close();
  });
});
