/**
 * Ranked full-text search over a memory's history, kept as a cache beside it.
 *
 * The index is sharded like the store: one shard per segment, each cut into parts of at
 * most PART_DOCS documents or PART_TERMS terms, each part an inverted index in its own file
 * (search-part.ts), plus a manifest naming the shards and their parts (search-manifest.ts).
 * A full part is written once; only a shard's last part changes as its segment grows. The
 * engine feeds documents (it knows the segments); this module never reads the store.
 *
 * Memory: a query opens the parts one at a time (search-query.ts): every part's dictionary,
 * then the postings of the terms it matched in the parts that hold them, keeping only the
 * best documents asked for. Feeding holds at most MAX_OPEN shards' last parts in memory and
 * writes a part out as soon as it is full, so building from nothing holds one part per shard
 * fed at once, whatever the history's length.
 *
 * Everything on disk is untrusted: a missing, cut, malformed, foreign or wrong-version
 * manifest or part file is ignored, and its shard then counts 0 documents so the engine
 * feeds it again. Shard names and document fields are only ever keys of Maps.
 */
import { mkdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { asGccError, type GccError, gccError } from '../errors.js';
import { MANIFEST, MAX_SHARD_NAME, type PartInfo, partFile, readManifest, removeStrays, writeAtomic, writeManifest } from './search-manifest.js';
import { withPart } from './search-part-file.js';
import { bound, type IndexedDoc, MAX_ID, MAX_PART_DOCS, PartBuilder, SEARCH_KINDS } from './search-part.js';
import { type PartRef, runQuery, Unreadable } from './search-query.js';
import type { Candidate } from './search-rank.js';
import { beyondTitle, makeSnippet } from './search-snippet.js';
import { queryTerms } from './search-terms.js';
import type { SearchDoc, SearchHit, SearchIndexOptions, SearchOptions, SearchResult, ShardEvent } from './search-types.js';

export { SEARCH_KINDS, type SearchKind } from './search-part.js';
export type { MatchMode } from './search-rank.js';
export { partFile } from './search-manifest.js';
export type { PartRef } from './search-query.js';
export type { SearchDoc, SearchHit, SearchIndexOptions, SearchOptions, SearchResult, ShardEvent } from './search-types.js';

/**
 * A part is full at PART_DOCS documents or PART_TERMS distinct terms, whichever comes first.
 * Every query reads every part's dictionary, so fewer, larger parts make queries cheaper; the
 * caps bound what feeding holds per shard and what rewriting the open segment's part costs.
 */
export const PART_DOCS = 1024;
export const PART_TERMS = 20_000;
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
  part: PartBuilder;
  dirty: boolean;
  /** Its stored copy was unreadable: documents are refused until count() has said 0. */
  lost: boolean;
}


/** A part's documents read back, in order, into `b` to go on filling it; null when unreadable. */
function readBack(b: PartBuilder, path: string, shard: string, part: number): PartBuilder | null {
  return withPart(path, shard, part, (f) => {
    const meta = f.meta();
    const texts = f.texts();
    const table = f.table();
    meta.forEach(([id, at, ref, title, hash], d) => {
      const doc: IndexedDoc = { id, at, branch: f.head.branches[table.branch(d)]!, kind: table.kind(d), text: texts[d]! };
      if (ref !== null) doc.ref = ref;
      if (title !== null) doc.title = title;
      if (hash !== null) doc.hash = hash;
      b.add(doc);
    });
    return b;
  });
}

export class SearchIndex {
  private entries: Map<string, PartInfo[]> | null = null;
  private readonly open = new Map<string, Open>();
  private readonly spare: PartBuilder[] = [];
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

  private full(b: PartBuilder): boolean {
    return b.docs >= this.partDocs || (b.docs > 0 && b.terms >= this.partTerms);
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
    if (o) return o.sealed.length + (o.part.docs ? 1 : 0);
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
    const o = this.emptyOpen();
    for (const [p, info] of parts.entries()) {
      let ids: Iterable<string>;
      if (p === parts.length - 1) {
        // The last part is the one still growing, unless it is full already.
        const back = readBack(o.part, this.path(shard, p), shard, p);
        if (!back || back.docs !== info.docs) return this.emptyOpen(true, o);
        if (!this.full(back)) break;
        ids = back.idList();
        back.reset();
      } else {
        const read = withPart(this.path(shard, p), shard, p, (f) => f.meta().map((r) => r[0]));
        if (!read || read.length !== info.docs) return this.emptyOpen(true, o);
        ids = read;
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
      o = parts ? this.load(shard, parts) : this.emptyOpen();
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
    if (!o) return;
    if (o.dirty) this.save(shard, o);
    this.recycle(o);
  }

  /** A shard to feed, with a builder from the spares when there is one; `from`'s builder is reused, emptied. */
  private emptyOpen(lost = false, from?: Open): Open {
    let part = from?.part;
    if (part) part.reset();
    else part = this.spare.pop() ?? new PartBuilder();
    return { sealed: [], known: new Set(), part, dirty: false, lost };
  }

  /** Keep a released shard's builder for the next shard fed: its buffers are reused, not collected. */
  private recycle(o: Open): void {
    if (this.spare.length >= MAX_OPEN) return;
    o.part.reset();
    this.spare.push(o.part);
  }

  /** Write the last part of a held shard; when it is full, seal it and start the next. */
  private save(shard: string, o: Open): GccError | null {
    if (!o.part.docs) return null;
    try {
      mkdirSync(this.dir, { recursive: true });
      const image = o.part.serialize(shard, o.sealed.length);
      writeAtomic(this.path(shard, o.sealed.length), image);
      const info = { docs: o.part.docs, bytes: image.length };
      this.manifest.set(shard, [...o.sealed, info]);
      this.forgotten.delete(shard);
      this.manifestDirty = true;
      o.dirty = false;
      if (this.full(o.part)) {
        o.sealed.push(info);
        for (const id of o.part.idList()) o.known.add(id);
        o.part.reset();
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
      if (typeof d.id !== 'string' || !d.id || d.id.length > MAX_ID || o.known.has(d.id) || o.part.has(d.id) || !SEARCH_KINDS.includes(d.kind)) continue;
      const text = bound(String(d.text ?? ''), TEXT_LIMIT);
      const doc: IndexedDoc = { id: d.id, branch: String(d.branch), kind: d.kind, at: String(d.at), text };
      if (d.ref !== undefined) doc.ref = bound(String(d.ref), REF_LIMIT);
      if (d.title !== undefined) doc.title = bound(String(d.title), TITLE_LIMIT);
      if (d.hash !== undefined) doc.hash = String(d.hash).slice(0, MAX_ID);
      // A part refuses a document only past its caps: write it out and start the next.
      if (!o.part.add(doc) && (this.sealFull(shard, o) || !o.part.add(doc))) return 0;
      o.dirty = true;
      // A full part is written at once, so no more than one part per shard waits in memory.
      if (this.full(o.part) && this.save(shard, o)) return 0;
    }
    return this.count(shard);
  }

  /** How many documents of a shard are indexed: the engine feeds it from there. */
  count(shard: string): number {
    const o = this.open.get(shard);
    if (o) {
      // Saying 0 is what lets a lost shard be fed again from its start.
      o.lost = false;
      return o.sealed.reduce((n, p) => n + p.docs, 0) + o.part.docs;
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

  /** A part that refused a document (a cap of the format): written and sealed as it is. */
  private sealFull(shard: string, o: Open): boolean {
    if (this.save(shard, o)) return true;
    if (o.part.docs) {
      o.sealed.push(this.manifest.get(shard)!.at(-1)!);
      for (const id of o.part.idList()) o.known.add(id);
      o.part.reset();
    }
    return false;
  }

  /** For tests and benchmarks: the parts a query reads, in its order (newest shard first, its newest part first). */
  parts(): PartRef[] {
    const out: PartRef[] = [];
    for (const shard of [...new Set([...this.manifest.keys(), ...this.open.keys()])].sort().reverse()) {
      const o = this.open.get(shard);
      for (let part = this.partCount(shard) - 1; part >= 0; part--) {
        const where = o && part === o.sealed.length ? o.part.serialize(shard, part) : this.path(shard, part);
        out.push({ shard, part, where });
      }
    }
    return out;
  }

  /** Ranked search: BM25 over titles, refs and texts; all words first, any word when no document has them all. */
  search(query: string, opts: SearchOptions = {}): SearchResult {
    const limit = Math.min(100, Math.max(1, Math.floor(opts.limit ?? 20) || 20));
    const page = Math.max(1, Math.floor(opts.page ?? 1) || 1);
    const terms = queryTerms(String(query));
    if (!terms.length) return { hits: [], total: 0, pages: 0, match: 'all', unreadable: [] };
    const kinds = opts.kinds?.length ? new Set(opts.kinds) : undefined;
    const need = Math.min(page * limit, MAX_RANKED);
    const unreadable: string[] = [];
    for (;;) {
      try {
        const { ranked, total, mode } = runQuery(this.parts(), terms, { branch: opts.branch, kinds }, need, this.observe);
        const shown = ranked.slice((page - 1) * limit, page * limit);
        return { hits: this.withSnippets(shown, unreadable), total, pages: Math.ceil(Math.min(total, MAX_RANKED) / limit), match: mode, unreadable };
      } catch (err) {
        if (!(err instanceof Unreadable)) throw err;
        // Searched again without it: none of its statistics may stay in the scores.
        unreadable.push(err.shard);
        this.forget(err.shard);
      }
    }
  }

  /** Hits with their snippets; a shard whose texts cannot be read is dropped (its hits keep an empty snippet). */
  private withSnippets(shown: readonly Candidate[], unreadable: string[]): SearchHit[] {
    const texts = new Map<Candidate, string>();
    const byPart = new Map<string, Candidate[]>();
    for (const c of shown) {
      const key = `${c.part}:${c.shard}`;
      const list = byPart.get(key);
      if (list) list.push(c);
      else byPart.set(key, [c]);
    }
    for (const list of byPart.values()) {
      const { shard, part } = list[0]!;
      const o = this.open.get(shard);
      const where = o && part === o.sealed.length ? o.part.serialize(shard, part) : this.path(shard, part);
      this.observe?.({ type: 'load', shard, part, stage: 'texts' });
      const ok = withPart(where, shard, part, (f) => {
        for (const c of list) texts.set(c, f.text(c.doc));
        return true;
      });
      this.observe?.({ type: 'release', shard, part, stage: 'texts' });
      if (!ok && !unreadable.includes(shard)) {
        unreadable.push(shard);
        this.forget(shard);
      }
    }
    return shown.map((c) => {
      const text = texts.get(c) ?? '';
      const doc: SearchHit['doc'] = { id: c.id, branch: c.stored.branch, kind: c.stored.kind, at: c.stored.at };
      if (c.stored.ref !== undefined) doc.ref = c.stored.ref;
      if (c.stored.title !== undefined) doc.title = c.stored.title;
      if (c.stored.hash !== undefined) doc.hash = c.stored.hash;
      return { doc, score: c.score, snippet: makeSnippet(beyondTitle(text, c.stored.title), c.matched) };
    });
  }
}
