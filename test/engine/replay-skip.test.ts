/**
 * `gctx replay` over views that are current writes none of them again, and still puts back
 * every view that differs — a commit.md past the size kept in memory, one of a closed branch,
 * a log.md — byte for byte as the incremental path wrote it.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

/** Every view under .GCC/ (the logs and .local/ left out): path → [inode, text]. */
function views(gcc: string): Map<string, [number, string]> {
  const out = new Map<string, [number, string]>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'events' && e.name !== '.local') walk(p);
      } else if (/\.(md|yaml)$/.test(e.name)) out.set(relative(gcc, p), [statSync(p).ino, readFileSync(p, 'utf8')]);
    }
  };
  walk(gcc);
  return out;
}

describe('replay over current views', () => {
  it('writes no view that is already right, and rewrites those that are not', async () => {
    const dir = tempProject('gcc-replay-skip-');
    const m = await Memory.open(dir, { create: true });
    const long = 'x'.repeat(600);
    await m.execute({ type: 'branch', name: 'done', purpose: 'closed before the replay' });
    for (let i = 0; i < 3; i++) await m.execute({ type: 'commit', contribution: `done ${i} ${long}` });
    await m.execute({ type: 'merge', branch: 'done', synthesis: 'kept' });
    // main's commit.md grows past what a rebuild keeps in memory.
    for (let i = 0; i < 140; i++) await m.execute({ type: 'commit', contribution: `main ${i} ${long}` });
    await m.execute({ type: 'branch', name: 'open', purpose: 'still open' });
    await m.execute({ type: 'commit', contribution: `open ${long}` });
    const gcc = join(dir, '.GCC');
    expect(statSync(join(gcc, 'commit.md')).size).toBeGreaterThan(65_536);
    const before = views(gcc);
    await m.replay();
    const after = views(gcc);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [p, [ino, text]] of after) {
      expect(text, p).toBe(before.get(p)![1]);
      // main's commit.md is large enough to go through a temporary file; every other view is left as it was.
      if (p !== 'commit.md') expect(ino, `${p} not written again`).toBe(before.get(p)![0]);
    }
    for (const p of ['branches/done/commit.md', 'branches/done/log.md', 'branches/open/commit.md', 'commit.md'])
      writeFileSync(join(gcc, p), 'damaged\n');
    await m.replay();
    for (const [p, [, text]] of views(gcc)) expect(text, p).toBe(before.get(p)![1]);
    expect(m.verify()).toEqual([]);
    m.close();
  });
});
