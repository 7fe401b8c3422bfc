/**
 * Search (engine/search.ts over context/search-index.ts): what it finds in a real memory, how
 * it ranks, that query text is never FTS5 syntax, that feeding a log at a time equals a build
 * from nothing, that a lost or damaged database is rebuilt and a link at its path refused, and
 * the scan where Node has no node:sqlite.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSqlite, type SearchResult } from '../../src/context/search-index.js';
import { UNRANKED } from '../../src/context/search-scan.js';
import { Memory } from '../../src/engine/memory.js';
import { DB, MemorySearch, REBUILT, type SearchLogs, storeLogs } from '../../src/engine/search.js';
import type { Store } from '../../src/store/store.js';
import type { GccEvent } from '../../src/events/types.js';
import { CLI } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { runs } from '../support/runs.js';

afterAll(cleanup);

const search = (m: Memory, text: string, page?: number) =>
  m.context({ level: 'search', text, ...(page ? { page } : {}) }, { budget: 4000 });
const dbOf = (dir: string) => join(dir, '.GCC', '.local', 'cache', DB);

async function memory(): Promise<{ dir: string; m: Memory }> {
  const dir = tempProject('gcc-search-');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Parse config files' });
  await m.execute({
    type: 'log',
    observation: 'Config files are TOML, up to 2 MB',
    thought: 'A streaming parser avoids loading the whole file',
    action: 'Sketch the tokenizer',
  });
  await m.execute({
    type: 'record-tool',
    tool: 'Edit',
    input: 'src/tokenizer.ts',
    result: 'ok',
    isError: false,
    files: [{ path: 'src/tokenizer.ts', added: 120, removed: 0 }],
  });
  await m.execute({
    type: 'commit',
    contribution: 'Streaming TOML tokenizer with tests for tables and arrays',
    title: 'Tokenizer',
  });
  await m.execute({
    type: 'branch',
    name: 'try-lru',
    purpose: 'See whether an LRU cache beats re-parsing',
    hypotheses: ['most files are re-read within a minute'],
  });
  await m.execute({
    type: 'commit',
    contribution: 'LRU cache keyed by path and mtime; hit rate 92% on the fixture corpus',
  });
  await m.execute({ type: 'abandon', branch: 'try-lru', reason: 'mtime granularity misses edits within a second' });
  return { dir, m };
}

describe('search over a memory', () => {
  it('finds commits, purposes, hypotheses, reasons, objectives, log entries and tool calls', async () => {
    const { m } = await memory();
    const tok = search(m, 'tokenizer');
    expect(tok.text).toMatch(/most relevant first/);
    expect((tok.data as { hits: { kind: string }[] }).hits[0]!.kind).toBe('commit');
    expect(search(m, 'granularity').text).toMatch(/^1 match.*try-lru abandoned: mtime «granularity»/s);
    expect(search(m, 'minute').text).toMatch(/try-lru hypothesis/);
    expect(search(m, 'beats').text).toMatch(/try-lru purpose/);
    expect(search(m, 'config files').text).toMatch(/main objective: «Parse» «config» «files»|objective/);
    expect(search(m, 'streaming parser').text).toMatch(/main note/);
    expect(search(m, 'src/tokenizer.ts').text).toMatch(/tool Edit/);
    expect(search(m, 'zebra').text).toMatch(/No match/);
    await m.close();
  });

  it("finds every field a person wrote: a commit's title and next step, a merge's synthesis and what was learned", async () => {
    const dir = tempProject('gcc-search-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({
      type: 'commit',
      contribution: 'Config parser reads JSON',
      title: 'Hand-written lexer',
      next: 'Cache parsed configs',
    });
    await m.execute({
      type: 'branch',
      name: 'b',
      purpose: 'Does a cache pay off?',
      hypotheses: ['files are re-read within a minute'],
    });
    await m.execute({ type: 'commit', contribution: 'cache works' });
    await m.execute({
      type: 'merge',
      branch: 'b',
      synthesis: 'cache adopted',
      learned: 're-reads, not parsing, dominate warm loads',
      next: 'measure memory use',
    });
    expect(search(m, 'dominate warm loads').text).toMatch(
      /^1 match[^\n]*\n[^\n]* main C002 Merge b: cache adopted: [^\n]*«dominate» «warm» «loads»/,
    );
    expect(search(m, 'cache adopted').text).toMatch(/ main C002 Merge b/);
    expect(search(m, 'measure memory').text).toMatch(/ main C002 Merge b/);
    expect(search(m, 'hand-written lexer').text).toMatch(/ main C001 Hand-written lexer/);
    expect(search(m, 'cache parsed configs').text).toMatch(/ main C001 /);
    expect(search(m, 'pay off').text).toMatch(/^1 match/);
    await m.close();
  });

  it("says a commit's or a merge's title once: its snippet goes on from where the title stops", async () => {
    const dir = tempProject('gcc-search-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'branch', name: 'feat', purpose: 'try the zebra parser', hypotheses: [] });
    await m.execute({ type: 'commit', contribution: 'zebra parser works', next: 'ship it' });
    await m.execute({
      type: 'merge',
      branch: 'feat',
      synthesis: 'zebra parser merged: handles stripes',
      learned: 'zebra needs care',
    });
    await m.execute({ type: 'commit', contribution: 'okapi alone' });
    const lines = search(m, 'zebra').text.split('\n');
    expect(lines.find((l) => / feat C001 /.test(l))).toMatch(/ feat C001 zebra parser works: Next: ship it$/);
    expect(lines.find((l) => / main C001 /.test(l))).toMatch(
      / main C001 Merge feat: zebra parser merged: handles stripes: Learned: «zebra» needs care$/,
    );
    expect(search(m, 'okapi').text).toMatch(/ main C002 okapi alone$/m);
    const hit = (search(m, 'stripes').data as { hits: { title: string; snippet: string }[] }).hits[0]!;
    expect(hit).toMatchObject({
      title: 'Merge feat: zebra parser merged: handles stripes',
      snippet: 'Learned: zebra needs care',
    });
    await m.close();
  });

  it('says when no entry has every word, and shows entries with some', async () => {
    const { m } = await memory();
    const r = search(m, 'tokenizer giraffe');
    expect(r.text).toMatch(/no entry has every word/);
    expect(r.text).toMatch(/«[Tt]okenizer»/);
    await m.close();
  });

  it('follows what is written after a query, in this process and the next', async () => {
    const { dir, m } = await memory();
    expect(search(m, 'backoff').text).toMatch(/No match/);
    await m.execute({
      type: 'log',
      observation: 'Flaky network in CI',
      thought: 'exponential backoff would absorb it',
      action: 'wrap fetch',
    });
    expect(search(m, 'backoff').text).toMatch(/«backoff»/);
    await m.close();
    const again = await Memory.open(dir);
    expect(search(again, 'backoff').text).toMatch(/^1 match/);
    await again.close();
  });

  it('rebuilds a database that was deleted, emptied or filled with garbage, and says so once', async () => {
    const { dir, m } = await memory();
    const before = search(m, 'tokenizer').text;
    const [head, ...rest] = before.split('\n');
    writeFileSync(dbOf(dir), 'SQLite format 3\u0000garbage'.repeat(300));
    expect(search(m, 'tokenizer').text).toBe([head, `(${REBUILT})`, ...rest].join('\n'));
    expect(search(m, 'tokenizer').text).toBe(before);
    writeFileSync(dbOf(dir), '');
    expect(search(m, 'tokenizer').text).toBe(before);
    // Of another format: rebuilt without a word.
    const other = new (loadSqlite()!.DatabaseSync)(dbOf(dir));
    other.exec('PRAGMA user_version = 99; DROP TABLE fts');
    other.close();
    expect(search(m, 'tokenizer').text).toBe(before);
    // The folder an older gctx kept its index in goes with it.
    mkdirSync(join(dir, '.GCC', '.local', 'cache', 'search'));
    writeFileSync(join(dir, '.GCC', '.local', 'cache', 'search', 'manifest.json'), '{}');
    rmSync(dbOf(dir));
    expect(search(m, 'tokenizer').text).toBe(before);
    expect(existsSync(join(dir, '.GCC', '.local', 'cache', 'search'))).toBe(false);
    await m.close();
  });

  it('refuses a symbolic link at the database or its journal, writing nothing where it leads', async () => {
    const { dir, m } = await memory();
    const outside = join(tempProject('gcc-outside-'), 'target');
    mkdirSync(join(dir, '.GCC', '.local', 'cache'), { recursive: true });
    for (const suffix of ['', '-wal']) {
      writeFileSync(outside, 'outside\n');
      rmSync(dbOf(dir), { force: true });
      symlinkSync(outside, dbOf(dir) + suffix);
      expect(() => search(m, 'tokenizer')).toThrow(/E_PATH_ESCAPE|symbolic link/);
      expect(readFileSync(outside, 'utf8')).toBe('outside\n');
      rmSync(dbOf(dir) + suffix);
    }
    expect(search(m, 'tokenizer').text).toMatch(/«[Tt]okenizer»/);
    await m.close();
  });

  it('a query that first feeds much of the history runs with the state let go, then has the same state back', async () => {
    const { dir, m } = await memory();
    await m.close();
    const again = await Memory.open(dir);
    const inner = again as unknown as {
      fold: { withoutState<T>(work: () => T): T };
      store: Store;
      finder: MemorySearch | null;
    };
    const before = JSON.stringify(again.state);
    let during = -1;
    const spare = <T>(work: () => T): T => inner.fold.withoutState(() => ((during = again.state.events), work()));
    inner.finder = new MemorySearch(
      storeLogs(inner.store),
      dir,
      join(dir, '.GCC', '.local', 'cache'),
      undefined,
      spare,
      0,
    );
    expect(search(again, 'tokenizer').text).toMatch(/«[Tt]okenizer»/);
    expect([during, JSON.stringify(again.state)]).toEqual([0, before]);
    during = -1;
    expect(search(again, 'granularity').text).toMatch(/try-lru/);
    expect(during).toBe(-1);
    await again.close();
  });

  it('pages: page 2 ranks lower and the first page says how to get it', async () => {
    const dir = tempProject('gcc-search-pages-');
    const m = await Memory.open(dir, { create: true });
    for (let i = 0; i < 25; i++)
      await m.execute({ type: 'log', observation: `retry attempt ${i}`, thought: 'retry again', action: 'wait' });
    const one = m.context({ level: 'search', text: 'retry', limit: 10 }, { budget: 4000 });
    expect(one.text).toMatch(/^25 matches/);
    expect(one.next).toEqual({ level: 'search', text: 'retry', limit: 10, page: 2 });
    expect(m.context(one.next!).text).toMatch(/page 2/);
    await m.close();
  });

  it('processes searching at once all get the full answer, and node:sqlite says nothing on stderr', async () => {
    const { dir, m } = await memory();
    for (let i = 0; i < 40; i++)
      await m.execute({
        type: 'log',
        observation: `pool note ${i}`,
        thought: 'connection pool sizing',
        action: 'measure',
      });
    await m.close();
    const runs = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
            const p = spawn(process.execPath, [CLI, 'search', 'pool sizing'], { cwd: dir });
            let out = '';
            let err = '';
            p.stdout.on('data', (d) => (out += d));
            p.stderr.on('data', (d) => (err += d));
            p.on('close', (code) => resolve({ code, out, err }));
          }),
      ),
    );
    for (const r of runs) expect(r).toMatchObject({ code: 0, out: expect.stringMatching(/^40 matches/), err: '' });
  });

  it("hides only node:sqlite's ExperimentalWarning", () => {
    const index = new URL('../../dist/context/search-index.js', import.meta.url).href;
    const code = `const { loadSqlite } = await import(${JSON.stringify(index)}); if (!loadSqlite()) process.exit(3); process.emitWarning('something else', 'ExperimentalWarning');`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/ExperimentalWarning: something else/);
    expect(r.stderr).not.toMatch(/SQLite/);
  });
});

// ---------------------------------------------------------------- over logs made here

let clock = 0;
const at = () => new Date(Date.UTC(2026, 0, 1) + clock * 1000).toISOString();
const ota = (observation: string): GccEvent => {
  clock++;
  return {
    id: `e${String(clock).padStart(8, '0')}`,
    at: at(),
    branch: 'main',
    type: 'ota.logged',
    data: { observation, thought: '', action: '' },
  } as unknown as GccEvent;
};
const commit = (title: string, contribution: string): GccEvent => {
  clock++;
  const id = `e${String(clock).padStart(8, '0')}`;
  return {
    id,
    at: at(),
    branch: 'main',
    type: 'commit.recorded',
    data: { id: `h${clock}`, label: `C${clock}`, title, contribution, next: '', files: [] },
  } as unknown as GccEvent;
};

/** Logs held here: their size and checksum from their text, as the store's ledger gives them. */
class Logs implements SearchLogs {
  readonly logs = new Map<string, GccEvent[]>();
  reads = 0;
  list() {
    const out = new Map<string, { size: number; sum: number }>();
    for (const [name, events] of this.logs) {
      const text = JSON.stringify(events);
      let sum = 0;
      for (let i = 0; i < text.length; i++) sum = (sum * 31 + text.charCodeAt(i)) | 0;
      out.set(name, { size: text.length, sum });
    }
    return out;
  }
  read(name: string, visit: (events: readonly GccEvent[]) => void) {
    this.reads++;
    const events = this.logs.get(name) ?? [];
    for (let i = 0; i < events.length; i += 3) visit(events.slice(i, i + 3));
  }
}

function engine(logs: SearchLogs, sqlite?: null): MemorySearch {
  const root = tempProject('gcc-search-logs-');
  const cache = join(root, '.GCC', '.local', 'cache');
  mkdirSync(cache, { recursive: true });
  return sqlite === null ? new MemorySearch(logs, root, cache, null) : new MemorySearch(logs, root, cache);
}
const ids = (r: SearchResult) => r.hits.map((h) => h.doc.id);
const find = (s: MemorySearch, text: string, limit = 20, page = 1) => s.search(text, { limit, page });

describe('ranking and query text', () => {
  const logs = new Logs();
  const filler = Array.from({ length: 8 }, (_, i) => ota(`unrelated entry number ${i}`));
  const body = commit('Something else', 'the parser got faster');
  const title = commit('Parser', 'something else got faster');
  const older = ota('the cache warms up');
  const newer = ota('the cache warms up');
  const stem = ota('we run it nightly');
  logs.logs.set('2026-01/a.md', [...filler, body, title, older, newer, stem]);
  const s = engine(logs);

  it('ranks a title above the same word in a body, and the newer of equals first', () => {
    expect(ids(find(s, 'parser'))).toEqual([title.id, body.id]);
    expect(ids(find(s, 'cache warms'))).toEqual([newer.id, older.id]);
  });

  it('stems, completes the last word from three letters, and marks matches with « »', () => {
    expect(ids(find(s, 'running'))).toEqual([stem.id]);
    expect(ids(find(s, 'nightl'))).toEqual([stem.id]);
    expect(find(s, 'nightl').hits[0]!.snippet).toBe('we run it «nightly»');
    expect(ids(find(s, 'ni'))).toEqual([]);
    expect(find(s, 'nightl cache').match).toBe('any');
  });

  it('never reads query text as FTS5 syntax', () => {
    for (const q of [
      '"',
      '""',
      'parser"',
      '"parser',
      'NEAR(parser cache)',
      'parser NEAR cache',
      'parser OR cache',
      'NOT parser',
      '*',
      'pars*',
      'title:parser',
      'body : x',
      '(parser',
      'parser)',
      '^parser',
      '-parser',
      '+',
      'a\u0000b',
      '\u0000',
      'x'.repeat(100_000),
      'parser '.repeat(5_000),
      '{title body}: parser',
      '🦀',
      '\u202eparser',
    ]) {
      expect(() => find(s, q), JSON.stringify(q.slice(0, 40))).not.toThrow();
    }
    expect(ids(find(s, '"parser"'))).toEqual([title.id, body.id]);
    expect(ids(find(s, '(parser)'))).toEqual([title.id, body.id]);
    expect(find(s, 'parser OR warms').match).toBe('any');
    expect(ids(find(s, 'title:parser'))).toEqual([]);
  });

  it("shows a snippet on one line, the text's own « » changed so that marks are only matches", () => {
    const l = new Logs();
    l.logs.set('2026-01/b.md', [ota('a «quoted» word\nand the\tkiwi \u001b[31mred\u202e')]);
    expect(find(engine(l), 'kiwi').hits[0]!.snippet).toBe('a ‹quoted› word and the «kiwi» [31mred');
  });
});

describe('feeding', () => {
  it('reads a log again only when it changed, and indexes only what was appended', () => {
    const logs = new Logs();
    logs.logs.set('2026-01/a.md', [ota('alpha one')]);
    logs.logs.set('2026-01/b.md', [ota('beta one')]);
    const s = engine(logs);
    expect(find(s, 'one').total).toBe(2);
    const reads = logs.reads;
    expect(find(s, 'one').total).toBe(2);
    expect(logs.reads).toBe(reads);
    logs.logs.get('2026-01/b.md')!.push(ota('beta two'));
    expect(find(s, 'beta').total).toBe(2);
    expect(logs.reads).toBe(reads + 1);
  });

  const WORDS = ['alpha', 'gamma', 'delta', 'run', 'running', 'ran'];
  const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
  const step = fc.oneof(
    fc.record({
      op: fc.constant('append' as const),
      log: fc.nat(2),
      texts: fc.array(text, { minLength: 1, maxLength: 4 }),
    }),
    fc.record({ op: fc.constant('replace' as const), log: fc.nat(2), texts: fc.array(text, { maxLength: 4 }) }),
    fc.record({ op: fc.constant('truncate' as const), log: fc.nat(2), keep: fc.nat(3) }),
    fc.record({ op: fc.constant('swap' as const), log: fc.nat(2) }),
    fc.record({ op: fc.constant('remove' as const), log: fc.nat(2) }),
  );

  it('fed after every change, the index answers as one built from nothing (property)', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 6 }), (steps) => {
        const logs = new Logs();
        const inc = engine(logs);
        for (const st of steps) {
          const name = `2026-01/log-${st.log}.md`;
          const events = logs.logs.get(name) ?? [];
          if (st.op === 'append') logs.logs.set(name, [...events, ...st.texts.map(ota)]);
          if (st.op === 'replace') logs.logs.set(name, st.texts.map(ota));
          if (st.op === 'truncate') logs.logs.set(name, events.slice(0, st.keep));
          // Same size, other content: alpha and gamma are as long.
          if (st.op === 'swap')
            logs.logs.set(
              name,
              events.map(
                (e) =>
                  JSON.parse(
                    JSON.stringify(e).replace(/alpha|gamma/g, (w) => (w === 'alpha' ? 'gamma' : 'alpha')),
                  ) as GccEvent,
              ),
            );
          if (st.op === 'remove') logs.logs.delete(name);
          const fresh = engine(logs);
          for (const q of [...WORDS, 'alpha run', 'gam']) expect(find(inc, q, 100)).toEqual(find(fresh, q, 100));
        }
      }),
      { numRuns: runs(6, 30) },
    );
  });
});

describe('without node:sqlite', () => {
  it('finds entries with every word as a substring, newest first, a page at a time, and says ranking needs a newer Node', () => {
    const logs = new Logs();
    const [a, b, c] = [ota('Parser rewrite started'), ota('the parser is done'), ota('unrelated')];
    logs.logs.set('2026-01/a.md', [a, b]);
    logs.logs.set('2026-02/b.md', [c, ota('PARSER tests pass')]);
    const s = engine(logs, null);
    const r = find(s, 'parser', 2);
    expect(r).toMatchObject({ total: 3, pages: 2, match: 'all', note: UNRANKED });
    expect(r.hits[0]!.snippet).toBe('«PARSER» tests pass');
    expect(ids(find(s, 'parser', 2, 2))).toEqual([a.id]);
    expect(ids(find(s, 'parser done', 2))).toEqual([b.id]);
    expect(find(s, 'NEAR(" *', 2).total).toBe(0);
    expect(existsSync(join(s['cache'], DB))).toBe(false);
  });
});
