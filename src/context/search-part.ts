/**
 * One part of a shard of the search index: the MiniSearch index of a run of consecutive
 * documents of one segment, and the texts snippets are cut from, in one file
 * under the cache folder. A segment's documents fill part 0, then part 1, …; a full part is
 * written once and never again, so appending to the open segment rewrites one small part.
 *
 *   line 1   {"magic":"gcc-search-part","format":1,"shard":…,"part":k,"docs":N,"ids":[…],"index":I,"texts":T}
 *   then     I bytes: MiniSearch's toJSON()
 *   then     T bytes: [[id, text], …] in the order the documents were added
 *
 * The header names the part's document ids, so feeding can skip known ids without reading
 * full parts. A query reads the header and the index section; the texts of the few parts
 * holding the page's hits are read afterwards. The file is a cache and untrusted: every part
 * of it is checked before MiniSearch sees it (shapes, ids, lengths, kinds), and anything
 * wrong makes the shard unreadable, to be fed again by the engine.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type MiniSearch from 'minisearch';
import type { AsPlainObject, Options } from 'minisearch';
import { miniSearchLib } from '../runtime/lazy-deps.js';
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
}

export interface IndexedDoc extends Stored {
  id: string;
  text: string;
}

export const PART_FORMAT = 1;
const MAGIC = 'gcc-search-part';
/** Field ids are positions here; a file written with another order is rejected. */
export const FIELDS = ['title', 'ref', 'text'] as const;
const STORED_KEYS: readonly string[] = ['branch', 'kind', 'at', 'ref', 'title'];
const KINDS: ReadonlySet<string> = new Set(SEARCH_KINDS);

/** Larger part files are refused unread: a part's texts are bounded, its index a few times that. */
export const MAX_PART_BYTES = 64 * 1024 * 1024;
export const MAX_ID = 200;
/** Room for the header: names, counts and up to MAX_PART_DOCS ids of MAX_ID characters, JSON-escaped. */
export const MAX_PART_DOCS = 4096;
const MAX_HEADER = 64 + MAX_PART_DOCS * (MAX_ID * 6 + 3) + 2048;

export const MINI_OPTIONS: Options<IndexedDoc> = {
  idField: 'id',
  fields: [...FIELDS],
  storeFields: [...STORED_KEYS],
  tokenize: tokens,
  processTerm: indexTerms,
  autoVacuum: false,
};

/** MiniSearch's serialized form (serializationVersion 2), as far as this module relies on it. */
export interface Plain {
  documentCount: number;
  nextId: number;
  documentIds: Record<string, string>;
  fieldIds: Record<string, number>;
  fieldLength: Record<string, (number | null)[]>;
  averageFieldLength: (number | null)[];
  storedFields: Record<string, Stored>;
  index: [string, Record<string, Record<string, number>>][];
  serializationVersion: 2;
}

export interface PartData {
  ms: MiniSearch<IndexedDoc>;
  plain: Plain;
  /** Present when the texts were asked for. */
  texts?: Map<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const FIELD_KEYS: readonly string[] = FIELDS.map((_, i) => String(i));
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function validStored(v: unknown): v is Stored {
  if (!isObject(v)) return false;
  for (const k of Object.keys(v)) if (!STORED_KEYS.includes(k)) return false;
  if (typeof v.branch !== 'string' || typeof v.at !== 'string' || typeof v.kind !== 'string' || !KINDS.has(v.kind)) return false;
  return (v.ref === undefined || typeof v.ref === 'string') && (v.title === undefined || typeof v.title === 'string');
}

/**
 * Whether `p` is an index this module wrote: consistent counts and ids, our fields in our
 * order, every posting naming a known document with a length for that field. Anything else
 * could make MiniSearch throw, or score NaN, or hand back objects we never stored.
 */
export function validPlain(p: unknown, ids: readonly string[]): p is Plain {
  const docs = ids.length;
  if (!isObject(p) || p.serializationVersion !== 2) return false;
  if (p.documentCount !== docs || p.nextId !== docs || (p.dirtCount !== undefined && p.dirtCount !== 0)) return false;
  const { fieldIds, documentIds, fieldLength, storedFields, averageFieldLength, index } = p;
  if (!isObject(fieldIds) || Object.keys(fieldIds).length !== FIELDS.length || FIELDS.some((f, i) => fieldIds[f] !== i)) return false;
  if (!Array.isArray(averageFieldLength) || averageFieldLength.length > FIELDS.length) return false;
  if (!averageFieldLength.every((x) => x === null || (typeof x === 'number' && Number.isFinite(x) && x >= 0))) return false;
  if (!isObject(documentIds) || !isObject(fieldLength) || !isObject(storedFields) || !Array.isArray(index)) return false;
  if (Object.keys(documentIds).length !== docs || Object.keys(fieldLength).length !== docs || Object.keys(storedFields).length !== docs) return false;
  // Short ids are 0…n-1 in the header's order: documents are only ever added.
  const lengths: unknown[][] = [];
  for (let i = 0; i < docs; i++) {
    const l = fieldLength[i];
    if (documentIds[i] !== ids[i] || !Array.isArray(l) || l.length > FIELDS.length || !l.every((x) => x === null || isCount(x))) return false;
    if (!validStored(storedFields[i])) return false;
    lengths.push(l);
  }
  for (const entry of index) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || !entry[0] || !isObject(entry[1])) return false;
    const byField = entry[1];
    for (const f in byField) {
      const fieldId = FIELD_KEYS.indexOf(f);
      const avg = averageFieldLength[fieldId];
      const postings = byField[f];
      if (fieldId === -1 || typeof avg !== 'number' || avg <= 0 || !isObject(postings)) return false;
      for (const k in postings) {
        const d = Number(k);
        const tf = postings[k];
        if (!Number.isInteger(d) || d < 0 || d >= docs || typeof tf !== 'number' || !Number.isSafeInteger(tf) || tf < 1) return false;
        const len = lengths[d]![fieldId];
        if (typeof len !== 'number' || len < 1) return false;
      }
    }
  }
  return true;
}

function validTexts(v: unknown, ids: readonly string[]): Map<string, string> | null {
  if (!Array.isArray(v) || v.length !== ids.length) return null;
  const out = new Map<string, string>();
  for (const [i, e] of v.entries()) {
    if (!Array.isArray(e) || e.length !== 2 || e[0] !== ids[i] || typeof e[1] !== 'string') return null;
    out.set(e[0], e[1]);
  }
  return out;
}

export interface PartHeader {
  docs: number;
  ids: string[];
  headerBytes: number;
  index: number;
  texts: number;
}

const escapeWide = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
/** JSON with every character past ASCII escaped: a query decodes an ASCII part several times faster. */
const asciiJson = (v: unknown) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, escapeWide);

/** The file's pieces, as strings, ready to be written in order. */
export function serializePart(shard: string, part: number, ms: MiniSearch<IndexedDoc>, texts: ReadonlyMap<string, string>): string[] {
  const index = asciiJson(ms);
  const body = asciiJson([...texts]);
  const header = JSON.stringify({ magic: MAGIC, format: PART_FORMAT, shard, part, docs: ms.documentCount, ids: [...texts.keys()], index: Buffer.byteLength(index), texts: Buffer.byteLength(body) });
  return [`${header}\n`, index, body];
}

/** One read buffer reused across parts, so a query does not leave a buffer per part to collect. */
let scratch: Buffer | null = null;
const SCRATCH_MAX = 8 * 1024 * 1024;

function readAt(fd: number, position: number, length: number): string {
  if (length <= SCRATCH_MAX && (!scratch || scratch.length < length)) scratch = Buffer.allocUnsafe(Math.max(length, 256 * 1024));
  const buf = length <= SCRATCH_MAX ? scratch! : Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  const bytes = buf.subarray(0, got);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

function header(fd: number, shard: string, part: number): PartHeader | null {
  const size = fstatSync(fd).size;
  if (size > MAX_PART_BYTES) return null;
  // The header is a few KB: read a little, and more only while no line end has been seen.
  let first = '';
  let nl = -1;
  for (let want = Math.min(size, 16 * 1024); nl === -1; want = Math.min(size, MAX_HEADER, want * 4)) {
    first = readAt(fd, 0, want);
    nl = first.indexOf('\n');
    if (nl === -1 && want >= Math.min(size, MAX_HEADER)) return null;
  }
  const h: unknown = JSON.parse(first.slice(0, nl));
  if (!isObject(h) || h.magic !== MAGIC || h.format !== PART_FORMAT || h.shard !== shard || h.part !== part) return null;
  if (!isCount(h.docs) || h.docs > MAX_PART_DOCS || !isCount(h.index) || !isCount(h.texts) || !Array.isArray(h.ids) || h.ids.length !== h.docs) return null;
  const ids = h.ids as unknown[];
  if (!ids.every((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= MAX_ID) || new Set(ids).size !== ids.length) return null;
  const headerBytes = Buffer.byteLength(first.slice(0, nl + 1));
  if (headerBytes + h.index + h.texts !== size) return null;
  return { docs: h.docs, ids, headerBytes, index: h.index, texts: h.texts };
}

/** Run `read` on the open file of a part; null when it is missing or anything in it is wrong. */
function withPart<T>(path: string, read: (fd: number) => T | null): T | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    return read(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The header of a part (its document count and ids), or null when the file is not that part's. */
export function readPartHeader(path: string, shard: string, part: number): PartHeader | null {
  return withPart(path, (fd) => header(fd, shard, part));
}

/**
 * The part stored at `path`, or null when it is missing, cut short, malformed, of another
 * format or for another shard or part. `withTexts` also reads and checks the texts.
 */
export function readPart(path: string, shard: string, part: number, withTexts: boolean): PartData | null {
  return withPart(path, (fd) => {
    const h = header(fd, shard, part);
    if (!h) return null;
    const plain: unknown = JSON.parse(readAt(fd, h.headerBytes, h.index));
    if (!validPlain(plain, h.ids)) return null;
    // Holes in the length arrays (a field a document lacks) come back from JSON as null.
    const ms = miniSearchLib().loadJS<IndexedDoc>(plain as unknown as AsPlainObject, MINI_OPTIONS);
    if (!withTexts) return { ms, plain };
    const texts = validTexts(JSON.parse(readAt(fd, h.headerBytes + h.index, h.texts)), h.ids);
    return texts ? { ms, plain, texts } : null;
  });
}

/** Only the texts of a part (for snippets), checked against its header; null when unreadable. */
export function readPartTexts(path: string, shard: string, part: number): Map<string, string> | null {
  return withPart(path, (fd) => {
    const h = header(fd, shard, part);
    return h ? validTexts(JSON.parse(readAt(fd, h.headerBytes + h.index, h.texts)), h.ids) : null;
  });
}
