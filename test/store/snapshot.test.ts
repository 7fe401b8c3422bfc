/**
 * The snapshot is a cache: an open that trusts it must end in the same state as reading
 * every log, and any snapshot that does not match the logs must be ignored.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
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

  it('a process that appends a few events and exits leaves the snapshot alone; one far behind rewrites it', async () => {
    const dir = await build();
    const before = readFileSync(snapPath(dir), 'utf8');
    const hook = await Memory.open(dir);
    await hook.execute({ type: 'log', observation: 'one tool call', thought: 't', action: 'a' });
    hook.close();
    expect(readFileSync(snapPath(dir), 'utf8')).toBe(before);
    const m = await Memory.open(dir);
    expect(m.state).toEqual(replay(m.events()));
    for (let i = 0; i < 40; i++) await m.execute({ type: 'log', observation: `call ${i}`, thought: 't', action: 'a' });
    m.close();
    const after = JSON.parse(readFileSync(snapPath(dir), 'utf8')) as { state: { events: number } };
    expect(after.state.events).toBe(JSON.parse(before).state.events + 41);
  });

  it('names each log by the CRC of its real last 64 bytes, also for bytes this process appended', async () => {
    const dir = await build();
    const m = await Memory.open(dir);
    await m.execute({ type: 'switch', name: 'main' });
    for (let i = 0; i < 40; i++) await m.execute({ type: 'commit', contribution: `more ${i}` });
    m.close();
    const snap = JSON.parse(readFileSync(snapPath(dir), 'utf8')) as { logs: { branch: string; size: number; check: number }[] };
    expect(snap.logs.length).toBeGreaterThan(1);
    for (const log of snap.logs) {
      const file = log.branch === 'main' ? join(dir, '.GCC', 'log.md') : join(dir, '.GCC', 'branches', log.branch, 'log.md');
      const bytes = readFileSync(file);
      expect(log.size).toBe(statSync(file).size);
      expect(log.check).toBe(crc32(bytes.subarray(Math.max(0, log.size - 64), log.size)));
    }
  });
});
