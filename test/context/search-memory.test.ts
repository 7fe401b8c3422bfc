/**
 * A query's memory does not grow with the number of shards: it opens one part of one shard
 * at a time and lets go of it before the next, keeping only the best candidates asked for.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SearchIndex, type ShardEvent } from '../../src/context/search-index.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { doc, prose } from './search-fixtures.js';

afterAll(cleanup);

describe('search memory', () => {
  it('reads each part’s dictionary once, the postings of the parts that match, and holds one part at a time', () => {
    const dir = join(tempProject('gcc-search-mem-'), 'search');
    const build = new SearchIndex(dir, { partDocs: 7 });
    const names = Array.from({ length: 30 }, (_, s) => `2026-0${1 + (s % 9)}/seg-${String(s).padStart(3, '0')}`);
    names.forEach((shard, s) => build.add(shard, Array.from({ length: 20 }, (_, i) => doc(s * 20 + i, { shard, text: `${prose(s * 20 + i, 15)} needle${s === 4 && i === 0 ? ' zanzibar' : ''}` }))));
    expect(build.flush()).toBeNull();
    const events: ShardEvent[] = [];
    let live = 0;
    let most = 0;
    const idx = new SearchIndex(dir, {
      partDocs: 7,
      observe: (e) => {
        events.push(e);
        live += e.type === 'load' ? 1 : -1;
        most = Math.max(most, live);
      },
    });
    const r = idx.search('needle parser', { limit: 10 });
    expect(r.total).toBeGreaterThan(0);
    expect(most).toBe(1);
    expect(live).toBe(0);
    // Newest shard name first, its parts newest first, each once: 20 documents make 3 parts.
    const loads = (stage: ShardEvent['stage']) => events.filter((e) => e.type === 'load' && e.stage === stage).map((e) => `${e.shard}#${e.part}`);
    const order = [...names].sort().reverse().flatMap((s) => [2, 1, 0].map((p) => `${s}#${p}`));
    expect(loads('terms')).toEqual(order);
    expect(loads('postings')).toEqual(order); // every part has `needle`
    expect(loads('texts').length).toBeLessThanOrEqual(10);
    // A word of one document: the postings of its part only.
    events.length = 0;
    expect(idx.search('zanzibar').total).toBe(1);
    expect(loads('terms')).toEqual(order);
    expect(loads('postings')).toEqual([`${names[4]}#0`]);
  });

  it('keeps the live heap flat whether there are 6 shards or 24', () => {
    const run = (shards: number) => {
      const child = fileURLToPath(new URL('./search-heap.child.ts', import.meta.url));
      const out = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', child, join(tempProject('gcc-search-heap-'), 'search'), String(shards), '400'], { encoding: 'utf8' });
      expect(out.stderr).toBe('');
      return JSON.parse(out.stdout) as { peak: number; after: number; shardHeap: number; loads: number; total: number; hits: number };
    };
    const small = run(6);
    const large = run(24);
    expect([small.loads, large.loads]).toEqual([6, 24]);
    expect(large.total).toBeGreaterThan(small.total);
    // Four times the shards: what the search retains grows by less than half of one part
    // (a part here holds ~400 KB of heap with every section read), so no part outlives its visit.
    expect(large.shardHeap).toBeGreaterThan(256 * 1024);
    expect(large.peak).toBeLessThan(small.peak + large.shardHeap / 2);
  });
});
