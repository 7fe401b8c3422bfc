/**
 * Reading a part file (layout in search-part.ts) a section at a time. The file is a cache and
 * untrusted: the header's shape, counts and sizes are checked against the file, every section
 * read against its checksum (the postings of each term against theirs), every offset and
 * count against its bounds, before anything is used. Whatever is wrong throws PartDamaged; the
 * index then treats the shard as unreadable and feeds it again.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from '../log/crc32.js';
import { ABSENT, FIELDS, MAGIC, MAX_ID, MAX_PART_BYTES, MAX_PART_DOCS, MAX_TF, type MetaRow, PART_FORMAT, ROW_BYTES, SEARCH_KINDS, type SearchKind } from './search-part.js';

export class PartDamaged extends Error {}

const damaged = (what: string): never => {
  throw new PartDamaged(what);
};

/** Where a part's bytes come from: its file, or the image of a part still in memory. */
type Source = { fd: number; size: number } | { image: Buffer };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const MAX_HEADER = 1024 * 1024;

/**
 * Read buffers reused across parts, so a query does not leave buffers per part to collect:
 * one for whatever is read and used at once, one each for the dictionary and the table,
 * which stay in use while postings are read.
 */
const SCRATCH_MAX = 8 * 1024 * 1024;
const buffers: { any: Buffer | null; ahead: Buffer | null; dict: Buffer | null; table: Buffer | null } = { any: null, ahead: null, dict: null, table: null };
/** What is read ahead at most: a part's first bytes (header, dictionary, table), or its matched postings. */
const AHEAD_MAX = 256 * 1024;
let aheadOwner: PartFile | null = null;

function aheadBuffer(length: number): Buffer {
  if (!buffers.ahead || buffers.ahead.length < length) buffers.ahead = Buffer.allocUnsafe(Math.max(length, AHEAD_MAX / 4));
  return buffers.ahead;
}

/** Sections, in file order. */
const DICT = 0;
const TABLE = 1;
const POST = 2;
const META = 3;
const TEXTS = 4;

/** `bytes` copied into the reused buffer `which`. */
function keep(which: 'dict' | 'table', bytes: Buffer): Buffer {
  if (bytes.length > SCRATCH_MAX) return Buffer.from(bytes);
  let b = buffers[which];
  if (!b || b.length < bytes.length) b = buffers[which] = Buffer.allocUnsafe(Math.max(bytes.length, 64 * 1024));
  bytes.copy(b);
  return b.subarray(0, bytes.length);
}

export interface PartHead {
  docs: number;
  terms: number;
  postings: number;
  avg: number[];
  branches: string[];
  /** The newest (at, id) of its documents: no document of the part ranks newer. */
  newest: [string, string];
}

/** The dictionary: terms in byte order, each with its postings' place and document frequencies. */
export class Dict {
  constructor(
    private readonly buf: Buffer,
    readonly count: number,
  ) {}

  private end(i: number): number {
    return i < 0 ? 0 : this.buf.readUInt32LE(i * 4);
  }

  term(i: number): string {
    const base = this.count * 18;
    return this.buf.toString('utf8', base + this.end(i - 1), base + this.end(i));
  }

  /** The term's length in bytes, without decoding it. */
  bytes(i: number): number {
    return this.end(i) - this.end(i - 1);
  }

  /**
   * How many characters of term i start with a byte `own` does not mark, counting no further
   * than `max + 1`. A character starts at an ASCII byte or a lead byte; continuation bytes
   * (0b10xxxxxx) are skipped.
   */
  foreign(i: number, own: Uint8Array, max: number): number {
    const base = this.count * 18;
    let n = 0;
    for (let k = base + this.end(i - 1), e = base + this.end(i); k < e && n <= max; k++) {
      const b = this.buf[k]!;
      if ((b & 0xc0) !== 0x80 && own[b] !== 1) n++;
    }
    return n;
  }

  private cmp(i: number, key: Buffer): number {
    const base = this.count * 18;
    return Buffer.compare(this.buf.subarray(base + this.end(i - 1), base + this.end(i)), key);
  }

  /** The first index whose term is not below `key` (byte order). */
  lowerBound(key: Buffer): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cmp(mid, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether term i begins with `key`. */
  startsWith(i: number, key: Buffer): boolean {
    const base = this.count * 18 + this.end(i - 1);
    return this.bytes(i) >= key.length && this.buf.compare(key, 0, key.length, base, base + key.length) === 0;
  }

  /** Postings [start, end) of term i, and their checksum. */
  postings(i: number): [number, number, number] {
    return [i ? this.buf.readUInt32LE(this.count * 4 + (i - 1) * 4) : 0, this.buf.readUInt32LE(this.count * 4 + i * 4), this.buf.readUInt32LE(this.count * 8 + i * 4)];
  }

  df(i: number, field: number): number {
    return this.buf.readUInt16LE(this.count * 12 + (i * 3 + field) * 2);
  }
}

/** Per document: its field lengths, kind and branch. */
export class Table {
  constructor(private readonly buf: Buffer) {}

  length(doc: number, field: number): number {
    return this.buf.readUInt16LE(doc * ROW_BYTES + field * 2);
  }

  kind(doc: number): SearchKind {
    return SEARCH_KINDS[this.buf.readUInt8(doc * ROW_BYTES + 6)]!;
  }

  branch(doc: number): number {
    return this.buf.readUInt16LE(doc * ROW_BYTES + 7);
  }
}

/** An open part; `close()` when done. Each method reads and checks one section. */
export class PartFile {
  private constructor(
    private readonly src: Source,
    readonly head: PartHead,
    private readonly at: number[],
    private readonly sizes: number[],
    private readonly crcs: number[],
  ) {}

  private ahead: { from: number; buf: Buffer } | null = null;

  /** The records sections' indexes, once read. */
  private readonly indexes: (Buffer | undefined)[] = [];

  /** Open the part at `path` (or an image in memory) as `shard`'s part `part`; null when the file is missing. */
  static open(where: string | Buffer, shard: string, part: number): PartFile | null {
    let src: Source;
    if (typeof where === 'string') {
      let fd: number;
      try {
        fd = openSync(where, 'r');
      } catch {
        return null;
      }
      src = { fd, size: 0 };
      try {
        src.size = fstatSync(fd).size;
        return PartFile.parse(src, shard, part);
      } catch (err) {
        closeSync(fd);
        throw err;
      }
    }
    return PartFile.parse({ image: where }, shard, part);
  }

  private static parse(src: Source, shard: string, part: number): PartFile {
    const size = 'image' in src ? src.image.length : src.size;
    if (size > MAX_PART_BYTES) damaged('too large');
    let first = '';
    // The first bytes hold the header and, usually, the dictionary and the table: one read.
    const ahead = 'image' in src ? null : { from: 0, buf: readInto(src, aheadBuffer(Math.min(size, AHEAD_MAX / 4)), 0, Math.min(size, AHEAD_MAX / 4)) };
    let nl = ahead ? ahead.buf.indexOf(10) : -1;
    if (nl !== -1) first = ahead!.buf.toString('latin1', 0, nl);
    for (let want = Math.min(size, 2048); nl === -1; want = Math.min(size, MAX_HEADER, want * 4)) {
      const bytes = read(src, 0, want);
      nl = bytes.indexOf(10);
      if (nl !== -1) first = bytes.toString('latin1', 0, nl);
      else if (want >= Math.min(size, MAX_HEADER)) damaged('no header');
    }
    const h: unknown = JSON.parse(first);
    if (!isObject(h) || h.magic !== MAGIC || h.format !== PART_FORMAT || h.shard !== shard || h.part !== part) return damaged('header');
    const { docs, terms, postings, avg, branches, newest, bytes, crc } = h;
    if (!isCount(docs) || docs > MAX_PART_DOCS || !isCount(terms) || !isCount(postings)) return damaged('counts');
    if (!Array.isArray(avg) || avg.length !== FIELDS.length || !avg.every((a) => typeof a === 'number' && Number.isFinite(a) && a >= 0)) return damaged('avg');
    if (!Array.isArray(branches) || !branches.every((b) => typeof b === 'string')) return damaged('branches');
    if (!Array.isArray(newest) || newest.length !== 2 || !newest.every((x) => typeof x === 'string')) return damaged('newest');
    if (!Array.isArray(bytes) || bytes.length !== 5 || !bytes.every(isCount)) return damaged('sizes');
    if (!Array.isArray(crc) || crc.length !== 4 || !crc.every((c) => typeof c === 'string' && /^[0-9a-f]{8}$/.test(c))) return damaged('checksums');
    const [dictBytes, tableBytes, postBytes] = bytes as number[];
    if (dictBytes! < terms * 18 || postBytes !== postings * 4 || tableBytes !== docs * ROW_BYTES || bytes[3]! < docs * 8 || bytes[4]! < docs * 8) return damaged('section sizes');
    const at = [nl + 1];
    for (const b of bytes as number[]) at.push(at[at.length - 1]! + b);
    if (at[5] !== size) return damaged('size');
    const head: PartHead = { docs, terms, postings, avg: avg as number[], branches: branches as string[], newest: newest as [string, string] };
    const p = new PartFile(src, head, at, bytes as number[], (crc as string[]).map((c) => Number.parseInt(c, 16)));
    if (ahead) p.own(ahead);
    return p;
  }

  /** Bytes read ahead into the shared buffer are this part's until another part reads ahead. */
  private own(ahead: { from: number; buf: Buffer }): void {
    this.ahead = ahead;
    aheadOwner = this;
  }

  /** Bytes [position, position + length): from what was read ahead when it holds them. */
  private get(position: number, length: number): Buffer {
    const a = aheadOwner === this ? this.ahead : null;
    if (a && position >= a.from && position + length <= a.from + a.buf.length) return a.buf.subarray(position - a.from, position - a.from + length);
    return read(this.src, position, length);
  }

  /** Read [position, position + length) in one go, for the gets that follow; a file's first bytes are read so. */
  private readAhead(position: number, length: number): void {
    if ('image' in this.src) return;
    this.ahead = null;
    if (length > AHEAD_MAX) return;
    this.own({ from: position, buf: readInto(this.src, aheadBuffer(length), position, length) });
  }

  /** Postings [start, end) are about to be read, a term's at a time: read them at once when they are close. */
  willRead(start: number, end: number): void {
    this.readAhead(this.at[POST]! + start * 4, (end - start) * 4);
  }

  private section(k: number, crcIndex: number): Buffer {
    const buf = this.get(this.at[k]!, this.sizes[k]!);
    if (crc32(buf) !== this.crcs[crcIndex]) damaged(`section ${k} checksum`);
    return buf;
  }

  /** The dictionary, its offsets checked. It lives in a reused buffer: valid until the next part's dict(). */
  dict(): Dict {
    const { terms, postings, docs } = this.head;
    const buf = this.section(DICT, 0);
    const blob = buf.length - terms * 18;
    let prevTerm = 0;
    let prevPost = 0;
    for (let i = 0; i < terms; i++) {
      const te = buf.readUInt32LE(i * 4);
      const pe = buf.readUInt32LE(terms * 4 + i * 4);
      if (te <= prevTerm || te > blob || pe <= prevPost || pe > postings) damaged('dictionary offsets');
      for (let f = 0; f < 3; f++) if (buf.readUInt16LE(terms * 12 + (i * 3 + f) * 2) > docs) damaged('df');
      prevTerm = te;
      prevPost = pe;
    }
    if (prevTerm !== blob || prevPost !== postings) damaged('dictionary ends');
    return new Dict(keep('dict', buf), terms);
  }

  /** The table; it lives in a reused buffer: valid until the next part's table(). */
  table(): Table {
    const buf = keep('table', this.section(TABLE, 1));
    const { docs, branches } = this.head;
    for (let d = 0; d < docs; d++) {
      for (let f = 0; f < 3; f++) {
        const len = buf.readUInt16LE(d * ROW_BYTES + f * 2);
        if (len !== ABSENT && len > 0xfff0) damaged('length');
      }
      if (buf.readUInt8(d * ROW_BYTES + 6) >= SEARCH_KINDS.length || buf.readUInt16LE(d * ROW_BYTES + 7) >= branches.length) damaged('row');
    }
    return new Table(buf);
  }

  /**
   * The postings [start, end) with their checksum, each checked: a known document, a field it
   * has, a term frequency of at least 1. Calls `each(doc, field, tf)` in stored order.
   */
  postings(start: number, end: number, crc: number, table: Table, each: (doc: number, field: number, tf: number) => void): void {
    const buf = this.get(this.at[POST]! + start * 4, (end - start) * 4);
    if (crc32(buf) !== crc) damaged('postings checksum');
    for (let k = 0; k < end - start; k++) {
      const p = buf.readUInt32LE(k * 4);
      const doc = p & 0xfff;
      const field = (p >>> 12) & 3;
      const tf = p >>> 14;
      if (doc >= this.head.docs || field >= FIELDS.length || tf < 1 || tf > MAX_TF) damaged('posting');
      const len = table.length(doc, field);
      if (len === ABSENT || len < 1) damaged('posting to an empty field');
      each(doc, field, tf);
    }
  }

  /** Record k of a records section (META or TEXTS), checked against its checksum. */
  private record(section: number, k: number): Buffer {
    const docs = this.head.docs;
    if (!Number.isSafeInteger(k) || k < 0 || k >= docs) damaged('no such record');
    let index = this.indexes[section];
    if (!index) {
      index = Buffer.from(this.get(this.at[section]!, docs * 8));
      if (index.length < docs * 8 || crc32(index) !== this.crcs[section - 1]) damaged('records index');
      let prev = 0;
      for (let d = 0; d < docs; d++) {
        const end = index.readUInt32LE(d * 8);
        if (end < prev) damaged('records order');
        prev = end;
      }
      if (docs * 8 + prev !== this.sizes[section]) damaged('records size');
      this.indexes[section] = index;
    }
    const from = k ? index.readUInt32LE((k - 1) * 8) : 0;
    const to = index.readUInt32LE(k * 8);
    const bytes = this.get(this.at[section]! + docs * 8 + from, to - from);
    if (crc32(bytes) !== index.readUInt32LE(k * 8 + 4)) damaged('record checksum');
    return bytes;
  }

  /** Document d's row: its id, time, ref, title and hash. */
  metaRow(d: number): MetaRow {
    const r: unknown = JSON.parse(decode(this.record(META, d)));
    if (!Array.isArray(r) || r.length !== 5 || typeof r[0] !== 'string' || !r[0] || r[0].length > MAX_ID || typeof r[1] !== 'string') return damaged('meta row');
    if (![r[2], r[3], r[4]].every((x) => x === null || typeof x === 'string')) damaged('meta row');
    return r as MetaRow;
  }

  /** Every row, their ids unique. */
  meta(): MetaRow[] {
    const rows = Array.from({ length: this.head.docs }, (_, d) => this.metaRow(d));
    if (new Set(rows.map((r) => r[0])).size !== rows.length) damaged('an id twice');
    return rows;
  }

  text(d: number): string {
    return this.record(TEXTS, d).toString('utf8');
  }

  texts(): string[] {
    return Array.from({ length: this.head.docs }, (_, d) => this.text(d));
  }

  close(): void {
    if ('fd' in this.src) closeSync(this.src.fd);
  }
}

const decode = (b: Buffer) => b.toString(isAscii(b) ? 'latin1' : 'utf8');

function read(src: Source, position: number, length: number): Buffer {
  if ('image' in src) return src.image.subarray(position, position + length);
  if (length <= SCRATCH_MAX && (!buffers.any || buffers.any.length < length)) buffers.any = Buffer.allocUnsafe(Math.max(length, 256 * 1024));
  return readInto(src, length <= SCRATCH_MAX ? buffers.any! : Buffer.allocUnsafe(length), position, length);
}

/** Bytes [position, position + length) of a file, into `buf`. */
function readInto(src: Source, buf: Buffer, position: number, length: number): Buffer {
  if ('image' in src) return src.image.subarray(position, position + length);
  let got = 0;
  while (got < length) {
    const n = readSync(src.fd, buf, got, length - got, position + got);
    if (n === 0) damaged('cut short');
    got += n;
  }
  return buf.subarray(0, length);
}

/** Run `use` on an open part, closing it after; null when the file is missing or damaged. */
export function withPart<T>(where: string | Buffer, shard: string, part: number, use: (p: PartFile) => T): T | null {
  let p: PartFile | null;
  try {
    p = PartFile.open(where, shard, part);
  } catch {
    return null;
  }
  if (!p) return null;
  try {
    return use(p);
  } catch (err) {
    if (err instanceof PartDamaged || err instanceof SyntaxError || err instanceof RangeError) return null;
    throw err;
  } finally {
    p.close();
  }
}
