/**
 * The store under stress: a crash at any byte of an append (every acknowledged event kept,
 * the torn fragment moved to .GCC/quarantine/), a memory removed under an open process,
 * and optimistic concurrency on the expected sequence.
 */
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

describe('torn tails', () => {
  afterAll(cleanup);

  it('truncating the last batch at ~150 offsets across it (the codec test covers every byte): open succeeds, earlier events intact, fragment quarantined', async () => {
    const dir = tempProject();
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'roadmap', action: 'add', target: 'first objective' });
    await m.execute({ type: 'branch', name: 'exp', purpose: 'p' });
    await m.execute({ type: 'commit', contribution: 'on exp' });
    const log = join(dir, '.GCC', 'branches', 'exp', 'log.md');
    const acked = readFileSync(log);
    // The merge is a two-event batch on main: a torn merge must vanish whole.
    await m.execute({ type: 'merge', branch: 'exp', synthesis: 'learned ünïcødé 😀 --> ---' });
    const mainLog = join(dir, '.GCC', 'log.md');
    const full = readFileSync(mainLog);
    const mainEvents = m.eventsOf('main').length;
    m.close();
    // Find where the merge batch starts: the end of the entry before it.
    const text = full.toString('utf8');
    const mergeStart = Buffer.byteLength(text.slice(0, text.lastIndexOf('**[COMMIT-')));
    const step = Math.max(1, Math.floor((full.length - mergeStart) / 150));
    for (let cut = mergeStart + 1; cut < full.length; cut += step) {
      writeFileSync(mainLog, full.subarray(0, cut));
      const again = await Memory.open(dir);
      expect(again.eventsOf('main')).toHaveLength(mainEvents - 2);
      expect(again.state.branches.exp!.status).toBe('active');
      expect(statSync(mainLog).size).toBe(mergeStart);
      expect(again.warnings.join('\n')).toMatch(/torn entry at the end of \.GCC\/log\.md .* moved to .*quarantine/);
      expect(again.verify()).toEqual([]);
      // The branch's own log was untouched.
      expect(readFileSync(log)).toEqual(acked);
      again.close();
    }
    const q = readdirSync(join(dir, '.GCC', 'quarantine'));
    expect(q.length).toBeGreaterThan(100);
    // Appending after recovery works and keeps sequences gapless.
    const m2 = await Memory.open(dir);
    await m2.execute({ type: 'merge', branch: 'exp', synthesis: 'again' });
    expect(m2.eventsOf('main').map((e) => e.seq)).toEqual(Array.from({ length: mainEvents }, (_, i) => i + 1));
    expect(m2.verify()).toEqual([]);
    m2.close();
  });

  it('a cut exactly between entries is a clean log, not a tear', async () => {
    const dir = tempProject();
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'log', observation: 'o', thought: 't', action: 'a' });
    m.close();
    const mainLog = join(dir, '.GCC', 'log.md');
    const size = statSync(mainLog).size;
    truncateSync(mainLog, size);
    const again = await Memory.open(dir);
    expect(again.warnings).toEqual([]);
    again.close();
  });
});

describe('memory removed under an open process', () => {
  afterAll(cleanup);
  it('the next operation says the memory is gone and how to start again', async () => {
    const { rmSync } = await import('node:fs');
    const dir = tempProject();
    const m = await Memory.open(dir, { create: true });
    rmSync(join(dir, '.GCC'), { recursive: true, force: true });
    await expect(m.execute({ type: 'log', observation: 'o', thought: 't', action: 'a' })).rejects.toMatchObject({ code: 'E_NOT_INITIALIZED' });
    m.close();
  });
});

describe('expected sequence', () => {
  afterAll(cleanup);
  it('an append against a stale sequence fails with E_CONFLICT and changes nothing; the right one succeeds', async () => {
    const dir = tempProject();
    const a = await Memory.open(dir, { create: true });
    const b = await Memory.open(dir);
    const seen = a.seqOf('main');
    await b.execute({ type: 'roadmap', action: 'add', target: 'from b' }); // moves main on
    const before = readFileSync(join(dir, '.GCC', 'log.md'));
    await expect(a.execute({ type: 'roadmap', action: 'add', target: 'from a' }, { expectedSeq: seen })).rejects.toMatchObject({ code: 'E_CONFLICT' });
    expect(readFileSync(join(dir, '.GCC', 'log.md'))).toEqual(before);
    await a.execute({ type: 'roadmap', action: 'add', target: 'from a' }, { expectedSeq: a.seqOf('main') });
    expect(a.state.objectives.map((o) => o.text)).toEqual(['from b', 'from a']);
    a.close();
    b.close();
  });
});
