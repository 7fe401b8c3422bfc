/**
 * Search over a memory: the ranked index (context/search-index.ts) kept under
 * `.GCC/.local/cache/search/`, one shard per segment, fed from the segments before each query.
 *
 * What was fed is remembered per segment as its size and checksum from the ledger (fed.json):
 * a segment that did not change since is not read again, so a query after one more tool call
 * reads the open segment only. A segment that changed is read a window at a time and its new
 * documents added; one whose documents no longer extend what was indexed (git replaced it, a
 * repair rewrote it) is dropped and indexed again. Everything here is a cache: lost or damaged, it is
 * rebuilt from the logs, and a failure to write it costs the next query time, never a result.
 *
 * Two processes feeding the same cache would interleave its manifest: feeding holds a lock of
 * its own (not the memory's, so a long first indexing never holds up writers).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SearchDoc, SearchIndex, type SearchKind, type SearchResult } from '../context/search-index.js';
import type { GccEvent } from '../events/types.js';
import { FileLock } from '../store/lock.js';
import { assertNoSymlink } from '../store/paths.js';
import { LOCAL, type Store } from '../store/store.js';
import { writeTextAtomic } from '../store/text-file.js';

const FED = 'fed.json';
/**
 * The feed's record format, and with it what docsOf yields for an event: bump it when docsOf
 * changes, and every segment is indexed again (a cache fed by an older gctx lacks what it adds).
 * 2: a merge's learned text is searchable. 3: so are the lines people write under main.md's Notes.
 */
const FED_FORMAT = 3;
/**
 * Bytes of segments to index beyond which a query runs with the memory's state let go (and
 * folded again after): a first index of a long history reads it all, and the state it does not
 * need would otherwise stay live through it, and V8 sizes the heap by what is live.
 */
const LEND_STATE_BYTES = 64 * 1024 * 1024;

interface Fed {
  size: number;
  crc: number;
  docs: number;
}

/**
 * The documents an event yields: what a reader would look for later — every field a person
 * wrote (a commit's title, contribution and next step; a merge's synthesis and what was learned;
 * a branch's purpose and hypotheses; an abandon's reason; what an edit added to main.md's Notes), not what gctx derives from them (a
 * merge's "what was tried" lists the branch's purpose and commit titles, found where they were
 * written). Ids stay unique per shard. Changing what it yields: bump FED_FORMAT.
 */
export function docsOf(shard: string, e: GccEvent): SearchDoc[] {
  const base = { shard, branch: e.branch, at: e.at };
  switch (e.type) {
    case 'commit.recorded': {
      const d = e.data;
      // ABANDON's record on the parent repeats the branch's reason, found once as branch.abandoned.
      if (d.abandon) return [];
      const kind: SearchKind = d.merge ? 'synthesis' : 'commit';
      const files = d.files.map((f) => f.path).join(' ');
      // What is integrated is the contribution; what was learned defaults to it (said once).
      const learned = d.merge && d.merge.learned.trim() && d.merge.learned !== d.contribution ? `Learned: ${d.merge.learned}` : '';
      const text = [d.contribution, learned, d.next ? `Next: ${d.next}` : '', files].filter(Boolean).join('\n');
      return [{ ...base, id: e.id, kind, ref: d.label, title: d.title, hash: d.id, text }];
    }
    case 'branch.created':
      return [
        { ...base, id: e.id, kind: 'purpose', ref: e.data.name, title: e.data.name, text: e.data.purpose },
        ...e.data.hypotheses.map((h, i) => ({ ...base, id: `${e.id}.h${i}`, kind: 'hypothesis' as const, ref: e.data.name, text: h })),
      ];
    case 'ota.logged':
      return [{ ...base, id: e.id, kind: 'log', text: [e.data.observation, e.data.thought, e.data.action].filter(Boolean).join('\n') }];
    case 'tool.recorded': {
      const files = e.data.files.map((f) => f.path).join(' ');
      return [{ ...base, id: e.id, kind: 'tool', ref: e.data.tool, text: [e.data.input, e.data.result, files].filter(Boolean).join('\n') }];
    }
    case 'objective.added':
    case 'objective.edited':
      return [{ ...base, id: e.id, kind: 'objective', text: e.data.text }];
    case 'branch.abandoned':
      return [{ ...base, id: e.id, kind: 'abandon', ref: e.data.branch, text: e.data.reason }];
    case 'notes.patched': {
      // What the edit added to main.md's Notes: the patch's added lines.
      const added = e.data.patch.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1));
      return added.some((l) => l.trim()) ? [{ ...base, id: e.id, kind: 'notes', text: added.join('\n') }] : [];
    }
    default:
      return [];
  }
}

function readFed(path: string): Map<string, Fed> {
  const out = new Map<string, Fed>();
  try {
    const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!raw || typeof raw !== 'object' || (raw as { format?: unknown }).format !== FED_FORMAT) return out;
    const shards = (raw as { shards?: unknown }).shards;
    if (!Array.isArray(shards)) return out;
    for (const s of shards) {
      if (!Array.isArray(s) || typeof s[0] !== 'string' || ![s[1], s[2], s[3]].every((n) => Number.isSafeInteger(n) && n >= 0)) continue;
      out.set(s[0], { size: s[1], crc: s[2], docs: s[3] });
    }
  } catch {
    // None yet, unreadable, or fed by another docsOf (format): every segment is looked at again.
  }
  return out;
}

export interface SearchOpts {
  limit: number;
  page: number;
  branch?: string;
  kinds?: SearchKind[];
}

/** Searches one memory. */
export class MemorySearch {
  private readonly dir: string;

  /**
   * @param spare runs a query that indexes much of the history with the opened memory's state
   * let go; by default the query just runs.
   * @param spareAbove how many bytes of segments still to index make a query use `spare`.
   * @param apart builds the index in another process instead, when given; true when it did.
   */
  constructor(
    private readonly store: Store,
    cache: string,
    private readonly spare: <T>(work: () => T) => T = (work) => work(),
    private readonly spareAbove = LEND_STATE_BYTES,
    private readonly apart?: () => boolean,
  ) {
    this.dir = join(cache, 'search');
  }

  /** Bring the index up to every segment the ledger acknowledges, then rank. */
  search(text: string, o: SearchOpts): SearchResult {
    // The cache's folder (and .local/, cache/ above it) a link — one committed under .GCC/.local/
    // is checked out like any file — would take its lock, manifest, parts and the removal of
    // stray parts wherever it leads: refused, as every path under .GCC/ is.
    assertNoSymlink(this.store.layout.root, this.dir);
    mkdirSync(this.dir, { recursive: true });
    const query = () => this.query(text, o);
    const unfed = this.unfed();
    if (unfed <= this.spareAbove) {
      if (unfed > 0) this.store.longPass?.();
      return query();
    }
    // What the other process could not do (none could start, it failed) is done here.
    if (this.apart?.() && this.unfed() <= this.spareAbove) return query();
    this.store.longPass?.();
    return this.spare(query);
  }

  /** Bytes of segments the index has not been fed as they stand: a guess, read without the lock, of the work ahead. */
  private unfed(): number {
    const fed = readFed(join(this.dir, FED));
    let bytes = 0;
    for (const [name, entry] of Object.entries(this.store.ledger.logs)) if (name !== LOCAL && fed.get(name)?.size !== entry.size) bytes += entry.size;
    return bytes;
  }

  private query(text: string, o: SearchOpts): SearchResult {
    const lock = new FileLock(join(this.dir, 'lock'));
    lock.acquireSync({ timeoutMs: 300_000 });
    let idx: SearchIndex;
    try {
      // Another process may have fed the cache since: a fresh view of it, not this one's old one.
      idx = new SearchIndex(this.dir);
      this.feed(idx);
    } finally {
      lock.release();
    }
    return idx.search(text, { limit: o.limit, page: o.page, ...(o.branch ? { branch: o.branch } : {}), ...(o.kinds ? { kinds: o.kinds } : {}) });
  }

  /**
   * Add a segment's documents from the `from`-th on, a window of events at a time: a window's
   * documents are indexed before the next is read, so nothing of the segment outlives its
   * window. Returns how many documents the segment yields.
   */
  private feedSegment(idx: SearchIndex, name: string, from: number): number {
    let seen = 0;
    this.store.file(name).scan((events) => {
      const docs = events.flatMap((e) => docsOf(name, e));
      const skip = Math.max(0, from - seen);
      seen += docs.length;
      if (skip < docs.length) idx.add(name, skip ? docs.slice(skip) : docs);
    });
    return seen;
  }

  private feed(idx: SearchIndex): void {
    const path = join(this.dir, FED);
    const fed = readFed(path);
    // The acknowledged segments.
    const logs: Record<string, { size: number; crc: number }> = { ...this.store.ledger.logs };
    const names = Object.keys(logs).filter((n) => n !== LOCAL);
    idx.retain(new Set(names));
    let changed = false;
    for (const name of names) {
      const entry = logs[name]!;
      const was = fed.get(name);
      if (was && was.size === entry.size && was.crc === entry.crc && idx.count(name) === was.docs) continue;
      let from = idx.count(name);
      if (!was || was.size > entry.size) {
        idx.drop(name);
        from = 0;
      }
      let docs = this.feedSegment(idx, name, from);
      if (docs < from) {
        // The index holds more than the segment now does: it was replaced, not extended.
        idx.drop(name);
        docs = this.feedSegment(idx, name, 0);
      }
      fed.set(name, { size: entry.size, crc: entry.crc, docs });
      changed = true;
    }
    for (const name of fed.keys()) {
      if (!(name in logs)) {
        fed.delete(name);
        changed = true;
      }
    }
    if (!changed) return;
    // A cache that cannot be written is rebuilt by the next query.
    if (idx.flush()) return;
    try {
      writeTextAtomic(path, JSON.stringify({ format: FED_FORMAT, shards: [...fed].map(([n, f]) => [n, f.size, f.crc, f.docs]) }));
    } catch {
      /* the next query looks at every segment again */
    }
  }
}
