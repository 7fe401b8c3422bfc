/**
 * Ranked full-text search over a memory's history, kept as a cache beside it.
 *
 * The index is sharded like the store: one shard per segment, each cut into parts of at
 * most PART_DOCS documents or PART_TERMS terms, one MiniSearch index per part in its own
 * file (search-part.ts), plus a manifest naming the shards and their parts
 * (search-manifest.ts). A full part is written once; only a shard's last part changes as
 * its segment grows. The engine feeds documents (it knows the segments); this module never
 * reads the store.
 *
 * Memory: a query visits the parts one at a time, newest shard first, and lets go of each
 * before loading the next, keeping only a bounded pool of candidates (search-rank.ts); its
 * peak is one part plus the pool whatever the history's length. Feeding holds at most
 * MAX_OPEN shards' last parts and writes out the least recently fed beyond that.
 *
 * Everything on disk is untrusted: a missing, cut, malformed, foreign or wrong-version
 * manifest or part file is ignored, and its shard then counts 0 documents so the engine
 * feeds it again. Shard names and document fields are only ever keys of Maps.
 */
import { mkdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type MiniSearch from 'minisearch';
import { miniSearchLib } from '../runtime/lazy-deps.js';
import { asGccError, type GccError, gccError } from '../errors.js';
import { writeTextAtomic } from '../store/text-file.js';
import { MANIFEST, MAX_SHARD_NAME, type PartInfo, partFile, readManifest, removeStrays, writeManifest } from './search-manifest.js';
import { type Candidate, Gather } from './search-rank.js';
import { FIELDS, type IndexedDoc, MAX_ID, MAX_PART_DOCS, MINI_OPTIONS, type Plain, readPart, readPartHeader, readPartTexts, SEARCH_KINDS, serializePart } from './search-part.js';
import { makeSnippet } from './search-snippet.js';
import { queryTerms } from './search-terms.js';
import type { SearchDoc, SearchHit, SearchIndexOptions, SearchOptions, SearchResult, ShardEvent } from './search-types.js';

export { SEARCH_KINDS, type SearchKind } from './search-part.js';
export type { MatchMode } from './search-rank.js';
export { partFile } from './search-manifest.js';
export type { SearchDoc, SearchHit, SearchIndexOptions, SearchOptions, SearchResult, ShardEvent } from './search-types.js';

/**
 * A part is full at PART_DOCS documents or PART_TERMS distinct terms, whichever comes first.
 * Loading a part costs memory for every distinct term in it (MiniSearch keeps a radix-tree
 * node and two Maps per term, and the parsed JSON holds two objects per term), so the term
 * budget is what bounds a query's working set: about 10 MB of heap per part. The document
 * cap keeps headers and rewrites of the open part small when the text is repetitive.
 */
export const PART_DOCS = 256;
export const PART_TERMS = 6_000;
/** termCount walks MiniSearch's tree after each change: it is checked every this many documents. */
const TERM_CHECK = 16;
/** Text indexed per document, in UTF-16 units (~2,000 tokens); the rest is not searchable. */
export const TEXT_LIMIT = 8_000;
export const TITLE_LIMIT = 500;
const REF_LIMIT = 200;
/** The deepest rank a query keeps (pages beyond it are not served). */
export const MAX_RANKED = 2_000;
/** Shards held for feeding: the open segment and one being rebuilt. */
const MAX_OPEN = 2;

/** A shard held for feeding: its full parts on disk, and its last part in memory. */
interface Open {
  sealed: PartInfo[];
  /** Ids in the full parts, so a document fed twice is recognised without reading them. */
  known: Set<string>;
  ms: MiniSearch<IndexedDoc>;
  texts: Map<string, string>;
  dirty: boolean;
  /** Its stored copy was unreadable: documents are refused until count() has said 0. */
  lost: boolean;
  plain: Plain | null;
}

const emptyOpen = (lost = false): Open => ({ sealed: [], known: new Set(), ms: new (miniSearchLib())<IndexedDoc>(MINI_OPTIONS), texts: new Map(), dirty: false, lost, plain: null });

/** Cut at a word boundary near `limit`, never inside a surrogate pair; marks the cut with `…`. */
export function bound(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const space = text.lastIndexOf(' ', limit);
  if (space > limit - 200) end = space;
  else if (/[\udc00-\udfff]/.test(text[end] ?? '')) end--;
  return `${text.slice(0, end)} …`;
}

export class SearchIndex {
  private entries: Map<string, PartInfo[]> | null = null;
  private readonly open = new Map<string, Open>();
  private readonly forgotten = new Set<string>();
  private manifestDirty = false;
  private sweep = false;
  private readonly observe: ((e: ShardEvent) => void) | undefined;
  private readonly partDocs: number;
  private readonly partTerms: number;

  constructor(
    private readonly dir: string,
    opts: SearchIndexOptions = {},
  ) {
    this.observe = opts.observe;
    this.partDocs = Math.min(MAX_PART_DOCS, Math.max(1, Math.floor(opts.partDocs ?? PART_DOCS) || PART_DOCS));
    this.partTerms = Math.max(1, Math.floor(opts.partTerms ?? PART_TERMS) || PART_TERMS);
  }

  private full(ms: MiniSearch<IndexedDoc>, always = false): boolean {
    const docs = ms.documentCount;
    return docs >= this.partDocs || ((always || docs % TERM_CHECK === 0) && docs > 0 && ms.termCount >= this.partTerms);
  }

  private get manifest(): Map<string, PartInfo[]> {
    if (!this.entries) {
      const read = readManifest(join(this.dir, MANIFEST));
      // No manifest (or a bad one) while part files may exist: clear them on the next flush.
      this.sweep = !read;
      this.entries = read ?? new Map();
    }
    return this.entries;
  }

  private path(shard: string, part: number): string {
    return join(this.dir, partFile(shard, part));
  }

  /** How many parts of a shard have (or will have) a file. */
  private partCount(shard: string): number {
    const o = this.open.get(shard);
    if (o) return o.sealed.length + (o.ms.documentCount ? 1 : 0);
    return this.manifest.get(shard)?.length ?? 0;
  }

  private forget(shard: string): void {
    const parts = Math.max(this.partCount(shard), this.manifest.get(shard)?.length ?? 0);
    this.open.delete(shard);
    if (this.manifest.delete(shard)) this.manifestDirty = true;
    this.forgotten.add(shard);
    for (let p = 0; p < parts; p++) {
      try {
        unlinkSync(this.path(shard, p));
      } catch {
        // Already gone: the manifest no longer names it either way.
      }
    }
  }

  /** A shard's stored parts, made ready for feeding; a lost one when any of them is unreadable. */
  private load(shard: string, parts: readonly PartInfo[]): Open {
    const o = emptyOpen();
    for (const [p, info] of parts.entries()) {
      let ids: Iterable<string>;
      if (p === parts.length - 1) {
        // The last part is the one still growing, unless it is full already.
        const data = readPart(this.path(shard, p), shard, p, true);
        if (!data?.texts || data.ms.documentCount !== info.docs) return emptyOpen(true);
        if (!this.full(data.ms, true)) {
          o.ms = data.ms;
          o.texts = data.texts;
          break;
        }
        ids = data.texts.keys();
      } else {
        const h = readPartHeader(this.path(shard, p), shard, p);
        if (!h || h.docs !== info.docs) return emptyOpen(true);
        ids = h.ids;
      }
      for (const id of ids) o.known.add(id);
      o.sealed.push(info);
    }
    return o;
  }

  /** The shard held for feeding, loaded from its files when the manifest lists it. */
  private held(shard: string): Open {
    let o = this.open.get(shard);
    if (o) {
      this.open.delete(shard); // re-inserted below: the Map's order is least recently fed first
    } else {
      const parts = this.manifest.get(shard);
      o = parts ? this.load(shard, parts) : emptyOpen();
      if (o.lost) this.forget(shard);
    }
    this.open.set(shard, o);
    for (const [name] of this.open) {
      if (this.open.size <= MAX_OPEN) break;
      if (name !== shard) this.release(name);
    }
    return o;
  }

  /** Write a held shard out (if changed) and stop holding it. */
  private release(shard: string): void {
    const o = this.open.get(shard);
    this.open.delete(shard);
    if (o?.dirty) this.save(shard, o);
  }

  /** Write the last part of a held shard; when it is full, seal it and start the next. */
  private save(shard: string, o: Open): GccError | null {
    const docs = o.ms.documentCount;
    if (!docs) return null;
    try {
      mkdirSync(this.dir, { recursive: true });
      const parts = serializePart(shard, o.sealed.length, o.ms, o.texts);
      writeTextAtomic(this.path(shard, o.sealed.length), parts);
      const info = { docs, bytes: parts.reduce((n, p) => n + Buffer.byteLength(p), 0) };
      this.manifest.set(shard, [...o.sealed, info]);
      this.forgotten.delete(shard);
      this.manifestDirty = true;
      o.dirty = false;
      if (this.full(o.ms, true)) {
        o.sealed.push(info);
        for (const id of o.texts.keys()) o.known.add(id);
        o.ms = new (miniSearchLib())<IndexedDoc>(MINI_OPTIONS);
        o.texts = new Map();
        o.plain = null;
      }
      return null;
    } catch (err) {
      // Not written: the shard counts 0 and will be fed again.
      this.forget(shard);
      return asGccError(err);
    }
  }

  /**
   * Add documents of one shard, in the shard's order, starting at count(shard). Idempotent by
   * id. Returns count(shard) after: when it is less than expected, feed again from there.
   */
  add(shard: string, docs: readonly SearchDoc[]): number {
    if (typeof shard !== 'string' || !shard || shard.length > MAX_SHARD_NAME) {
      throw gccError('E_INVALID_ARGUMENT', `bad search shard name ${JSON.stringify(String(shard).slice(0, 80))}`, `a segment name of 1–${MAX_SHARD_NAME} characters`);
    }
    const o = this.held(shard);
    if (o.lost) return 0;
    for (const d of docs) {
      if (typeof d.id !== 'string' || !d.id || d.id.length > MAX_ID || o.known.has(d.id) || o.ms.has(d.id) || !SEARCH_KINDS.includes(d.kind)) continue;
      const text = bound(String(d.text ?? ''), TEXT_LIMIT);
      const doc: IndexedDoc = { id: d.id, branch: String(d.branch), kind: d.kind, at: String(d.at), text };
      if (d.ref !== undefined) doc.ref = bound(String(d.ref), REF_LIMIT);
      if (d.title !== undefined) doc.title = bound(String(d.title), TITLE_LIMIT);
      o.ms.add(doc);
      o.texts.set(d.id, text);
      o.dirty = true;
      o.plain = null;
      // A full part is written at once, so no more than one part per shard waits in memory.
      if (this.full(o.ms) && this.save(shard, o)) return 0;
    }
    return this.count(shard);
  }

  /** How many documents of a shard are indexed: the engine feeds it from there. */
  count(shard: string): number {
    const o = this.open.get(shard);
    if (o) {
      // Saying 0 is what lets a lost shard be fed again from its start.
      o.lost = false;
      return o.sealed.reduce((n, p) => n + p.docs, 0) + o.ms.documentCount;
    }
    const parts = this.manifest.get(shard);
    if (!parts) return 0;
    // Only the last part changes, so only its size is checked here (one stat per shard);
    // damage to a full part is found when a query or feeding reads it, and drops the shard.
    const last = parts.length - 1;
    if (statSync(this.path(shard, last), { throwIfNoEntry: false })?.size !== parts[last]!.bytes) {
      this.forget(shard);
      return 0;
    }
    return parts.reduce((n, p) => n + p.docs, 0);
  }

  /** Drop a shard (its segment vanished or was repaired); the next add rebuilds it. */
  drop(shard: string): void {
    this.forget(shard);
  }

  /** Forget every shard not in `keep`, and stray files of earlier runs. */
  retain(keep: ReadonlySet<string>): void {
    for (const name of [...this.manifest.keys(), ...this.open.keys()]) if (!keep.has(name)) this.forget(name);
    this.sweep = true;
  }

  /** Persist what changed since the last flush. A write that fails is reported, never thrown: this is a cache. */
  flush(): GccError | null {
    let problem: GccError | null = null;
    for (const [name, o] of [...this.open]) if (o.dirty) problem = this.save(name, o) ?? problem;
    if (!this.manifestDirty && !this.sweep) return problem;
    try {
      mkdirSync(this.dir, { recursive: true });
      const path = join(this.dir, MANIFEST);
      // Another process may have added shards since this one read the manifest: keep those.
      for (const [name, parts] of readManifest(path) ?? []) {
        if (this.manifest.has(name) || this.forgotten.has(name)) continue;
        if (parts.every((info, p) => statSync(this.path(name, p), { throwIfNoEntry: false })?.size === info.bytes)) this.manifest.set(name, parts);
      }
      writeManifest(path, this.manifest);
      this.manifestDirty = false;
      if (this.sweep) {
        const keep = new Set([MANIFEST]);
        for (const name of new Set([...this.manifest.keys(), ...this.open.keys()])) {
          for (let p = 0; p < Math.max(this.partCount(name), this.manifest.get(name)?.length ?? 0); p++) keep.add(partFile(name, p));
        }
        removeStrays(this.dir, keep);
      }
      this.sweep = false;
    } catch (err) {
      problem = asGccError(err);
    }
    return problem;
  }

  /** Search one part: held in memory, or read from its file. False when it is unreadable. */
  private visit(gather: Gather, shard: string, part: number): boolean {
    const o = this.open.get(shard);
    if (o && part === o.sealed.length) {
      o.plain ??= o.ms.toJSON() as unknown as Plain;
      gather.visit(shard, part, o.ms, o.plain);
      return true;
    }
    this.observe?.({ type: 'load', shard, part });
    const data = readPart(this.path(shard, part), shard, part, false);
    if (data) gather.visit(shard, part, data.ms, data.plain);
    this.observe?.({ type: 'release', shard, part });
    return data !== null;
  }

  /** Ranked search: BM25 over titles, refs and texts; all words first, any word when no document has them all. */
  search(query: string, opts: SearchOptions = {}): SearchResult {
    const limit = Math.min(100, Math.max(1, Math.floor(opts.limit ?? 20) || 20));
    const page = Math.max(1, Math.floor(opts.page ?? 1) || 1);
    const terms = queryTerms(String(query));
    if (!terms.length) return { hits: [], total: 0, pages: 0, match: 'all', unreadable: [] };
    const kinds = opts.kinds?.length ? new Set(opts.kinds) : undefined;
    const need = Math.min(page * limit, MAX_RANKED);
    // Room for the re-scoring to reorder: the pool holds twice the ranks asked for, and at least 100.
    const gather = new Gather(terms, { branch: opts.branch, kinds }, Math.max(2 * need, 100));
    const unreadable: string[] = [];
    for (const shard of [...new Set([...this.manifest.keys(), ...this.open.keys()])].sort().reverse()) {
      for (let part = this.partCount(shard) - 1; part >= 0; part--) {
        if (this.visit(gather, shard, part)) continue;
        unreadable.push(shard);
        this.forget(shard);
        break;
      }
    }
    const ranked = gather.finish();
    const shown = ranked.slice((page - 1) * limit, page * limit);
    const total = gather.total;
    return { hits: this.withSnippets(shown, unreadable), total, pages: Math.ceil(Math.min(total, MAX_RANKED) / limit), match: gather.mode, unreadable };
  }

  /** Hits with their snippets; a shard whose texts cannot be read is dropped (its hits keep an empty snippet). */
  private withSnippets(shown: readonly Candidate[], unreadable: string[]): SearchHit[] {
    const texts = new Map<string, Map<string, string> | null>();
    for (const c of shown) {
      const key = `${c.part}:${c.shard}`;
      if (texts.has(key)) continue;
      const o = this.open.get(c.shard);
      const t = o && c.part === o.sealed.length ? o.texts : readPartTexts(this.path(c.shard, c.part), c.shard, c.part);
      texts.set(key, t);
      if (!t && !unreadable.includes(c.shard)) {
        unreadable.push(c.shard);
        this.forget(c.shard);
      }
    }
    const TEXT = FIELDS.indexOf('text');
    return shown.map((c) => {
      const matched = new Set(c.postings.filter((p) => p.field === TEXT).map((p) => p.term));
      const text = texts.get(`${c.part}:${c.shard}`)?.get(c.id) ?? '';
      const doc: SearchHit['doc'] = { id: c.id, branch: c.stored.branch, kind: c.stored.kind, at: c.stored.at };
      if (c.stored.ref !== undefined) doc.ref = c.stored.ref;
      if (c.stored.title !== undefined) doc.title = c.stored.title;
      return { doc, score: c.score, snippet: makeSnippet(text, matched) };
    });
  }
}
