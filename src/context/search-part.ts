/**
 * One part of a shard of the search index: an inverted index of a run of consecutive
 * documents of one segment, with what a hit shows and the texts snippets are cut from, in
 * one file under the cache folder. A segment's documents fill part 0, then part 1, …; a full
 * part is written once and never again, so appending to the open segment rewrites one part.
 *
 *   line 1  {"magic":"gcc-search-part","format":2,"shard":…,"part":k,"docs":N,"terms":T,
 *            "postings":P,"avg":[…],"branches":[…],"newest":[at,id],"bytes":[5 section sizes],
 *            "crc":[CRC-32 of dict, table, meta's index, texts' index as 8 hex digits]}
 *   dict    T term ends (u32), T posting ends (u32), T posting checksums (u32),
 *           T×3 document frequencies per field (u16), then the terms, UTF-8, in byte order
 *   post    P postings (u32): document | field << 12 | term frequency << 14, by term
 *   table   N × 9 bytes: the three field lengths (u16, 0xffff: no such field), kind (u8), branch (u16)
 *   meta    records: per document, JSON [id, at, ref, title, hash] (null for what it lacks)
 *   texts   records: per document, its text in UTF-8
 *
 * A records section starts with N (end, CRC-32) pairs (u32), then the records' bytes, so a
 * query reads the one row or text it needs, checked on its own.
 *
 * A query reads the header and the dictionary of every part, then only the postings of the
 * terms it matched, the table of the parts holding them, and the meta rows and texts of the
 * documents it ranks
 * (search-part-file.ts reads and checks all of it).
 *
 * Terms, field lengths and the running average of field lengths follow MiniSearch's
 * definitions, so the scores are the BM25+ it computes over one index of all documents.
 */
import { crc32 } from 'node:zlib';
import { indexTerms, tokens } from './search-terms.js';

export const SEARCH_KINDS = ['commit', 'purpose', 'hypothesis', 'synthesis', 'abandon', 'objective', 'log', 'tool'] as const;
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

/** Newer first among equals: `at`, then the time-ordered id (negative when a is newer). */
export function newerFirst(aAt: string, aId: string, bAt: string, bId: string): number {
  if (aAt !== bAt) return aAt < bAt ? 1 : -1;
  return aId === bId ? 0 : aId < bId ? 1 : -1;
}

const escapeWide = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
/** JSON with every character past ASCII escaped: a reader decodes an ASCII section several times faster. */
export const asciiJson = (v: unknown) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, escapeWide);

/** A records section: N (end, checksum) pairs, then the records. */
function records(list: readonly Buffer[]): Buffer {
  const index = Buffer.alloc(list.length * 8);
  let end = 0;
  list.forEach((r, k) => {
    end += r.length;
    index.writeUInt32LE(end, k * 8);
    index.writeUInt32LE(crc32(r), k * 8 + 4);
  });
  return Buffer.concat([index, ...list]);
}

/** The documents of the part being filled, as postings and rows ready to be written. */
export class PartBuilder {
  readonly meta: MetaRow[] = [];
  readonly texts: string[] = [];
  private readonly ids = new Set<string>();
  private readonly lengths: number[] = [];
  private readonly kinds: number[] = [];
  private readonly branchOf: number[] = [];
  private readonly branches: string[] = [];
  private readonly branchIds = new Map<string, number>();
  private readonly postings = new Map<string, number[]>();
  private readonly avg = FIELDS.map(() => 0);
  private newest: [string, string] | null = null;
  private image: Buffer | null = null;

  get docs(): number {
    return this.meta.length;
  }

  get terms(): number {
    return this.postings.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
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
        this.lengths.push(ABSENT);
        continue;
      }
      const toks = tokens(value);
      const length = new Set(toks).size;
      this.lengths.push(length);
      // MiniSearch's running average over the documents added so far, as it computes it.
      this.avg[f] = (this.avg[f]! * n + length) / (n + 1);
      const tf = new Map<string, number>();
      for (const tok of toks) for (const t of indexTerms(tok)) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, k] of tf) {
        let list = this.postings.get(t);
        if (!list) this.postings.set(t, (list = []));
        list.push(n + f * 4096 + Math.min(k, MAX_TF) * 16384);
      }
    }
    this.kinds.push(SEARCH_KINDS.indexOf(d.kind));
    this.branchOf.push(branch);
    this.meta.push([d.id, d.at, d.ref ?? null, d.title ?? null, d.hash ?? null]);
    this.texts.push(d.text);
    this.ids.add(d.id);
    if (!this.newest || newerFirst(d.at, d.id, this.newest[0], this.newest[1]) < 0) this.newest = [d.at, d.id];
    this.image = null;
    return true;
  }

  /** The part's file, as written to disk and as a query reads it. */
  serialize(shard: string, part: number): Buffer {
    if (this.image) return this.image;
    const entries = [...this.postings].map(([t, list]) => [Buffer.from(t, 'utf8'), list] as const);
    entries.sort((a, b) => Buffer.compare(a[0], b[0]));
    const T = entries.length;
    const blobBytes = entries.reduce((n, [b]) => n + b.length, 0);
    const dict = Buffer.alloc(T * 12 + T * 6 + blobBytes);
    const total = entries.reduce((n, [, l]) => n + l.length, 0);
    const post = Buffer.alloc(total * 4);
    let termEnd = 0;
    let postEnd = 0;
    for (const [i, [bytes, list]] of entries.entries()) {
      const start = postEnd;
      const df = [0, 0, 0];
      for (const p of list) {
        post.writeUInt32LE(p, postEnd * 4);
        postEnd++;
        df[Math.floor(p / 4096) % 4]!++;
      }
      bytes.copy(dict, T * 18 + termEnd);
      termEnd += bytes.length;
      dict.writeUInt32LE(termEnd, i * 4);
      dict.writeUInt32LE(postEnd, T * 4 + i * 4);
      dict.writeUInt32LE(crc32(post.subarray(start * 4, postEnd * 4)), T * 8 + i * 4);
      for (let f = 0; f < 3; f++) dict.writeUInt16LE(df[f]!, T * 12 + (i * 3 + f) * 2);
    }
    const table = Buffer.alloc(this.docs * ROW_BYTES);
    for (let d = 0; d < this.docs; d++) {
      for (let f = 0; f < 3; f++) table.writeUInt16LE(this.lengths[d * 3 + f]!, d * ROW_BYTES + f * 2);
      table.writeUInt8(this.kinds[d]!, d * ROW_BYTES + 6);
      table.writeUInt16LE(this.branchOf[d]!, d * ROW_BYTES + 7);
    }
    const meta = records(this.meta.map((row) => Buffer.from(asciiJson(row), 'latin1')));
    const texts = records(this.texts.map((t) => Buffer.from(t, 'utf8')));
    const sections = [dict, post, table, meta, texts];
    const header = {
      magic: MAGIC,
      format: PART_FORMAT,
      shard,
      part,
      docs: this.docs,
      terms: T,
      postings: total,
      avg: this.avg,
      branches: this.branches,
      newest: this.newest ?? ['', ''],
      bytes: sections.map((s) => s.length),
      crc: [dict, table, meta.subarray(0, this.docs * 8), texts.subarray(0, this.docs * 8)].map((s) => crc32(s).toString(16).padStart(8, '0')),
    };
    this.image = Buffer.concat([Buffer.from(`${asciiJson(header)}\n`, 'latin1'), ...sections]);
    return this.image;
  }
}
