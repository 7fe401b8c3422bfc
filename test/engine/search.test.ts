/**
 * Search over a real memory: the index under .GCC/.local/cache/search is fed from the
 * segments before each query, follows new entries, rebuilds when damaged or deleted, and
 * is shared safely by processes searching at once.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { SearchIndex } from '../../src/context/search-index.js';
import { docsOf, MemorySearch } from '../../src/engine/search.js';
import { layout } from '../../src/store/paths.js';
import type { Store } from '../../src/store/store.js';
import { CLI } from '../support/cli.js';
import { readEvents } from '../support/events.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

async function memory(): Promise<{ dir: string; m: Memory }> {
  const dir = tempProject('gcc-search-');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Parse config files' });
  await m.execute({ type: 'log', observation: 'Config files are TOML, up to 2 MB', thought: 'A streaming parser avoids loading the whole file', action: 'Sketch the tokenizer' });
  await m.execute({ type: 'record-tool', tool: 'Edit', input: 'src/tokenizer.ts', result: 'ok', isError: false, files: [{ path: 'src/tokenizer.ts', added: 120, removed: 0 }] });
  await m.execute({ type: 'commit', contribution: 'Streaming TOML tokenizer with tests for tables and arrays', title: 'Tokenizer' });
  await m.execute({ type: 'branch', name: 'try-lru', purpose: 'See whether an LRU cache beats re-parsing', hypotheses: ['most files are re-read within a minute'] });
  await m.execute({ type: 'commit', contribution: 'LRU cache keyed by path and mtime; hit rate 92% on the fixture corpus' });
  await m.execute({ type: 'abandon', branch: 'try-lru', reason: 'mtime granularity misses edits within a second' });
  return { dir, m };
}

const search = (m: Memory, text: string, page?: number) => m.context({ level: 'search', text, ...(page ? { page } : {}) }, { budget: 4000 });

describe('search over a memory', () => {
  it('a query that must index much of the history runs with the state let go, then folds the same state back', async () => {
    const { dir, m } = await memory();
    await m.close();
    const again = await Memory.open(dir);
    const inner = again as unknown as { fold: { withoutState<T>(work: () => T): T }; store: Store; finder: MemorySearch | null };
    const before = JSON.stringify(again.state);
    let during = -1;
    const spare = <T>(work: () => T): T =>
      inner.fold.withoutState(() => {
        during = again.state.events;
        return work();
      });
    // Any bytes still to index count as much, here.
    inner.finder = new MemorySearch(inner.store, layout(dir).cache, spare, 0);
    expect(search(again, 'tokenizer').text).toMatch(/«[Tt]okenizer»/);
    expect(during).toBe(0);
    expect(JSON.stringify(again.state)).toBe(before);
    // Indexed now: the next query does not let the state go.
    during = -1;
    expect(search(again, 'granularity').text).toMatch(/try-lru/);
    expect(during).toBe(-1);
    await again.close();
  });

  it('such a query asks for the index to be built apart first; what that could not do is done in place', async () => {
    for (const builds of [true, false]) {
      const { dir, m } = await memory();
      await m.close();
      const again = await Memory.open(dir);
      const inner = again as unknown as { store: Store; finder: MemorySearch | null };
      let asked = 0;
      let spared = 0;
      const apart = () => {
        asked++;
        if (!builds) return false;
        // Another process's build: a second opener feeding the same cache.
        const other = new MemorySearch(inner.store, layout(dir).cache);
        other.search('anything', { limit: 1, page: 1 });
        return true;
      };
      inner.finder = new MemorySearch(inner.store, layout(dir).cache, (work) => (spared++, work()), 0, apart);
      expect(search(again, 'tokenizer').text, String(builds)).toMatch(/«[Tt]okenizer»/);
      expect([asked, spared], String(builds)).toEqual(builds ? [1, 0] : [1, 1]);
      await again.close();
    }
  });

  it('finds commits, purposes, hypotheses, reasons, notes and tool calls, best first', async () => {
    const { m } = await memory();
    const tok = search(m, 'tokenizer');
    expect(tok.text).toMatch(/most relevant first/);
    const first = (tok.data as { hits: { kind: string }[] }).hits[0]!;
    expect(first.kind).toBe('commit');
    expect(search(m, 'granularity').text).toMatch(/^1 match.*try-lru abandoned: mtime «granularity»/s);
    expect(search(m, 'minute').text).toMatch(/try-lru/);
    expect(search(m, 'src/tokenizer.ts').text).toMatch(/tokenizer/);
    expect(search(m, 'tokenzier').text).toMatch(/«[Tt]okenizer»/);
    expect(search(m, 'zebra').text).toMatch(/No match/);
    await m.close();
  });

  it('finds every field a person wrote: a commit\'s title and next step, a merge\'s synthesis and what was learned', async () => {
    const dir = tempProject('gcc-search-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', contribution: 'Config parser reads JSON', title: 'Hand-written lexer', next: 'Cache parsed configs' });
    await m.execute({ type: 'branch', name: 'b', purpose: 'Does a cache pay off?', hypotheses: ['files are re-read within a minute'] });
    await m.execute({ type: 'commit', contribution: 'cache works' });
    await m.execute({ type: 'merge', branch: 'b', synthesis: 'cache adopted', learned: 're-reads, not parsing, dominate warm loads', next: 'measure memory use' });
    expect(search(m, 'dominate warm loads').text).toMatch(/^1 match[^\n]*\n[^\n]* main C002 Merge b: cache adopted: [^\n]*«dominate» «warm» «loads»/);
    expect(search(m, 'cache adopted').text).toMatch(/ main C002 Merge b/);
    expect(search(m, 'measure memory').text).toMatch(/ main C002 Merge b/);
    expect(search(m, 'hand-written lexer').text).toMatch(/ main C001 Hand-written lexer/);
    expect(search(m, 'cache parsed configs').text).toMatch(/ main C001 /);
    expect(search(m, 'pay off').text).toMatch(/^1 match/);
    expect(search(m, 're-read within a minute').text).toMatch(/^1 match/);
    await m.close();
  });

  it('says a commit\'s or a merge\'s title once: its snippet goes on from where the title stops', async () => {
    const dir = tempProject('gcc-search-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'branch', name: 'feat', purpose: 'try the zebra parser', hypotheses: [] });
    await m.execute({ type: 'commit', contribution: 'zebra parser works', next: 'ship it' });
    await m.execute({ type: 'merge', branch: 'feat', synthesis: 'zebra parser merged: handles stripes', learned: 'zebra needs care' });
    await m.execute({ type: 'commit', contribution: `giraffe ${'long words '.repeat(8)}tail of the line\nsecond line` });
    await m.execute({ type: 'commit', contribution: 'okapi alone' });
    const lines = search(m, 'zebra').text.split('\n');
    expect(lines.find((l) => / feat C001 /.test(l))).toMatch(/ feat C001 zebra parser works: Next: ship it$/);
    expect(lines.find((l) => / main C001 /.test(l))).toMatch(/ main C001 Merge feat: zebra parser merged: handles stripes: Learned: «zebra» needs care$/);
    // A title clipped short of its line: the snippet holds the rest of the line, not its start again.
    const giraffe = search(m, 'giraffe').text.split('\n')[1]!;
    expect(giraffe.match(/giraffe/g)).toHaveLength(1);
    expect(giraffe).toMatch(/…: …[^\n]*tail of the line second line$/);
    // Nothing beyond the title: the line ends with it.
    expect(search(m, 'okapi').text).toMatch(/ main C003 okapi alone$/m);
    const hit = (search(m, 'stripes').data as { hits: { title: string; snippet: string }[] }).hits[0]!;
    expect(hit).toMatchObject({ title: 'Merge feat: zebra parser merged: handles stripes', snippet: 'Learned: zebra needs care' });
    await m.close();
  });

  it('indexes again a cache an older gctx fed (fed.json format 1), which lacked what was learned', async () => {
    const dir = tempProject('gcc-search-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'branch', name: 'b', purpose: 'cache' });
    await m.execute({ type: 'merge', branch: 'b', synthesis: 'cache adopted', learned: 're-reads, not parsing, dominate warm loads' });
    expect(search(m, 'dominate warm loads').text).toMatch(/^1 match/);
    await m.close();
    // The cache as the older gctx left it: the same segments fed, no learned text, format 1.
    const cache = join(dir, '.GCC', '.local', 'cache', 'search');
    const fed = JSON.parse(readFileSync(join(cache, 'fed.json'), 'utf8')) as { format: number; shards: [string, number, number, number][] };
    expect(fed.format).toBe(3);
    const events = await readEvents(dir);
    const idx = new SearchIndex(cache);
    for (const [shard] of fed.shards) {
      idx.drop(shard);
      const docs = events.flatMap((e) => docsOf(shard, e)).map((d) => ({ ...d, text: d.text.replace(/\nLearned: .*/, '') }));
      expect(idx.add(shard, docs)).toBe(docs.length);
    }
    idx.flush();
    writeFileSync(join(cache, 'fed.json'), JSON.stringify({ ...fed, format: 1 }));
    const again = await Memory.open(dir);
    expect(search(again, 'dominate warm loads').text).toMatch(/^1 match/);
    await again.close();
  });

  it('says when no entry has every word, and shows entries with some', async () => {
    const { m } = await memory();
    const r = search(m, 'tokenizer giraffe');
    expect(r.text).toMatch(/no entry has every word/);
    expect(r.text).toMatch(/«[Tt]okenizer»/);
    await m.close();
  });

  it('follows what is written after the first query, reading only what changed', async () => {
    const { dir, m } = await memory();
    expect(search(m, 'backoff').text).toMatch(/No match/);
    await m.execute({ type: 'log', observation: 'Flaky network in CI', thought: 'exponential backoff would absorb it', action: 'wrap fetch' });
    expect(search(m, 'backoff').text).toMatch(/«backoff»/);
    await m.close();
    const again = await Memory.open(dir);
    expect(search(again, 'backoff').text).toMatch(/1 match/);
    await again.close();
  });

  it('rebuilds a cache that was deleted, emptied or filled with garbage', async () => {
    const { dir, m } = await memory();
    const before = search(m, 'tokenizer').text;
    const cache = join(dir, '.GCC', '.local', 'cache', 'search');
    expect(existsSync(join(cache, 'fed.json'))).toBe(true);
    for (const f of readdirSync(cache)) writeFileSync(join(cache, f), f === 'fed.json' ? '{"format":1,"shards":[["x",1e99,-1,"a"]]}' : '\u0000garbage');
    expect(search(m, 'tokenizer').text).toBe(before);
    for (const f of readdirSync(cache)) if (f !== 'fed.json') writeFileSync(join(cache, f), '');
    expect(search(m, 'tokenizer').text).toBe(before);
    rmSync(cache, { recursive: true });
    expect(search(m, 'tokenizer').text).toBe(before);
    await m.close();
  });

  it('shows a label two commits carry on one branch qualified by its hash, as status and context do', async () => {
    // Two copies of one memory each commit on main, then their segments meet, as a git merge does.
    const seed = tempProject('gcc-search-dup-');
    const first = await Memory.open(seed, { create: true });
    await first.execute({ type: 'commit', contribution: 'base' });
    await first.close();
    const [a, b, merged] = [tempProject(), tempProject(), tempProject()];
    for (const d of [a, b]) {
      cpSync(join(seed, '.GCC'), join(d, '.GCC'), { recursive: true });
      rmSync(join(d, '.GCC', '.local'), { recursive: true, force: true });
    }
    for (const [d, what] of [[a, 'ours'], [b, 'theirs']] as const) {
      const m = await Memory.open(d);
      await m.execute({ type: 'commit', contribution: `${what} widget refactor` });
      await m.close();
    }
    for (const d of [a, b]) cpSync(join(d, '.GCC', 'events'), join(merged, '.GCC', 'events'), { recursive: true });
    const m = await Memory.open(merged);
    expect(m.state.branches.main!.dupLabels).toEqual(['C002']);
    const r = search(m, 'widget refactor');
    const hits = (r.data as { hits: { ref: string; hash: string }[] }).hits;
    expect(hits).toHaveLength(2);
    for (const h of hits) expect(h.ref).toBe(`C002.${h.hash}`);
    expect(new Set(hits.map((h) => h.hash)).size).toBe(2);
    for (const h of hits) expect(r.text).toContain(`main C002.${h.hash} `);
    // Each names one commit, as `context --commit` takes it.
    for (const h of hits) expect(m.context({ level: 'commit', id: h.ref }, { budget: 4000 }).text).toContain(h.hash);
    // A label that is unique stays bare.
    const base = (search(m, 'base').data as { hits: { ref: string }[] }).hits;
    expect(base.map((h) => h.ref)).toEqual(['C001']);
    await m.close();
  });

  it('pages: page 2 ranks lower and the first page says how to get it', async () => {
    const dir = tempProject('gcc-search-pages-');
    const m = await Memory.open(dir, { create: true });
    for (let i = 0; i < 25; i++) await m.execute({ type: 'log', observation: `retry attempt ${i}`, thought: 'retry again', action: 'wait' });
    const one = m.context({ level: 'search', text: 'retry', limit: 10 }, { budget: 4000 });
    expect(one.next).toEqual({ level: 'search', text: 'retry', limit: 10, page: 2 });
    const two = m.context(one.next!);
    expect(two.text).toMatch(/page 2/);
    await m.close();
  });

  it('processes searching at once all get the full answer', async () => {
    const { dir, m } = await memory();
    for (let i = 0; i < 40; i++) await m.execute({ type: 'log', observation: `pool note ${i}`, thought: 'connection pool sizing', action: 'measure' });
    await m.close();
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const p = spawn(process.execPath, [CLI, 'search', 'pool sizing'], { cwd: dir });
          let out = '';
          p.stdout.on('data', (d) => (out += d));
          p.on('close', (code) => resolve({ code, out }));
        }),
      ),
    );
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^40 matches/);
    }
  });
});
