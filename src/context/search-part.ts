/**
 * One part of a shard of the search index: an inverted index of a run of consecutive
 * documents of one segment, with what a hit shows and the texts snippets are cut from, in
 * one file under the cache folder. A segment's documents fill part 0, then part 1, …; a full
 * part is written once and never again, so appending to the open segment rewrites one part.
 *
 *   line 1  {"magic":"gcc-search-part","format":2,"shard":…,"part":k,"docs":N,"terms":T,
 *            "postings":P,"avg":[…],"branches":[…],"newest":[at,id],"bytes":[the 5 sections' sizes],
 *            "crc":[CRC-32 of dict, table, meta's index, texts' index as 8 hex digits]}
 *   dict    T term ends (u32), T posting ends (u32), T posting checksums (u32),
 *           T×3 document frequencies per field (u16), then the terms, UTF-8, in byte order
 *   table   N × 9 bytes: the three field lengths (u16, 0xffff: no such field), kind (u8), branch (u16)
 *   post    P postings (u32): document | field << 12 | term frequency << 14, by term
 *   meta    records: per document, JSON [id, at, ref, title, hash] (null for what it lacks)
 *   texts   records: per document, its text in UTF-8
 *
 * A records section starts with N (end, CRC-32) pairs (u32), then the records' bytes, so a
 * query reads the one row or text it needs, checked on its own.
 *
 * The sections a query reads of every part come first, so one read usually takes them all.
 * A query reads the header and the dictionary of every part, then only the postings of the
 * terms it matched, the table of the parts holding them, and the meta rows and texts of the
 * documents it ranks
 * (search-part-file.ts reads and checks all of it).
 *
 * Terms, field lengths and the running average of field lengths follow MiniSearch's
 * definitions, so the scores are the BM25+ it computes over one index of all documents.
 */
import { crc32 } from '../log/crc32.js';
import { indexTerms, tokens } from './search-terms.js';

export const SEARCH_KINDS = ['commit', 'purpose', 'hypothesis', 'synthesis', 'abandon', 'objective', 'log', 'tool', 'notes'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** What is kept per document besides the text: everything a hit shows and the filters use. */
export interface Stored {
  branch: string;
  kind: SearchKind;
  at: string;
  ref?: string;
  title?: string;
  /** A commit's hash: with it a hit names the commit even where its label is not unique. */
  hash?: string;
}

export interface IndexedDoc extends Stored {
  id: string;
  text: string;
}

export const PART_FORMAT = 2;
export const MAGIC = 'gcc-search-part';
/** Field ids are positions here. */
export const FIELDS = ['title', 'ref', 'text'] as const;
export const TEXT_FIELD = FIELDS.indexOf('text');
/** A field length no document has: the field is absent. */
export const ABSENT = 0xffff;
export const ROW_BYTES = 9;
export const MAX_PART_BYTES = 64 * 1024 * 1024;
export const MAX_ID = 200;
/** Documents in a part: the posting packs the document into 12 bits. */
export const MAX_PART_DOCS = 4096;
export const MAX_BRANCHES = 0xffff;
/** Above any term frequency a document of bounded text can reach. */
export const MAX_TF = (1 << 18) - 1;

/** A document's row in meta: [id, at, ref, title, hash]. */
export type MetaRow = [string, string, string | null, string | null, string | null];

/** Cut at a word boundary near `limit`, never inside a surrogate pair; marks the cut with `…`. */
export function bound(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const space = text.lastIndexOf(' ', limit);
  if (space > limit - 200) end = space;
  else if (/[\udc00-\udfff]/.test(text[end] ?? '')) end--;
  return `${text.slice(0, end)} …`;
}

/** Newer first among equals: `at`, then the time-ordered id (negative when a is newer). */
export function newerFirst(aAt: string, aId: string, bAt: string, bId: string): number {
  if (aAt !== bAt) return aAt < bAt ? 1 : -1;
  return aId === bId ? 0 : aId < bId ? 1 : -1;
}

const escapeWide = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
/** JSON with every character past ASCII escaped: a reader decodes an ASCII section several times faster. */
export const asciiJson = (v: unknown) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, escapeWide);

/** A byte buffer that grows, reused from one part to the next. */
class Bytes {
  buf = Buffer.allocUnsafe(64 * 1024);
  length = 0;

  reserve(more: number): void {
    if (this.length + more <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + more));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** Append `s` (UTF-8, or latin1 for ASCII JSON); its bytes' [start, end). */
  write(s: string, encoding: 'utf8' | 'latin1'): [number, number] {
    const start = this.length;
    this.reserve(encoding === 'latin1' ? s.length : Buffer.byteLength(s));
    this.length += this.buf.write(s, start, encoding);
    return [start, this.length];
  }
}

/**
 * The documents of the part being filled, held compactly so that little of it outlives a
 * part as garbage: rows and texts as bytes, postings as (term, posting) pairs in a typed
 * array, all reused by the next part (reset()).
 */
export class PartBuilder {
  private readonly ids = new Set<string>();
  private readonly lengths = new Uint16Array(MAX_PART_DOCS * 3);
  private readonly kinds = new Uint8Array(MAX_PART_DOCS);
  private readonly branchOf = new Uint16Array(MAX_PART_DOCS);
  private readonly metaEnds = new Uint32Array(MAX_PART_DOCS * 2);
  private readonly textEnds = new Uint32Array(MAX_PART_DOCS * 2);
  private readonly meta = new Bytes();
  private readonly texts = new Bytes();
  private branches: string[] = [];
  private readonly branchIds = new Map<string, number>();
  /** Term → its number, in the order first met. */
  private readonly termIds = new Map<string, number>();
  /** (term number, posting) pairs, in the order documents and fields were added. */
  private pairs = new Uint32Array(64 * 1024);
  private npairs = 0;
  private avg = FIELDS.map(() => 0);
  private newest: [string, string] | null = null;
  private image: Buffer | null = null;

  get docs(): number {
    return this.ids.size;
  }

  get terms(): number {
    return this.termIds.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** The documents' ids, in the order added. */
  idList(): string[] {
    return [...this.ids];
  }

  /** Empty it for the next part, keeping its buffers. */
  reset(): void {
    this.ids.clear();
    this.branches = [];
    this.branchIds.clear();
    this.termIds.clear();
    this.meta.length = 0;
    this.texts.length = 0;
    this.npairs = 0;
    this.avg = FIELDS.map(() => 0);
    this.newest = null;
    this.image = null;
  }

  private pair(term: number, posting: number): void {
    if (this.npairs * 2 + 2 > this.pairs.length) {
      const next = new Uint32Array(this.pairs.length * 2);
      next.set(this.pairs);
      this.pairs = next;
    }
    this.pairs[this.npairs * 2] = term;
    this.pairs[this.npairs * 2 + 1] = posting;
    this.npairs++;
  }

  /** Add a document; false (and nothing added) past MAX_PART_DOCS or MAX_BRANCHES. */
  add(d: IndexedDoc): boolean {
    const n = this.docs;
    let branch = this.branchIds.get(d.branch);
    if (n >= MAX_PART_DOCS || (branch === undefined && this.branches.length >= MAX_BRANCHES)) return false;
    if (branch === undefined) {
      branch = this.branches.push(d.branch) - 1;
      this.branchIds.set(d.branch, branch);
    }
    const values = [d.title, d.ref, d.text];
    for (let f = 0; f < FIELDS.length; f++) {
      const value = values[f];
      if (value === undefined) {
        this.lengths[n * 3 + f] = ABSENT;
        continue;
      }
      const toks = tokens(value);
      const length = new Set(toks).size;
      this.lengths[n * 3 + f] = length;
      // MiniSearch's running average over the documents added so far, as it computes it.
      this.avg[f] = (this.avg[f]! * n + length) / (n + 1);
      const tf = new Map<string, number>();
      for (const tok of toks) for (const t of indexTerms(tok)) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, k] of tf) {
        let id = this.termIds.get(t);
        if (id === undefined) this.termIds.set(t, (id = this.termIds.size));
        this.pair(id, n + f * 4096 + Math.min(k, MAX_TF) * 16384);
      }
    }
    this.kinds[n] = SEARCH_KINDS.indexOf(d.kind);
    this.branchOf[n] = branch;
    const row: MetaRow = [d.id, d.at, d.ref ?? null, d.title ?? null, d.hash ?? null];
    const [ms, me] = this.meta.write(asciiJson(row), 'latin1');
    this.metaEnds[n * 2] = me;
    this.metaEnds[n * 2 + 1] = crc32(this.meta.buf.subarray(ms, me));
    const [ts, te] = this.texts.write(d.text, 'utf8');
    this.textEnds[n * 2] = te;
    this.textEnds[n * 2 + 1] = crc32(this.texts.buf.subarray(ts, te));
    this.ids.add(d.id);
    if (!this.newest || newerFirst(d.at, d.id, this.newest[0], this.newest[1]) < 0) this.newest = [d.at, d.id];
    this.image = null;
    return true;
  }

  /** A records section: the (end, checksum) pairs, then the bytes. */
  private records(ends: Uint32Array, bytes: Bytes): Buffer {
    const n = this.docs;
    const out = Buffer.allocUnsafe(n * 8 + bytes.length);
    for (let k = 0; k < n * 2; k++) out.writeUInt32LE(ends[k]!, k * 4);
    bytes.buf.copy(out, n * 8, 0, bytes.length);
    return out;
  }

  /** The part's file, as written to disk and as a query reads it. */
  serialize(shard: string, part: number): Buffer {
    if (this.image) return this.image;
    const terms = [...this.termIds.keys()].map((t) => Buffer.from(t, 'utf8'));
    const order = terms.map((_, i) => i).sort((a, b) => Buffer.compare(terms[a]!, terms[b]!));
    const T = terms.length;
    const rank = new Uint32Array(T);
    order.forEach((id, r) => (rank[id] = r));
    // Postings grouped by term in dictionary order, each term's in the order added (document, then field).
    const starts = new Uint32Array(T + 1);
    for (let k = 0; k < this.npairs; k++) starts[rank[this.pairs[k * 2]!]! + 1]!++;
    for (let r = 0; r < T; r++) starts[r + 1]! += starts[r]!;
    const fill = starts.slice(0, T);
    const df = new Uint16Array(T * 3);
    const post = Buffer.allocUnsafe(this.npairs * 4);
    for (let k = 0; k < this.npairs; k++) {
      const r = rank[this.pairs[k * 2]!]!;
      const p = this.pairs[k * 2 + 1]!;
      post.writeUInt32LE(p, fill[r]!++ * 4);
      df[r * 3 + (Math.floor(p / 4096) % 4)]!++;
    }
    const blobBytes = terms.reduce((n, b) => n + b.length, 0);
    const dict = Buffer.allocUnsafe(T * 18 + blobBytes);
    let termEnd = 0;
    order.forEach((id, r) => {
      const bytes = terms[id]!;
      bytes.copy(dict, T * 18 + termEnd);
      termEnd += bytes.length;
      dict.writeUInt32LE(termEnd, r * 4);
      dict.writeUInt32LE(starts[r + 1]!, T * 4 + r * 4);
      dict.writeUInt32LE(crc32(post.subarray(starts[r]! * 4, starts[r + 1]! * 4)), T * 8 + r * 4);
      for (let f = 0; f < 3; f++) dict.writeUInt16LE(df[r * 3 + f]!, T * 12 + (r * 3 + f) * 2);
    });
    const table = Buffer.allocUnsafe(this.docs * ROW_BYTES);
    for (let d = 0; d < this.docs; d++) {
      for (let f = 0; f < 3; f++) table.writeUInt16LE(this.lengths[d * 3 + f]!, d * ROW_BYTES + f * 2);
      table.writeUInt8(this.kinds[d]!, d * ROW_BYTES + 6);
      table.writeUInt16LE(this.branchOf[d]!, d * ROW_BYTES + 7);
    }
    const meta = this.records(this.metaEnds, this.meta);
    const texts = this.records(this.textEnds, this.texts);
    const sections = [dict, table, post, meta, texts];
    const header = {
      magic: MAGIC,
      format: PART_FORMAT,
      shard,
      part,
      docs: this.docs,
      terms: T,
      postings: this.npairs,
      avg: this.avg,
      branches: this.branches,
      newest: this.newest ?? ['', ''],
      bytes: sections.map((x) => x.length),
      crc: [dict, table, meta.subarray(0, this.docs * 8), texts.subarray(0, this.docs * 8)].map((x) => crc32(x).toString(16).padStart(8, '0')),
    };
    this.image = Buffer.concat([Buffer.from(`${asciiJson(header)}\n`, 'latin1'), ...sections]);
    return this.image;
  }
}
