/**
 * Search over a memory: the SQLite index (context/search-index.ts) at
 * `.GCC/.local/cache/search.db`, a cache derived from the logs and fed before each query.
 *
 * Per log it remembers the size and checksum it was fed at, how many events that was and the
 * last one's id. A log unchanged since is not read; one that grew is read and only its events
 * past the remembered ones indexed; one that shrank, vanished, changed at the same size, or no
 * longer holds the remembered last event where it was, has its documents deleted and is
 * indexed again. Each log is fed in one transaction under SQLite's write lock, so processes
 * feeding at once never index an event twice, and a segment (~1 MiB) bounds what one holds.
 *
 * Lost, of another format or damaged (any SQLite error), the database is deleted and rebuilt.
 * Where Node has no `node:sqlite` the search is a plain scan of the events (search-scan.ts).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  type LogRow,
  loadSqlite,
  type SearchDoc,
  SearchIndex,
  type SearchKind,
  type SearchResult,
  type Sqlite,
} from '../context/search-index.js';
import { scanSearch } from '../context/search-scan.js';
import { normalizeLine } from '../decider/objectives.js';
import type { GccEvent } from '../events/types.js';
import { assertNoSymlink } from '../store/paths.js';
import { LOCAL, type Store } from '../store/store.js';

export const DB = 'search.db';
const SIDECARS = ['-wal', '-shm', '-journal'];
export const REBUILT = 'the search index was unreadable and has been rebuilt from the logs';
/**
 * Bytes of logs to feed beyond which a query runs with the memory's state let go: a first
 * index of a long history reads it all, and V8 sizes the heap by what is live.
 */
const SPARE_BYTES = 64 * 1024 * 1024;

/** What search needs of the store: the logs with their size and checksum, and one log's events. */
export interface SearchLogs {
  /** Every log to index: name → size in bytes and a checksum of its content. */
  list(): Map<string, { size: number; sum: number }>;
  /** One log's events, oldest first, a window at a time. */
  read(name: string, visit: (events: readonly GccEvent[]) => void): void;
}

/** The seam over the store: the acknowledged segments. */
export function storeLogs(store: Store): SearchLogs {
  return {
    list() {
      const out = new Map<string, { size: number; sum: number }>();
      for (const [name, e] of Object.entries(store.ledger.logs))
        if (name !== LOCAL) out.set(name, { size: e.size, sum: e.crc });
      return out;
    },
    read: (name, visit) => store.file(name).scan(visit),
  };
}

/** The line a commit's title shows, left out of its text so a hit says it once (the rest of a clipped line kept). */
export function beyondTitle(text: string, title: string): string {
  const body = text.trimStart();
  const nl = body.indexOf('\n');
  const first = normalizeLine(nl === -1 ? body : body.slice(0, nl));
  const rest = nl === -1 ? '' : body.slice(nl + 1);
  const colon = title.indexOf(': ');
  for (const shown of colon === -1 ? [title] : [title, title.slice(colon + 2)]) {
    if (first && shown === first) return rest;
    const head = shown.endsWith('…') ? shown.slice(0, -1) : '';
    if (first && head && first.startsWith(head)) return `…${first.slice(head.length)}${rest ? `\n${rest}` : ''}`;
  }
  return text;
}

/**
 * The documents an event yields: every field a person wrote (a commit's title, contribution and
 * next step; a merge's synthesis and what was learned; a branch's purpose and hypotheses; an
 * abandon's reason; what an edit added to main.md's Notes), not what gctx derives from them.
 * Changing what it yields: bump SEARCH_FORMAT.
 */
export function docsOf(e: GccEvent): SearchDoc[] {
  const base = { branch: e.branch, at: e.at };
  switch (e.type) {
    case 'commit.recorded': {
      const d = e.data;
      // ABANDON's record on the parent repeats the branch's reason, found once as branch.abandoned.
      if (d.abandon) return [];
      const kind: SearchKind = d.merge ? 'synthesis' : 'commit';
      // What was learned defaults to what is integrated: said once.
      const learned =
        d.merge && d.merge.learned.trim() && d.merge.learned !== d.contribution ? `Learned: ${d.merge.learned}` : '';
      const files = d.files.map((f) => f.path).join(' ');
      const text = [beyondTitle(d.contribution, d.title), learned, d.next ? `Next: ${d.next}` : '', files]
        .filter(Boolean)
        .join('\n');
      return [{ ...base, id: e.id, kind, ref: d.label, title: d.title, hash: d.id, text }];
    }
    case 'branch.created':
      return [
        { ...base, id: e.id, kind: 'purpose', ref: e.data.name, title: e.data.name, text: e.data.purpose },
        ...e.data.hypotheses.map((h, i) => ({
          ...base,
          id: `${e.id}.h${i}`,
          kind: 'hypothesis' as const,
          ref: e.data.name,
          text: h,
        })),
      ];
    case 'ota.logged':
      return [
        {
          ...base,
          id: e.id,
          kind: 'log',
          text: [e.data.observation, e.data.thought, e.data.action].filter(Boolean).join('\n'),
        },
      ];
    case 'tool.recorded': {
      const files = e.data.files.map((f) => f.path).join(' ');
      return [
        {
          ...base,
          id: e.id,
          kind: 'tool',
          ref: e.data.tool,
          text: [e.data.input, e.data.result, files].filter(Boolean).join('\n'),
        },
      ];
    }
    case 'objective.added':
    case 'objective.edited':
      return [{ ...base, id: e.id, kind: 'objective', text: e.data.text }];
    case 'branch.abandoned':
      return [{ ...base, id: e.id, kind: 'abandon', ref: e.data.branch, text: e.data.reason }];
    case 'notes.patched': {
      const added = e.data.patch
        .split('\n')
        .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
        .map((l) => l.slice(1));
      return added.some((l) => l.trim()) ? [{ ...base, id: e.id, kind: 'notes', text: added.join('\n') }] : [];
    }
    default:
      return [];
  }
}

/** SQLite's own failures (node:sqlite's errors), as opposed to the store's. */
function sqliteFailure(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown };
  // Busy or locked: another process holds it; a damaged database is something else.
  return e?.code === 'ERR_SQLITE_ERROR' && e.errcode !== 5 && e.errcode !== 6;
}

/** Logs to feed (name, what they are now), or to forget (null). */
type Stale = [string, { size: number; sum: number } | null][];

/** Searches one memory. */
export class MemorySearch {
  private readonly path: string;
  private readonly sqlite: Sqlite | null;

  /**
   * @param root the project (the db's path is checked for links from there).
   * @param cache the cache folder under `.GCC/.local/`.
   * @param sqlite Node's `node:sqlite`, or null for the scan without it.
   * @param spare runs a query that first feeds much of the history (the memory's state let go).
   * @param spareAbove how many bytes of logs to feed make it much.
   */
  constructor(
    private readonly logs: SearchLogs,
    private readonly root: string,
    private readonly cache: string,
    sqlite: Sqlite | null = loadSqlite(),
    private readonly spare: <T>(work: () => T) => T = (work) => work(),
    private readonly spareAbove = SPARE_BYTES,
  ) {
    this.path = join(cache, DB);
    this.sqlite = sqlite;
  }

  search(text: string, o: { limit: number; page: number }): SearchResult {
    if (!this.sqlite) return scanSearch(text, o.limit, o.page, (visit) => this.newestFirst(visit));
    this.refuseLinks();
    mkdirSync(this.cache, { recursive: true });
    try {
      return this.ranked(this.sqlite, text, o);
    } catch (err) {
      if (!sqliteFailure(err)) throw err;
      this.remove();
      return { ...this.ranked(this.sqlite, text, o), note: REBUILT };
    }
  }

  private ranked(sqlite: Sqlite, text: string, o: { limit: number; page: number }): SearchResult {
    // gctx before this one kept an index of its own in cache/search/: gone with the first database.
    if (!existsSync(this.path)) rmSync(join(this.cache, 'search'), { recursive: true, force: true });
    let idx = SearchIndex.open(sqlite, this.path);
    if (!idx) {
      this.remove();
      idx = SearchIndex.open(sqlite, this.path)!;
    }
    try {
      const { stale, bytes } = this.stale(idx);
      const work = () => (this.feed(idx, stale), idx.search(text, o.limit, o.page));
      return bytes > this.spareAbove ? this.spare(work) : work();
    } finally {
      idx.close();
    }
  }

  /** A link at the database or beside it would have SQLite write wherever it leads. */
  private refuseLinks(): void {
    const folders = new Set<string>();
    for (const s of ['', ...SIDECARS]) assertNoSymlink(this.root, this.path + s, folders);
  }

  private remove(): void {
    for (const s of ['', ...SIDECARS]) rmSync(this.path + s, { force: true });
  }

  /**
   * The logs the index has not been fed as they stand, in name order (segments are named by time: the last indexed are
   * the newest).
   */
  private stale(idx: SearchIndex): { stale: Stale; bytes: number } {
    const want = this.logs.list();
    const had = idx.logs();
    const stale: Stale = [...want]
      .filter(([name, w]) => had.get(name)?.size !== w.size || had.get(name)?.sum !== w.sum)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    for (const name of had.keys()) if (!want.has(name)) stale.push([name, null]);
    return { stale, bytes: stale.reduce((n, [, w]) => n + (w?.size ?? 0), 0) };
  }

  private feed(idx: SearchIndex, stale: Stale): void {
    for (const [name, w] of stale) idx.write(() => (w ? this.feedLog(idx, name, w) : idx.drop(name)));
  }

  /** Bring one log's documents to what it holds now, inside the write lock. */
  private feedLog(idx: SearchIndex, name: string, now: { size: number; sum: number }): void {
    const was = idx.log(name);
    // Another process fed it meanwhile.
    if (was && was.size === now.size && was.sum === now.sum) return;
    // Grown since: index past the remembered events, if the last of them is still where it was.
    let from = was && was.size < now.size ? was.events : 0;
    if (!from) idx.drop(name);
    for (;;) {
      const row = this.index(idx, name, from, was?.last ?? '');
      if (row) return idx.setLog(name, { ...row, size: now.size, sum: now.sum });
      idx.drop(name);
      from = 0;
    }
  }

  /** Index a log's events from the `from`-th; null when its event `from - 1` is not `last` (the log was replaced). */
  private index(idx: SearchIndex, name: string, from: number, last: string): Omit<LogRow, 'size' | 'sum'> | null {
    let n = 0;
    let id = '';
    let replaced = false;
    this.logs.read(name, (events) => {
      for (const e of events) {
        if (n === from - 1 && e.id !== last) replaced = true;
        if (n >= from && !replaced) for (const d of docsOf(e)) idx.add(name, d);
        n++;
        id = e.id;
      }
    });
    return replaced || n < from ? null : { events: n, last: id };
  }

  /** Every document, newest log first and newest first within a log (one log held at a time). */
  private newestFirst(visit: (d: SearchDoc) => boolean): void {
    for (const name of [...this.logs.list().keys()].sort().reverse()) {
      const events: GccEvent[] = [];
      this.logs.read(name, (batch) => events.push(...batch));
      for (let i = events.length - 1; i >= 0; i--) for (const d of docsOf(events[i]!).reverse()) if (!visit(d)) return;
    }
  }
}
