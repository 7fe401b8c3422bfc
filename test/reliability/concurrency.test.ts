/**
 * Concurrency: N processes × M commits on one memory, all at once. Every commit is in the
 * log exactly once, sequences are gapless per file, labels C001… are unique, and every
 * projection equals a replay. Default 4 × 25 (mixed with OTA entries); GCC_LONG=1: 8 × 500.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { acks, pick, start, TIMEOUT } from './helpers.js';

describe('concurrency: many processes on one memory', () => {
  afterAll(cleanup);

  it('N × M commits: all present once, gapless, projections equal replay', { timeout: TIMEOUT }, async () => {
    const procs = pick(4, 8);
    const each = pick(25, 500);
    const dir = tempProject('gcc-conc-');
    (await Memory.open(dir, { create: true })).close();
    const t0 = Date.now();
    const kids = Array.from({ length: procs }, (_, i) => start('committer.mjs', [dir, `p${i}`, String(each), i % 2 ? 'mixed' : 'plain']));
    const codes = await Promise.all(kids.map((k) => k.exited));
    const seconds = (Date.now() - t0) / 1000;
    expect(codes, kids.map((k) => k.stderr()).join('\n')).toEqual(kids.map(() => 0));
    const acked = kids.flatMap((k) => acks(k.lines));
    expect(acked).toHaveLength(procs * each);

    const m = await Memory.open(dir);
    try {
      const events = m.events();
      const commits = events.filter((e) => e.type === 'commit.recorded');
      expect(commits).toHaveLength(procs * each);
      const contributions = commits.map((e) => (e.type === 'commit.recorded' ? e.data.contribution : ''));
      const expected = Array.from({ length: procs }, (_, p) => Array.from({ length: each }, (_, i) => `p${p}/${i + 1}`)).flat();
      expect([...contributions].sort()).toEqual([...expected].sort());
      const ids = new Set(events.map((e) => e.id));
      expect(ids.size).toBe(events.length);
      for (const id of acked) expect(ids.has(id)).toBe(true);
      const labels = commits.map((e) => (e.type === 'commit.recorded' ? e.data.label : ''));
      expect(new Set(labels).size).toBe(labels.length);
      const oneProcess = contributions.filter((c) => c.startsWith('p0/'));
      expect(oneProcess, 'each process sees its own commits in order').toEqual(expected.filter((c) => c.startsWith('p0/')));
      for (const b of Object.keys(m.state.branches)) {
        const seqs = m.eventsOf(b).map((e) => e.seq);
        expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      }
      expect(m.verify()).toEqual([]);
      const ota = events.filter((e) => e.type === 'ota.logged').length;
      console.log(`[reliability] concurrency: ${procs} processes × ${each} commits (+${ota} OTA entries) = ${events.length} events in ${seconds.toFixed(1)} s, none lost, none duplicated`);
    } finally {
      m.close();
    }
  });
});
