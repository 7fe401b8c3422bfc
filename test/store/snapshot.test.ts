/**
 * The snapshot is a cache: an open that trusts it must end in the same state as reading
 * every log, and any snapshot that does not match the logs must be ignored.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { replay } from '../../src/projections/evolve.js';
import { cleanup, tempProject } from '../support/tmp.js';

async function build() {
  const dir = tempProject();
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'goal' });
  await m.execute({ type: 'branch', name: 'exp', purpose: 'p' });
  for (let i = 0; i < 5; i++) await m.execute({ type: 'commit', contribution: `step ${i}` });
  m.close(); // writes the snapshot
  return dir;
}

const snapPath = (dir: string) => join(dir, '.GCC', '.cache', 'snapshot.json');

describe('snapshot', () => {
  afterAll(cleanup);

  it('open from a snapshot plus events appended since equals a full replay', async () => {
    const dir = await build();
    const other = await Memory.open(dir);
    await other.execute({ type: 'commit', contribution: 'after the snapshot' });
    // Do not close: the snapshot on disk stays behind by one event.
    const m = await Memory.open(dir);
    expect(m.state).toEqual(replay(m.events()));
    expect(m.state.branches.exp!.commits).toBe(6);
    expect(m.context({ level: 'branch', name: 'exp' }).text).toContain('step 0'); // old events still readable
    m.close();
    other.close();
  });

  it('an old entry damaged in place is trusted by open but caught by verify and by any full read', async () => {
    const dir = await build();
    const log = join(dir, '.GCC', 'branches', 'exp', 'log.md');
    writeFileSync(log, readFileSync(log, 'utf8').replace('step 1', 'step X')); // same size, same inode
    const m = await Memory.open(dir);
    expect(m.state.branches.exp!.commits).toBe(5); // the snapshot's view of the prefix
    expect(m.verify()).toEqual([expect.objectContaining({ file: '.GCC/branches/exp/log.md', message: expect.stringMatching(/integrity/) })]);
    expect(() => m.events()).toThrow(/integrity/);
    m.close();
  });

  it('a snapshot that does not describe these logs is ignored', async () => {
    const dir = await build();
    const snap = JSON.parse(readFileSync(snapPath(dir), 'utf8')) as { logs: { check: number }[]; state: { objectives: unknown[] } };
    snap.logs[0]!.check += 1;
    snap.state.objectives = [];
    writeFileSync(snapPath(dir), JSON.stringify(snap));
    const m = await Memory.open(dir);
    expect(m.state.objectives).toHaveLength(1);
    m.close();
    writeFileSync(snapPath(dir), '{not json');
    const m2 = await Memory.open(dir);
    expect(m2.state.objectives).toHaveLength(1);
    m2.close();
    writeFileSync(snapPath(dir), JSON.stringify({ ...snap, format: 999 }));
    const m3 = await Memory.open(dir);
    expect(m3.state.objectives).toHaveLength(1);
    m3.close();
  });
});
