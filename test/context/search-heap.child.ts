/**
 * Run by search-memory.test.ts as `node --expose-gc --import tsx search-heap.child.ts <dir> <shards> <docs>`:
 * builds an index of <shards> × <docs> documents, then searches it from a fresh instance and
 * prints, as JSON, how far the live heap (after a full collection, compiled code left out)
 * rose above its level before the search, measured each time a part is about to be opened
 * and once after the search; and, for scale, the heap one part takes with all its sections read.
 */
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { SearchIndex, partFile } from '../../src/context/search-index.js';
import { withPart } from '../../src/context/search-part-file.js';
import { doc } from './search-fixtures.js';

const [dir, shardsArg, docsArg] = process.argv.slice(2);
const shards = Number(shardsArg);
const perShard = Number(docsArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!dir || !gc) throw new Error('usage: node --expose-gc --import tsx search-heap.child.ts <dir> <shards> <docs>');

// A vocabulary large enough that each shard's index is realistically sized, and the same in every
// shard (refs included): what a query remembers of the terms it has met stops growing.
const vocab = Array.from({ length: 4000 }, (_, i) => `w${(i * 2654435761 >>> 0).toString(36)}`);
let seed = 7;
const pick = () => vocab[(seed = (seed * 48271) % 2147483647) % vocab.length]!;

(() => {
  const build = new SearchIndex(dir);
  for (let s = 0; s < shards; s++) {
    const shard = `2026-01/seg-${String(s).padStart(4, '0')}`;
    build.add(shard, Array.from({ length: perShard }, (_, i) => doc(s * perShard + i, { shard, ref: 'C001', text: `${Array.from({ length: 80 }, pick).join(' ')} common` })));
  }
  const err = build.flush();
  if (err) throw err;
})();

/** Live heap without code spaces: the JIT compiling hot paths is not data the search holds. */
const heap = () => {
  gc();
  return getHeapSpaceStatistics().reduce((n, s) => (s.space_name.startsWith('code') ? n : n + s.space_used_size), 0);
};
const first = `2026-01/seg-${'0'.padStart(4, '0')}`;
const shardHeap = (() => {
  const before = heap();
  const one = withPart(join(dir, partFile(first, 0)), first, 0, (f) => ({ dict: f.dict(), table: f.table(), meta: f.meta(), texts: f.texts() }));
  if (!one) throw new Error('shard unreadable');
  const held = heap() - before;
  return one.meta.length ? held : 0;
})();

const base = heap();
let peak = 0;
let loads = 0;
const idx = new SearchIndex(dir, {
  observe: (e) => {
    if (e.type !== 'load' || e.stage !== 'terms') return;
    loads++;
    peak = Math.max(peak, heap() - base);
  },
});
const r = idx.search(`common ${vocab[5]}`, { limit: 20 });
const after = heap() - base;
process.stdout.write(`${JSON.stringify({ peak: Math.max(peak, after), after, shardHeap, loads, total: r.total, hits: r.hits.length })}\n`);
