/**
 * A stand-in for `gctx serve` in the page's browser test: node:http on 127.0.0.1:0 serving
 * dist/page and the HTTP contract (src/adapters/serve/page/contract.ts) from an in-memory
 * model, with the daemon's rules: a token that the first request trades for an HttpOnly
 * cookie, a loopback Host and same Origin, GET only. The history graph and the machine
 * diagrams are the real generators' output (src/diagrams), so the page is tested against
 * the Mermaid text gctx actually writes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type {
  BranchInfo,
  CommitItem,
  FileChange,
  LogItem,
  Overview,
  Page,
  SearchHit,
  SearchResult,
} from '../../../src/adapters/serve/page/contract.js';
import { gitGraphMermaid } from '../../support/gitgraph.js';
import { machineMermaid } from '../../../src/diagrams/mermaid.js';
import type { GccEvent, NewEvent } from '../../../src/events/types.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};
const START = Date.UTC(2026, 0, 5, 9, 0, 0);

/** The memory as the daemon would report it; tests change it "as another process would". */
export class MemoryModel {
  readonly overview: Overview;
  /** Oldest first; as the daemon's, an entry's id is its cursor, so cursors stay valid as entries arrive. */
  readonly commits: CommitItem[] = [];
  readonly log: LogItem[] = [];
  /** The history graph's source, served at /api/graph under the overview's graphTag. */
  graph = '';
  private readonly events: GccEvent[] = [];
  private clock = 0;

  constructor(project: string) {
    this.overview = {
      project,
      version: '0.1.0-test',
      events: 0,
      lastId: '',
      branch: 'main',
      objectives: [],
      milestones: [],
      branches: [],
      failed: [],
      graphTag: 'g-0',
      machines: {
        branch: machineMermaid('branch'),
        session: machineMermaid('session'),
      },
      sessions: [],
    };
    this.addBranchInfo('main', null, 'The trunk');
  }

  private now(): string {
    return new Date(START + ++this.clock * 60_000).toISOString();
  }

  /** Ids as the daemon's are: hex, ordered by time. */
  private nextId(): string {
    return (this.events.length + 1).toString(16).padStart(12, '0');
  }

  private append(branch: string, e: NewEvent, at: string): string {
    const id = this.nextId();
    this.events.push({ ...e, id, seq: this.events.length + 1, at, branch } as GccEvent);
    this.overview.events = this.events.length;
    this.overview.lastId = id;
    if (e.type !== 'tool.recorded') {
      this.graph = gitGraphMermaid(this.events);
      this.overview.graphTag = `g-${this.events.length}`;
    }
    return id;
  }

  private addBranchInfo(name: string, parent: string | null, purpose: string): BranchInfo {
    const b: BranchInfo = {
      name,
      parent,
      status: 'active',
      state: 'active',
      purpose,
      commits: 0,
      created: new Date(START).toISOString(),
      closed: null,
      reason: null,
      mergedInto: null,
    };
    this.overview.branches.push(b);
    return b;
  }

  branchInfo(name: string): BranchInfo {
    const b = this.overview.branches.find((x) => x.name === name);
    if (!b) throw new Error(`no branch ${name}`);
    return b;
  }

  branch(name: string, parent: string, purpose: string): void {
    const at = this.now();
    this.addBranchInfo(name, parent, purpose).created = at;
    const id = this.append('main', { type: 'branch.created', data: { name, parent, purpose, hypotheses: [] } }, at);
    this.log.push({ id, at, branch: name, kind: 'branch', text: `BRANCH ${name} from ${parent}: ${purpose}` });
  }

  commit(branch: string, title: string, contribution = `Did ${title}.`, files: FileChange[] = []): CommitItem {
    const at = this.now();
    const b = this.branchInfo(branch);
    b.commits += 1;
    const label = `C${String(b.commits).padStart(3, '0')}`;
    const hash = randomBytes(6).toString('hex');
    const id = this.append(
      branch,
      {
        type: 'commit.recorded',
        data: { id: hash, label, title, contribution, purpose: b.purpose, previous: '', files },
      },
      at,
    );
    const item: CommitItem = { id, label, hash, branch, at, title, contribution, files };
    this.commits.push(item);
    this.log.push({ id, at, branch, kind: 'commit', text: `COMMIT ${label} ${title}` });
    return item;
  }

  merge(branch: string, into: string): void {
    const at = this.now();
    const b = this.branchInfo(branch);
    Object.assign(b, { status: 'merged', state: 'merged', closed: at, mergedInto: into });
    const id = this.append(into, { type: 'branch.merged', data: { branch, into, commit: 'merge' } }, at);
    this.log.push({ id, at, branch: into, kind: 'merge', text: `MERGE ${branch} into ${into}` });
  }

  abandon(branch: string, reason: string): void {
    const at = this.now();
    Object.assign(this.branchInfo(branch), { status: 'abandoned', state: 'abandoned', closed: at, reason });
    const id = this.append(branch, { type: 'branch.abandoned', data: { branch, reason } }, at);
    this.overview.failed.unshift({ branch, reason, at });
    this.log.push({ id, at, branch, kind: 'abandon', text: `ABANDON ${branch}: ${reason}` });
  }

  tool(branch: string, text: string): void {
    const at = this.now();
    const id = this.append(
      branch,
      { type: 'tool.recorded', data: { tool: 'bash', input: text, result: '', isError: false, files: [] } },
      at,
    );
    this.log.push({ id, at, branch, kind: 'tool', text });
  }
}

/** One newest-first page of `all` (oldest first) older than the cursor, an event id, as the daemon pages. */
function pageOf<T extends { id: string; branch: string }>(all: readonly T[], url: URL): Page<T> {
  const branch = url.searchParams.get('branch');
  const before = url.searchParams.get('before');
  const limit = Math.min(Number(url.searchParams.get('limit') ?? 20) || 20, 100);
  const older = all.filter((item) => (before === null || item.id < before) && (!branch || item.branch === branch));
  const items = older.slice(-limit).reverse();
  return { items, next: older.length > limit ? items[items.length - 1]!.id : null };
}

const SEARCH_PAGE = 5;
function search(model: MemoryModel, url: URL): SearchResult {
  const words = (url.searchParams.get('q') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const matches = (text: string) => words.length > 0 && words.every((w) => text.toLowerCase().includes(w));
  // As the real search marks what matched: «word».
  const mark = (text: string) =>
    words.reduce((t, w) => t.replace(new RegExp(w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '«$&»'), text);
  const hits: SearchHit[] = [
    ...model.commits
      .filter((c) => matches(`${c.title} ${c.contribution}`))
      .map((c) => ({
        id: c.id,
        at: c.at,
        branch: c.branch,
        kind: 'commit',
        ref: c.label,
        title: c.title,
        snippet: mark(c.contribution),
        score: 2,
      })),
    ...model.log
      .filter((e) => e.kind !== 'commit' && matches(e.text))
      .map((e) => ({
        id: e.id,
        at: e.at,
        branch: e.branch,
        kind: e.kind,
        ref: null,
        title: null,
        snippet: mark(e.text),
        score: 1,
      })),
  ].sort((a, b) => (a.at < b.at ? 1 : -1));
  return {
    hits: hits.slice((page - 1) * SEARCH_PAGE, page * SEARCH_PAGE),
    total: hits.length,
    pages: Math.ceil(hits.length / SEARCH_PAGE),
  };
}

export interface FakeDaemon {
  /** The address `gctx serve` would print: it carries the token once. */
  openUrl: string;
  origin: string;
  model: MemoryModel;
  /** How many /events streams have been opened so far. */
  streamsOpened: () => number;
  /** Sends `event: memory` to every open stream, as the daemon does after any append. */
  announce: () => void;
  /** Ends every open stream, as a restarting daemon would. */
  dropStreams: () => void;
  /** Requests the daemon refused, as "METHOD path status". */
  refused: string[];
  close: () => Promise<void>;
}

export async function startFakeDaemon(pageDir: string, model: MemoryModel): Promise<FakeDaemon> {
  if (!existsSync(join(pageDir, 'index.html')))
    throw new Error(`${pageDir}/index.html is missing: run \`npm run build\` first`);
  const token = randomBytes(16).toString('hex');
  const streams = new Set<ServerResponse>();
  const refused: string[] = [];
  let opened = 0;
  let origin = '';

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number): void => {
    refused.push(`${req.method} ${req.url} ${status}`);
    res.writeHead(status, { 'Content-Type': 'text/plain' }).end(String(status));
  };
  const json = (res: ServerResponse, body: unknown): void => {
    res
      .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' })
      .end(JSON.stringify(body));
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (req.headers.host !== url.host || (req.headers.origin !== undefined && req.headers.origin !== origin))
      return refuse(req, res, 403);
    if (req.method !== 'GET') return refuse(req, res, 405);
    if (url.pathname === '/' && url.searchParams.get('token') === token) {
      res
        .writeHead(303, { 'Set-Cookie': `gcc_token=${token}; HttpOnly; SameSite=Strict; Path=/`, Location: '/' })
        .end();
      return;
    }
    const cookie = /(?:^|;\s*)gcc_token=([^;]*)/.exec(req.headers.cookie ?? '')?.[1];
    if (cookie !== token) return refuse(req, res, 401);

    if (url.pathname === '/api/overview') return json(res, model.overview);
    if (url.pathname === '/api/graph') return json(res, { tag: model.overview.graphTag, source: model.graph });
    if (url.pathname === '/api/commits') return json(res, pageOf(model.commits, url));
    if (url.pathname === '/api/log') return json(res, pageOf(model.log, url));
    if (url.pathname === '/api/search') return json(res, search(model, url));
    if (url.pathname === '/events') {
      opened += 1;
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      res.write(': connected\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    const file =
      url.pathname === '/'
        ? 'index.html'
        : url.pathname.startsWith('/assets/')
          ? normalize(url.pathname.slice(1))
          : null;
    if (file === null || file.includes('..') || !existsSync(join(pageDir, file))) return refuse(req, res, 404);
    const immutable = file !== 'index.html';
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    res.end(readFileSync(join(pageDir, file)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  return {
    openUrl: `${origin}/?token=${token}`,
    origin,
    model,
    streamsOpened: () => opened,
    announce: () => {
      const data = JSON.stringify({ events: model.overview.events, lastId: model.overview.lastId });
      for (const s of streams) s.write(`event: memory\ndata: ${data}\n\n`);
    },
    dropStreams: () => {
      for (const s of streams) s.destroy();
      streams.clear();
    },
    refused,
    close: () => {
      for (const s of streams) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
