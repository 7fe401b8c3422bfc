/**
 * Ranked search (src/context/search-index.ts): build an index of N documents over S shards
 * (each shard about one 1 MiB segment's worth of text), then run each query in a fresh
 * process, as a read command would. Reports the time to index 1,000 documents (add + flush), the
 * query median over a mix of one-word, multi-word, typo, path and prefix queries (wall
 * clock and CPU), and peak RSS — of the building process and, separately, of a process
 * that only searches. The text is drawn from a 20,000-word vocabulary with a steep Zipf
 * curve: most words rare, as identifiers, paths and numbers make real notes.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readdirSync, statSync } from 'node:fs';
import { SearchIndex } from '../dist/context/search-index.js';
import { fmt, prng, removeDir, ROOT, spread, stats, tempDir } from './lib.js';

export const title = 'Ranked search: indexing, query latency and peak RSS vs shard count';

const INDEX = pathToFileURL(join(ROOT, 'dist', 'context', 'search-index.js')).href;
const SYL = 'ka to ri men sol par cas lo ve tin dra mo qui ber sha lex nu gor fi pel zan tro vi hem'.split(' ');
const QUERIES = ['parser', 'tokenizer unicode', 'retryWithBackoff', 'src/cache/lru.ts', 'tokenzier', 'cache invalid', 'merge conflict resolution branch', 'karito'];

/** A Zipf-like vocabulary: a few words very common, most rare, as in real notes. */
function vocabulary(rng, size) {
  const words = new Set();
  while (words.size < size) {
    let w = '';
    for (let n = 2 + Math.floor(rng() * 3); n > 0; n--) w += SYL[Math.floor(rng() * SYL.length)];
    words.add(w);
  }
  return [...words];
}

function makeDocs(rng, vocab, shard, first, count) {
  const word = () => vocab[Math.floor(vocab.length * rng() ** 3)];
  const words = (n) => Array.from({ length: n }, word).join(' ');
  const kinds = ['commit', 'log', 'tool', 'tool', 'log'];
  const docs = [];
  for (let i = 0; i < count; i++) {
    const n = first + i;
    const kind = kinds[n % kinds.length];
    const extra = n % 7 === 0 ? ' the tokenizer handles unicode now' : n % 11 === 0 ? ' wrapped it in retryWithBackoff for src/cache/lru.ts' : n % 13 === 0 ? ' parser merge conflict resolution on branch' : '';
    const size = kind === 'tool' ? 60 + Math.floor(rng() * 400) : kind === 'commit' ? 60 + Math.floor(rng() * 120) : 25 + Math.floor(rng() * 40);
    docs.push({
      id: (1_700_000_000_000 + n).toString(16).padStart(12, '0') + n.toString(16).padStart(10, '0'),
      shard,
      branch: n % 5 === 0 ? 'feat/parser' : 'main',
      kind,
      at: new Date(1_700_000_000_000 + n * 1000).toISOString(),
      ...(kind === 'commit' ? { ref: `C${n} ${n.toString(16).padStart(7, '0')}`, title: words(6) } : {}),
      text: words(size) + extra,
    });
  }
  return docs;
}

/** One query in a fresh process, as `gctx search` runs it: its time, CPU and peak RSS. */
function child(dir, query) {
  const code = `
    const { SearchIndex } = await import(${JSON.stringify(INDEX)});
    const idx = new SearchIndex(${JSON.stringify(dir)});
    const c0 = process.cpuUsage();
    const t = performance.now();
    const res = idx.search(${JSON.stringify(query)}, { limit: 20 });
    const ms = performance.now() - t;
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ ms, cpu: (c.user + c.system) / 1000, rss: process.resourceUsage().maxRSS / 1024, total: res.total }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`search child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function queries(dir, runs) {
  const out = { ms: [], cpu: [], rss: [], per: {} };
  for (let r = 0; r < runs; r++) {
    for (const q of QUERIES) {
      const x = child(dir, q);
      if (q === QUERIES[0] && x.total === 0) throw new Error('no hits');
      out.ms.push(x.ms);
      out.cpu.push(x.cpu);
      out.rss.push(x.rss);
      (out.per[q] ??= []).push(x.ms);
    }
  }
  return out;
}

/** Node alone, for the RSS a search adds to. */
function bareRss() {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(INDEX)}); console.log(process.resourceUsage().maxRSS / 1024)`], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

export async function run({ quick = false, long = false } = {}) {
  const perShard = quick ? 500 : 1000;
  const shardCounts = quick ? [2, 5] : long ? [10, 40, 160] : [5, 20];
  // Each query runs in its own process, as a read command does.
  const runs = quick ? 1 : 2;
  const rows = [];
  const bare = bareRss();
  const json = { perShard, runs, queries: QUERIES, bareRssMiB: bare, sizes: [] };
  for (const shards of shardCounts) {
    const rng = prng(shards);
    const vocab = vocabulary(rng, 20_000);
    const dir = join(tempDir('gcc-bench-search-'), 'search');
    const idx = new SearchIndex(dir);
    let textBytes = 0;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (let s = 0; s < shards; s++) {
      const shard = `2026-${String(1 + (s % 12)).padStart(2, '0')}/seg-${String(s).padStart(5, '0')}`;
      const docs = makeDocs(rng, vocab, shard, s * perShard, perShard);
      for (const d of docs) textBytes += Buffer.byteLength(d.text);
      idx.add(shard, docs);
    }
    const err = idx.flush();
    if (err) throw err;
    const buildMs = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const buildCpuMs = (c.user + c.system) / 1000;
    const buildRss = process.resourceUsage().maxRSS / 1024;
    const files = readdirSync(dir);
    const indexBytes = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    const docs = shards * perShard;
    const q = queries(dir, runs);
    const st = stats(q.ms);
    const cpu = stats(q.cpu);
    const rss = stats(q.rss);
    removeDir(join(dir, '..'));
    rows.push([
      `${shards} × ${perShard.toLocaleString('en-US')}`,
      `${fmt(textBytes / 2 ** 20, 1)} / ${fmt(indexBytes / 2 ** 20, 1)}`,
      String(files.length - 1),
      `${fmt((buildMs / docs) * 1000, 0)} (${fmt((buildCpuMs / docs) * 1000, 0)})`,
      spread(st, 0),
      fmt(cpu.median, 0),
      `${fmt(rss.median, 0)} / ${fmt(rss.max, 0)}`,
      fmt(buildRss, 0),
    ]);
    json.sizes.push({ shards, docs, textBytes, indexBytes, parts: files.length - 1, buildMs, buildCpuMs, buildRssMiB: buildRss, queryMs: st, queryCpuMs: cpu, searchRssMiB: rss, perQuery: Object.fromEntries(Object.entries(q.per).map(([k, v]) => [k, stats(v).median])) });
  }
  const last = json.sizes[json.sizes.length - 1];
  const first = json.sizes[0];
  return {
    title,
    columns: ['shards × docs', 'text / index MiB', 'parts', 'index ms per 1,000 docs (CPU)', 'query ms median (p10–p90)', 'query CPU ms', 'search peak RSS MiB median / max', 'build peak RSS MiB'],
    rows,
    summary: `Search over ${last.docs.toLocaleString('en-US')} docs (${last.parts} parts): ${fmt(last.queryMs.median, 0)} ms median, peak RSS ${fmt(last.searchRssMiB.max, 0)} MiB at most (${fmt(first.searchRssMiB.max, 0)} MiB at ${first.docs.toLocaleString('en-US')} docs; node with the module alone ${fmt(bare, 0)} MiB); target ≤ 100 MiB`,
    pass: json.sizes.every((x) => x.searchRssMiB.max <= 100),
    json,
  };
}
