/**
 * The page's API (src/adapters/serve/page/contract.ts) from the real daemon over a memory with
 * some history: the shapes, id cursors that stay put while others append, the graph's ETag,
 * errors as data, and /events announcing a commit another process made.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CommitItem,
  GraphSource,
  LogItem,
  MemoryEvent,
  Overview,
  Page,
  SearchResult,
} from '../../../src/adapters/serve/page/contract.js';
import { Memory } from '../../../src/engine/memory.js';
import { gctx } from '../../support/cli.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { json, raw, type Served, type ServeState, startServe, until } from './served.js';

const MAIN_COMMITS = 23;

async function seed(dir: string): Promise<void> {
  const m = await Memory.open(dir, { create: true });
  try {
    await m.execute({ type: 'roadmap', action: 'add', target: 'Serve the memory locally' });
    for (let i = 1; i <= MAIN_COMMITS; i++)
      await m.execute({
        type: 'commit',
        contribution: `Main work ${i}: the wombat parser step ${i}.`,
        title: `main ${i}`,
      });
    await m.execute({ type: 'branch', name: 'feature-x', purpose: 'Try the feature' });
    for (let i = 1; i <= 3; i++) await m.execute({ type: 'commit', contribution: `Feature work ${i}.` });
    await m.execute({ type: 'merge', branch: 'feature-x', synthesis: 'It worked: keep it.' });
    await m.execute({ type: 'branch', name: 'spike', purpose: 'A faster parser' });
    await m.execute({ type: 'abandon', branch: 'spike', reason: 'Too slow' });
    await m.execute({
      type: 'record-tool',
      tool: 'Bash',
      input: 'npm test',
      result: 'ok',
      isError: false,
      files: [],
      host: 'test',
    });
  } finally {
    m.close();
  }
}

/** Every page of a list, following `next`. */
async function all<T extends { id: string }>(
  state: ServeState,
  path: string,
  limit: number,
): Promise<{ items: T[]; pages: Page<T>[] }> {
  const pages: Page<T>[] = [];
  let before: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const p: Page<T> = await json<Page<T>>(state, `${path}${sep}limit=${limit}${before ? `&before=${before}` : ''}`);
    pages.push(p);
    before = p.next;
  } while (before !== null);
  return { items: pages.flatMap((p) => p.items), pages };
}

const descending = (ids: string[]) => ids.every((id, i) => i === 0 || ids[i - 1]! > id);

describe('gctx serve: the page API', () => {
  let dir: string;
  let d: Served;

  beforeAll(async () => {
    dir = tempProject('gcc-serve-api-');
    await seed(dir);
    d = await startServe(dir);
  });
  afterAll(async () => {
    await d?.stop();
    cleanup();
  });

  it('gives the overview from the folded state: branches with their machine state, roadmap, failed approaches', async () => {
    const o = await json<Overview>(d.state, '/api/overview');
    expect(o.project).toBe(dir.split('/').pop());
    expect(o.branch).toBe('main');
    expect(o.lastId).toMatch(/^[0-9a-f]+$/);
    expect(o.objectives).toEqual([{ n: 1, text: 'Serve the memory locally', done: false }]);
    expect(o.branches.map((b) => [b.name, b.state, b.status])).toEqual([
      ['main', 'active', 'active'],
      ['feature-x', 'merged', 'merged'],
      ['spike', 'abandoned', 'abandoned'],
    ]);
    expect(o.branches[1]).toMatchObject({ parent: 'main', commits: 3, mergedInto: 'main' });
    expect(o.failed).toEqual([expect.objectContaining({ branch: 'spike', reason: 'Too slow' })]);
    expect(o.graphTag).toMatch(/^g-/);
    expect(o.machines.branch).toContain('state "merged" as branch_merged');
    expect('graph' in o).toBe(false);
  });

  it('pages commits newest first by event-id cursors that stay put while others append', async () => {
    const first = await all<CommitItem>(d.state, '/api/commits', 10);
    // With the merge's synthesis commit and the abandon's record on main.
    const total = MAIN_COMMITS + 3 + 2;
    expect(first.items).toHaveLength(total);
    expect(descending(first.items.map((c) => c.id))).toBe(true);
    expect(first.pages.map((p) => p.items.length)).toEqual([10, 10, 8]);
    expect(first.pages[0]!.next).toBe(first.pages[0]!.items[9]!.id);
    expect(first.items.at(-1)).toMatchObject({ label: 'C001', title: 'main 1', branch: 'main' });
    expect(first.items[0]!.hash).toMatch(/^[0-9a-f]{7,}$/);

    // Another process commits: the first page grows, the older pages read the same.
    expect(gctx(dir, ['commit', 'arrived later', '--title', 'late']).code).toBe(0);
    const again = await json<Page<CommitItem>>(d.state, `/api/commits?limit=10&before=${first.pages[0]!.next}`);
    expect(again).toEqual(first.pages[1]);
    expect((await json<Page<CommitItem>>(d.state, '/api/commits?limit=1')).items[0]!.title).toBe('late');

    const feature = await all<CommitItem>(d.state, '/api/commits?branch=feature-x', 2);
    expect(feature.items.map((c) => c.contribution)).toEqual(['Feature work 3.', 'Feature work 2.', 'Feature work 1.']);
  });

  it("pages the log with kinds and the log view's text, without its time", async () => {
    const log = await all<LogItem>(d.state, '/api/log', 100);
    expect(descending(log.items.map((e) => e.id))).toBe(true);
    const kinds = new Set(log.items.map((e) => e.kind));
    for (const k of ['commit', 'branch', 'merge', 'abandon', 'tool', 'roadmap', 'memory'])
      expect(kinds, k).toContain(k);
    const tool = log.items.find((e) => e.kind === 'tool')!;
    expect(tool.text).toMatch(/^Bash npm test/);
    expect(log.items.find((e) => e.kind === 'memory')!.text).toBe('Memory initialized');
  });

  it("searches through CONTEXT's search, pages from 1, each hit with its event id", async () => {
    const r = await json<SearchResult>(d.state, '/api/search?q=wombat');
    expect(r.total).toBe(MAIN_COMMITS);
    expect(r.pages).toBe(3);
    expect(r.hits).toHaveLength(10);
    expect(r.hits[0]).toMatchObject({ kind: 'commit', branch: 'main' });
    expect(r.hits[0]!.id).toMatch(/^[0-9a-f]+$/);
    expect(r.hits[0]!.snippet).toContain('wombat');
    const last = await json<SearchResult>(d.state, '/api/search?q=wombat&page=3');
    expect(last.hits).toHaveLength(3);
    expect(await json<SearchResult>(d.state, '/api/search?q=nothing-like-this')).toEqual({
      hits: [],
      total: 0,
      pages: 0,
    });
  });

  it('answers mistakes as errors with a code and a fix', async () => {
    const cases: Array<[string, number, string]> = [
      ['/api/commits?branch=nope', 404, 'E_BRANCH_NOT_FOUND'],
      ['/api/log?limit=0', 400, 'E_INVALID_ARGUMENT'],
      ['/api/log?before=not-an-id', 400, 'E_INVALID_ARGUMENT'],
      ['/api/search?q=', 400, 'E_INVALID_ARGUMENT'],
      ['/api/search?q=x&page=0', 400, 'E_INVALID_ARGUMENT'],
    ];
    for (const [path, status, code] of cases) {
      const r = await raw(d.state, { path });
      expect(r.status, path).toBe(status);
      const body = JSON.parse(r.body) as { error: { code: string; fix?: string } };
      expect(body.error.code, path).toBe(code);
      expect(body.error.fix, path).toBeTruthy();
    }
  });

  it('sends the graph under an ETag, 304 while unchanged, a new one after a commit', async () => {
    const r = await raw(d.state, { path: '/api/graph' });
    const g = JSON.parse(r.body) as GraphSource;
    expect(r.headers.etag).toBe(`"${g.tag}"`);
    expect(g.source).toMatch(/^gitGraph\n/);
    expect(g.source).toContain('merge "feature-x"');
    expect((await json<Overview>(d.state, '/api/overview')).graphTag).toBe(g.tag);
    expect((await raw(d.state, { path: '/api/graph', headers: { 'If-None-Match': `"${g.tag}"` } })).status).toBe(304);
    // A logged tool call leaves the graph as it is.
    expect(
      gctx(
        dir,
        ['hook'],
        JSON.stringify({
          host: 'test',
          session: 's1',
          event: 'post-tool',
          tool: 'Bash',
          input: { command: 'ls' },
          result: 'a b',
        }),
      ).code,
    ).toBe(0);
    expect((await raw(d.state, { path: '/api/graph', headers: { 'If-None-Match': `"${g.tag}"` } })).status).toBe(304);
    expect(gctx(dir, ['commit', 'graph moves']).code).toBe(0);
    const moved = await raw(d.state, { path: '/api/graph', headers: { 'If-None-Match': `"${g.tag}"` } });
    expect(moved.status).toBe(200);
    expect(JSON.parse(moved.body).source).toContain('graph moves');
  });

  it('announces on /events what another process appended', async () => {
    let stream = '';
    const req = request({
      host: '127.0.0.1',
      port: d.state.port,
      path: '/events',
      headers: { Host: `127.0.0.1:${d.state.port}`, Authorization: `Bearer ${d.state.token}` },
      agent: false,
    });
    const opened = new Promise<{ type: string }>((resolve, reject) => {
      req.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => (stream += c));
        resolve({ type: String(res.headers['content-type']) });
      });
      req.on('error', reject);
    });
    req.end();
    try {
      expect((await opened).type).toContain('text/event-stream');
      await until('the stream to open', () => stream.includes(': connected'));
      expect(gctx(dir, ['commit', 'seen live']).code).toBe(0);
      const now = await json<Overview>(d.state, '/api/overview');
      const frame = await until('event: memory', () => /event: memory\ndata: (.*)\n\n/.exec(stream));
      const data = JSON.parse(frame[1]!) as MemoryEvent;
      expect(data.events).toBeLessThanOrEqual(now.events);
      await until('the announcement of the new count', () => stream.includes(`"events":${now.events}`));
    } finally {
      req.destroy();
    }
  });
});
