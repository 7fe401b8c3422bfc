/** What is known of a log: commit labels per branch, kept in the ledger and used to skip logs. */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Placed } from '../../src/events/types.js';
import { scanNewest } from '../../src/engine/reader.js';
import { SEGMENT_MAX } from '../../src/store/append.js';
import { readLedger } from '../../src/store/ledger.js';
import { LOCAL } from '../../src/store/store.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { append, fresh, ota } from './support.js';

afterAll(cleanup);

describe('commit labels per log', () => {
  const commit = (label: string, branch = 'main'): Placed =>
    ({
      type: 'commit.recorded',
      branch,
      data: {
        id: label
          .toLowerCase()
          .padEnd(7, '0')
          .slice(0, 7)
          .replace(/[^0-9a-f]/g, 'a'),
        label,
        title: label,
        contribution: label,
        purpose: 'p',
        previous: '',
        files: [],
      },
    }) as Placed;

  it('are kept as a range per branch, acknowledged in the ledger, and let a lookup by label skip logs that cannot hold it', async () => {
    const s = await fresh();
    const big = 'x'.repeat(SEGMENT_MAX / 3);
    await append(s, [commit('C001'), commit('C002'), ota(big)]);
    await append(s, [ota(big), ota(big)]); // the segment fills: the next commits go to another
    await append(s, [commit('C003'), commit('C004')]);
    const segs = [...s.logs.values()].filter((f) => f.name !== LOCAL && f.meta.size > 0);
    expect(segs.length).toBeGreaterThanOrEqual(2);
    expect(segs.map((f) => f.meta.labels?.main)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(
      Object.values(readLedger(s.layout.ledger)!.logs)
        .map((e) => e.labels?.main)
        .filter(Boolean),
    ).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const read: string[] = [];
    scanNewest(s, { branch: 'main', label: 1 }, (e) => (read.push(e.id), true));
    expect(read.length).toBe(segs[0]!.meta.seq); // the first segment's events only
  });

  it('a ledger written before labels were kept is still trusted: lookups read every log of the branch', async () => {
    const dir = tempProject();
    const s = await fresh(dir);
    await append(s, [commit('C001')]);
    const raw = JSON.parse(readFileSync(s.layout.ledger, 'utf8'));
    for (const e of Object.values(raw.logs) as { labels?: unknown }[]) delete e.labels;
    writeFileSync(s.layout.ledger, JSON.stringify(raw));
    const again = await fresh(dir);
    const f = [...again.logs.values()].find((x) => x.meta.size > 0)!;
    expect(f.meta.labels).toBeUndefined();
    const found: string[] = [];
    scanNewest(again, { branch: 'main', label: 1 }, (e) => (found.push(e.type), true));
    expect(found).toEqual(['commit.recorded']);
  });
});
