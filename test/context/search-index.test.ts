/**
 * The search index as the engine uses it: feed shards, flush, reopen, search — with ranked,
 * multi-word, typo-tolerant matching, and a cache on disk that is never trusted.
 */
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RANKED, SearchIndex, partFile, TEXT_LIMIT } from '../../src/context/search-index.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { doc, eventId, prose } from './search-fixtures.js';

afterAll(cleanup);

const fresh = () => join(tempProject('gcc-search-'), 'cache', 'search');
const refs = (r: { hits: { doc: { ref?: string } }[] }) => r.hits.map((h) => h.doc.ref);

describe('ranking', () => {
  it('finds every commit holding both words, not just the phrase, best first', () => {
    const idx = new SearchIndex(fresh());
    const docs = Array.from({ length: 12 }, (_, i) =>
      doc(i, {
        title: i === 4 ? 'Tokenizer learns Unicode' : `Step ${i}`,
        text: i % 2 ? `the unicode ${prose(i, 30)} tokenizer` : `tokenizer for ${prose(i, 10)} and unicode`,
      }),
    );
    idx.add('seg-a', docs);
    const r = idx.search('tokenizer unicode', { limit: 20 });
    expect(r.match).toBe('all');
    expect(r.total).toBe(12);
    expect(r.hits).toHaveLength(12);
    expect(r.hits[0]!.doc.ref).toBe(docs[4]!.ref); // both words in the title, which counts double
    for (let i = 1; i < r.hits.length; i++) expect(r.hits[i - 1]!.score).toBeGreaterThanOrEqual(r.hits[i]!.score);
    // Shorter texts with the same words rank above longer ones (BM25's length normalisation).
    const pos = (n: number) => r.hits.findIndex((h) => h.doc.id === eventId(n));
    expect(pos(2)).toBeLessThan(pos(3));
  });

  it('falls back to any word when no document has all of them, and says so', () => {
    const idx = new SearchIndex(fresh());
    idx.add('seg-a', [doc(1, { text: 'the tokenizer' }), doc(2, { text: 'a zebra' }), doc(3, { text: 'nothing here' })]);
    const any = idx.search('tokenizer zebra');
    expect(any.match).toBe('any');
    expect(any.total).toBe(2);
    expect(any.hits.map((h) => h.doc.id).sort()).toEqual([eventId(1), eventId(2)]);
    idx.add('seg-b', [doc(4, { shard: 'seg-b', text: 'a zebra wrote the tokenizer' })]);
    const all = idx.search('tokenizer zebra');
    expect(all.match).toBe('all');
    expect(all.total).toBe(1);
    expect(all.hits[0]!.doc.id).toBe(eventId(4));
    expect(idx.search('quokka')).toMatchObject({ total: 0, pages: 0, match: 'all', hits: [] });
    expect(idx.search('  ;;; ')).toMatchObject({ total: 0, hits: [] });
  });

  it('splits camelCase, snake_case, kebab-case and paths, and ranks the exact identifier first', () => {
    const idx = new SearchIndex(fresh());
    idx.add('seg-a', [
      doc(1, { text: 'call retryWithBackoff on failure' }),
      doc(2, { text: 'edited src/http.ts and src/cache/lru.ts' }),
      doc(3, { text: 'the retry_with_backoff helper' }),
      doc(4, { text: 'see http-client-options' }),
      doc(5, { title: 'Tokenizer', text: 'HTTPServer restarts' }),
      doc(6, { text: 'src has http code in ts files' }),
    ]);
    const ids = (q: string) => idx.search(q).hits.map((h) => h.doc.id);
    expect(ids('retry')).toEqual(expect.arrayContaining([eventId(1), eventId(3)]));
    expect(ids('backoff')).toHaveLength(2);
    expect(ids('tokenizer')).toEqual([eventId(5)]);
    expect(ids('server')).toEqual([eventId(5)]);
    expect(ids('lru')).toEqual([eventId(2)]);
    expect(ids('client')).toEqual([eventId(4)]);
    expect(ids('http')).toEqual(expect.arrayContaining([eventId(2), eventId(4), eventId(5), eventId(6)]));
    const path = ids('src/http.ts');
    expect(path[0]).toBe(eventId(2)); // the whole path is a term of its own
    expect(path).toContain(eventId(6));
    expect(ids('retryWithBackoff')[0]).toBe(eventId(1));
  });

  it('tolerates typos in long words only, and completes the last word', () => {
    const idx = new SearchIndex(fresh());
    idx.add('seg-a', [doc(1, { text: 'the tokenizer handles unicode' }), doc(2, { text: 'read the log' }), doc(3, { text: 'a lag spike' })]);
    const ids = (q: string) => idx.search(q).hits.map((h) => h.doc.id);
    expect(ids('tokenzier')).toEqual([eventId(1)]); // transposition: two edits, allowed from 8 letters
    expect(ids('tokenizr')).toEqual([eventId(1)]);
    expect(ids('log')).toEqual([eventId(2)]); // no fuzzy under 5 letters: `lag` is another word
    expect(ids('tokenizer unic')).toEqual([eventId(1)]); // prefix on the last word
    const notLast = idx.search('unic tokenizer');
    expect(notLast.match).toBe('any'); // `unic` is not a prefix when it is not the last word
  });

  it('breaks ties newest first and pages without overlap', () => {
    const idx = new SearchIndex(fresh());
    idx.add('seg-a', Array.from({ length: 25 }, (_, i) => doc(i, { text: 'same words here' })));
    const p1 = idx.search('same words', { limit: 10 });
    const p3 = idx.search('same words', { limit: 10, page: 3 });
    expect(p1.pages).toBe(3);
    expect(p1.hits.map((h) => h.doc.id)).toEqual(Array.from({ length: 10 }, (_, i) => eventId(24 - i)));
    expect(p3.hits.map((h) => h.doc.id)).toEqual(Array.from({ length: 5 }, (_, i) => eventId(4 - i)));
    expect(idx.search('same words', { limit: 10, page: 9 }).hits).toEqual([]);
  });

  it('folds accents both ways, keeps the marks other scripts need, and shows the text as written', () => {
    const idx = new SearchIndex(fresh());
    idx.add('seg-a', [
      doc(1, { text: 'met at the café' }),
      doc(2, { text: 'a naive cafe' }),
      doc(3, { text: 'Ñandú in Łódź, Straße' }),
      doc(4, { text: 'ガード' }), // the voiced kana is another letter than the plain one
      doc(6, { text: 'カード' }),
      doc(5, { text: 'cafe\u0301 decomposed' }),
    ]);
    const ids = (q: string) => idx.search(q).hits.map((h) => h.doc.id).sort();
    expect(ids('cafe')).toEqual([1, 2, 5].map(eventId));
    expect(ids('café')).toEqual([1, 2, 5].map(eventId));
    expect(ids('CAFÉ')).toEqual([1, 2, 5].map(eventId));
    expect(ids('naïve')).toEqual([eventId(2)]);
    expect(ids('nandu lodz strasse')).toEqual([eventId(3)]);
    expect(ids('ガード')).toEqual([eventId(4)]);
    expect(ids('カード')).toEqual([eventId(6)]);
    expect(idx.search('cafe').hits.find((h) => h.doc.id === eventId(1))!.snippet).toBe('met at the «café»');
  });

  it('breaks ties newest first across parts visited oldest first', () => {
    // seg-b is visited first (names newest first) but holds the older documents.
    const idx = new SearchIndex(fresh(), { partDocs: 2 });
    idx.add('seg-b', [0, 1, 2, 3].map((i) => doc(i, { shard: 'seg-b', text: 'same words' })));
    idx.add('seg-a', [4, 5, 6, 7].map((i) => doc(i, { shard: 'seg-a', text: 'same words' })));
    expect(idx.search('same', { limit: 1 }).hits.map((h) => h.doc.id)).toEqual([eventId(7)]);
    expect(idx.search('same', { limit: 3 }).hits.map((h) => h.doc.id)).toEqual([7, 6, 5].map(eventId));
  });

  it('filters by branch and kind', () => {
    const idx = new SearchIndex(fresh());
    idx.add('seg-a', [
      doc(1, { text: 'parser work', branch: 'feat/parser' }),
      doc(2, { text: 'parser note', kind: 'log' }),
      doc(3, { text: 'parser commit' }),
    ]);
    expect(idx.search('parser', { branch: 'feat/parser' }).hits.map((h) => h.doc.id)).toEqual([eventId(1)]);
    expect(idx.search('parser', { kinds: ['log'] }).hits.map((h) => h.doc.id)).toEqual([eventId(2)]);
    expect(idx.search('parser', { kinds: [] }).total).toBe(3);
  });

  it('indexes the first TEXT_LIMIT characters of a long text and says where it was cut', () => {
    const idx = new SearchIndex(fresh());
    const long = `${'alpha '.repeat(TEXT_LIMIT / 6)} omega`;
    idx.add('seg-a', [doc(1, { text: long })]);
    expect(idx.search('alpha').total).toBe(1);
    expect(idx.search('omega').total).toBe(0);
  });

  it('caps the ranks kept, and says how many pages there are', () => {
    expect(MAX_RANKED).toBeGreaterThanOrEqual(1000);
    const idx = new SearchIndex(fresh());
    idx.add('seg-a', Array.from({ length: 30 }, (_, i) => doc(i, { text: `word ${i}` })));
    const r = idx.search('word', { limit: 7 });
    expect(r).toMatchObject({ total: 30, pages: 5 });
  });
});

describe('feeding and the cache on disk', () => {
  it('adds idempotently by id', () => {
    const idx = new SearchIndex(fresh());
    const docs = [doc(1, { text: 'alpha' }), doc(2, { text: 'beta alpha' })];
    expect(idx.add('seg-a', docs)).toBe(2);
    expect(idx.add('seg-a', docs)).toBe(2);
    expect(idx.add('seg-a', [...docs, doc(3, { text: 'alpha' })])).toBe(3);
    expect(idx.count('seg-a')).toBe(3);
    expect(idx.search('alpha').total).toBe(3);
  });

  it('persists on flush and resumes incrementally after a reopen', () => {
    const dir = fresh();
    const all = Array.from({ length: 15 }, (_, i) => doc(i, { text: `entry ${i} ${prose(i, 8)} marker${i}` }));
    const a = new SearchIndex(dir);
    a.add('seg-a', all.slice(0, 10));
    expect(a.flush()).toBeNull();
    const b = new SearchIndex(dir);
    expect(b.count('seg-a')).toBe(10);
    expect(b.search('marker3').hits[0]!.doc.id).toBe(eventId(3));
    b.add('seg-a', all.slice(b.count('seg-a')));
    expect(b.flush()).toBeNull();
    const c = new SearchIndex(dir);
    expect(c.count('seg-a')).toBe(15);
    expect(c.search('marker3').hits[0]!.doc.id).toBe(eventId(3));
    expect(c.search('marker14').hits[0]!.doc.id).toBe(eventId(14));
    expect(c.search('marker14').hits[0]!.snippet).toContain('«marker14»');
    expect(c.count('seg-never')).toBe(0);
  });

  it('cuts a shard into parts, writes each full part once, and resumes across parts after a reopen', () => {
    const dir = fresh();
    const all = Array.from({ length: 15 }, (_, i) => doc(i, { text: `entry marker${i} ${i % 2 ? 'odd' : 'even'}` }));
    const a = new SearchIndex(dir, { partDocs: 4 });
    expect(a.add('seg-a', all.slice(0, 10))).toBe(10);
    expect(a.flush()).toBeNull();
    const files = () => readdirSync(dir).filter((f) => f !== 'manifest.json').sort();
    expect(files()).toEqual([0, 1, 2].map((p) => partFile('seg-a', p)).sort());
    const sealed = readFileSync(join(dir, partFile('seg-a', 1)));
    const b = new SearchIndex(dir, { partDocs: 4 });
    expect(b.count('seg-a')).toBe(10);
    expect(b.add('seg-a', all)).toBe(15); // the first ten are known ids, in sealed parts or not
    expect(b.flush()).toBeNull();
    expect(readFileSync(join(dir, partFile('seg-a', 1)))).toEqual(sealed);
    const c = new SearchIndex(dir, { partDocs: 4 });
    expect(c.count('seg-a')).toBe(15);
    expect(files()).toHaveLength(4);
    expect(c.search('entry', { limit: 100 }).total).toBe(15);
    expect(c.search('odd').total).toBe(7);
    expect(c.search('marker13').hits[0]!.snippet).toContain('«marker13»');
    expect(c.search('marker1').hits[0]!.doc.id).toBe(eventId(1));
  });

  it('seals a part at its term budget before its document cap', () => {
    const dir = fresh();
    // Each document brings 20 new words (and its ref 2): a budget of 50 terms fills a part every 3 documents.
    const all = Array.from({ length: 40 }, (_, i) => doc(i, { text: Array.from({ length: 20 }, (_, w) => `w${i}x${w}`).join(' ') }));
    const a = new SearchIndex(dir, { partDocs: 256, partTerms: 50 });
    a.add('seg-a', all.slice(0, 16));
    a.add('seg-a', all.slice(16, 35));
    expect(a.flush()).toBeNull();
    const parts = () => readdirSync(dir).filter((f) => f !== 'manifest.json');
    expect(parts()).toHaveLength(12); // 11 full parts of 3, then the 2 written by flush
    const b = new SearchIndex(dir, { partDocs: 256, partTerms: 50 });
    expect(b.add('seg-a', all)).toBe(40);
    b.flush();
    expect(parts()).toHaveLength(14);
    expect(readFileSync(join(dir, partFile('seg-a', 13)), 'latin1')).toContain('"docs":1,');
    const c = new SearchIndex(dir);
    expect(c.count('seg-a')).toBe(40);
    expect(c.search('w39x19').hits[0]!.doc.id).toBe(eventId(39));
    expect(c.search('w0x0').hits[0]!.doc.id).toBe(eventId(0));
  });

  it('writes a shard once it is no longer being fed, without waiting for flush', () => {
    const dir = fresh();
    const idx = new SearchIndex(dir);
    for (let s = 0; s < 4; s++) idx.add(`seg-${s}`, [doc(s, { shard: `seg-${s}`, text: `shard ${s}` })]);
    expect(existsSync(join(dir, partFile('seg-0', 0)))).toBe(true);
    expect(existsSync(join(dir, partFile('seg-3', 0)))).toBe(false); // still held
    idx.flush();
    const again = new SearchIndex(dir);
    for (let s = 0; s < 4; s++) expect(again.count(`seg-${s}`)).toBe(1);
  });

  it('drops a shard, and retains only the shards asked for', () => {
    const dir = fresh();
    const idx = new SearchIndex(dir);
    for (const s of ['seg-1', 'seg-2', 'seg-3']) idx.add(s, [doc(Number(s.slice(-1)), { shard: s, text: `common ${s}` })]);
    idx.flush();
    idx.drop('seg-1');
    expect(idx.count('seg-1')).toBe(0);
    expect(existsSync(join(dir, partFile('seg-1', 0)))).toBe(false);
    idx.retain(new Set(['seg-3']));
    idx.flush();
    expect(idx.search('common').hits.map((h) => h.doc.id)).toEqual([eventId(3)]);
    const again = new SearchIndex(dir);
    expect([again.count('seg-1'), again.count('seg-2'), again.count('seg-3')]).toEqual([0, 0, 1]);
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', partFile('seg-3', 0)].sort());
  });

  it('keeps prototype-named branches and shards as plain data', () => {
    const idx = new SearchIndex(fresh());
    const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype'];
    names.forEach((b, i) => idx.add(b, [doc(i, { shard: b, branch: b, title: b, text: `word from ${b}` })]));
    idx.flush();
    for (const b of names) {
      const r = idx.search('word', { branch: b });
      expect(r.hits.map((h) => h.doc.branch)).toEqual([b]);
      expect(idx.count(b)).toBe(1);
    }
    expect(idx.search('word').total).toBe(names.length);
    expect(({} as Record<string, unknown>).word).toBeUndefined();
    expect(Object.getPrototypeOf(idx.search('word').hits[0]!.doc)).toBe(Object.prototype);
  });

  it('refuses a bad shard name as a typed error', () => {
    const idx = new SearchIndex(fresh());
    expect(() => idx.add('', [doc(1, { text: 'x' })])).toThrow(expect.objectContaining({ code: 'E_INVALID_ARGUMENT' }));
  });
});

describe('an untrusted cache', () => {
  const seed = () => {
    const dir = fresh();
    const idx = new SearchIndex(dir);
    idx.add('seg-a', Array.from({ length: 5 }, (_, i) => doc(i, { text: `alpha ${i}` })));
    idx.add('seg-b', Array.from({ length: 5 }, (_, i) => doc(10 + i, { shard: 'seg-b', text: `alpha ${i}` })));
    idx.flush();
    return { dir, file: join(dir, partFile('seg-a', 0)), all: Array.from({ length: 5 }, (_, i) => doc(i, { text: `alpha ${i}` })) };
  };

  it('counts a shard whose last part is missing as empty', () => {
    const dir = fresh();
    const a = new SearchIndex(dir, { partDocs: 2 });
    a.add('seg-a', [doc(1, { text: 'x' }), doc(2, { text: 'x' }), doc(3, { text: 'x' })]);
    a.flush();
    unlinkSync(join(dir, partFile('seg-a', 1)));
    expect(new SearchIndex(dir, { partDocs: 2 }).count('seg-a')).toBe(0);
  });

  it('counts a truncated or missing shard file as empty, and rebuilds it when fed', () => {
    const { dir, file, all } = seed();
    writeFileSync(file, readFileSync(file).subarray(0, 100));
    const idx = new SearchIndex(dir);
    expect(idx.count('seg-a')).toBe(0);
    expect(idx.count('seg-b')).toBe(5);
    expect(idx.search('alpha').total).toBe(5);
    idx.add('seg-a', all);
    expect(idx.search('alpha').total).toBe(10);
  });

  /** Change a part file in place, keeping its size (the size is all count() checks). */
  const sameSize = (file: string, f: (bytes: Buffer) => void) => {
    const bytes = readFileSync(file);
    const size = bytes.length;
    f(bytes);
    expect(bytes.length).toBe(size);
    writeFileSync(file, bytes);
  };
  /** The header and where each section starts: dict, table, postings, meta, texts. */
  const layout = (bytes: Buffer) => {
    const nl = bytes.indexOf(10);
    const head = JSON.parse(bytes.subarray(0, nl).toString('latin1')) as { docs: number; terms: number; bytes: number[]; crc: string[] };
    const at = [nl + 1];
    for (const n of head.bytes) at.push(at[at.length - 1]! + n);
    return { nl, head, at };
  };
  const replaceIn = (bytes: Buffer, from: string, to: string) => {
    const text = bytes.toString('latin1');
    expect(text).toContain(from);
    bytes.write(text.replace(from, to), 0, 'latin1');
  };
  /** Recompute the checksum of section k (0 dict, 1 table, 3 meta's index, 4 texts' index), as a forger would. */
  const reseal = (bytes: Buffer, k: number) => {
    const { nl, head, at } = layout(bytes);
    const c = [0, 1, -1, 2, 3][k]!;
    const sum = crc32(bytes.subarray(at[k]!, k >= 3 ? at[k]! + head.docs * 8 : at[k + 1]!)).toString(16).padStart(8, '0');
    bytes.write(bytes.subarray(0, nl).toString('latin1').replace(`"${head.crc[c]}"`, `"${sum}"`), 0, 'latin1');
  };
  /** Where the postings of `term` start in the file, and the place of its checksum. */
  const postingsOf = (bytes: Buffer, term: string) => {
    const { at, head } = layout(bytes);
    const T = head.terms;
    const end = (i: number) => (i < 0 ? 0 : bytes.readUInt32LE(at[0]! + i * 4));
    for (let i = 0; i < T; i++) {
      if (bytes.subarray(at[0]! + T * 18 + end(i - 1), at[0]! + T * 18 + end(i)).toString('utf8') !== term) continue;
      const from = i ? bytes.readUInt32LE(at[0]! + T * 4 + (i - 1) * 4) : 0;
      const to = bytes.readUInt32LE(at[0]! + T * 4 + i * 4);
      return { start: at[2]! + from * 4, end: at[2]! + to * 4, crcAt: at[0]! + T * 8 + i * 4 };
    }
    throw new Error(`no term ${term}`);
  };
  const flipAt = (b: Buffer, i: number) => b.writeUInt8(b.readUInt8(i) ^ 0x20, i);
  const flip = (k: number, offset = 0) => (b: Buffer) => flipAt(b, layout(b).at[k]! + offset);

  // Each breaks one part of the file; the texts are only read for the page's snippets.
  const hostile: [string, (b: Buffer) => void][] = [
    ['garbage bytes', (b) => b.fill('x')],
    ['another format version', (b) => replaceIn(b, '"format":2', '"format":9')],
    ['another shard name', (b) => replaceIn(b, '"shard":"seg-a"', '"shard":"seg-z"')],
    ['a damaged dictionary', flip(0, 3)],
    ['a damaged posting', (b) => flipAt(b, postingsOf(b, 'alpha').start + 1)],
    ['a damaged table', flip(1, 0)],
    ['a damaged meta section', flip(3, 4)],
    [
      'a posting to an unknown document, checksums forged',
      (b) => {
        const p = postingsOf(b, 'alpha');
        b.writeUInt32LE(((b.readUInt32LE(p.start) & ~0xfff) | 9) >>> 0, p.start);
        b.writeUInt32LE(crc32(b.subarray(p.start, p.end)), p.crcAt);
        reseal(b, 0);
      },
    ],
    [
      'a dictionary offset past its end, checksum forged',
      (b) => {
        const { at } = layout(b);
        b.writeUInt32LE(0xffffff, at[0]!);
        reseal(b, 0);
      },
    ],
    [
      'an unknown kind, checksum forged',
      (b) => {
        const { at } = layout(b);
        b[at[1]! + 6] = 200;
        reseal(b, 1);
      },
    ],
    [
      'a meta row that is not one, checksums forged',
      (b) => {
        const { at, head } = layout(b);
        const data = at[3]! + head.docs * 8;
        expect(String.fromCharCode(b[data]!)).toBe('[');
        b[data] = '{'.charCodeAt(0);
        b.writeUInt32LE(crc32(b.subarray(data, data + b.readUInt32LE(at[3]!))), at[3]! + 4);
        reseal(b, 3);
      },
    ],
    ['a broken texts section', flip(4, 2)],
  ];
  for (const [what, corrupt] of hostile) {
    it(`ignores a shard file with ${what}, reports it, and takes it again when fed`, () => {
      const { dir, file, all } = seed();
      sameSize(file, corrupt);
      const idx = new SearchIndex(dir);
      const r = idx.search('alpha');
      expect(r.total).toBe(what.includes('texts') ? 10 : 5); // seg-b only, unless the index itself was sound
      expect(r.unreadable).toEqual(['seg-a']);
      expect(idx.count('seg-a')).toBe(0);
      idx.add('seg-a', all);
      expect(idx.search('alpha').total).toBe(10);
      expect(Object.getPrototypeOf(r.hits[0]!.doc)).toBe(Object.prototype);
    });
  }

  it('drops the whole shard when one of its sealed parts is damaged', () => {
    const dir = fresh();
    const all = Array.from({ length: 10 }, (_, i) => doc(i, { text: `alpha ${i}` }));
    const a = new SearchIndex(dir, { partDocs: 3 });
    a.add('seg-a', all);
    a.flush();
    const file = join(dir, partFile('seg-a', 1));
    sameSize(file, (bytes) => {
      const { at } = layout(bytes);
      bytes[at[1]! + 6] = 200;
    });
    const b = new SearchIndex(dir, { partDocs: 3 });
    expect(b.count('seg-a')).toBe(10); // only the last part's size is checked here
    expect(b.search('alpha', { limit: 50 })).toMatchObject({ unreadable: ['seg-a'] });
    expect(b.count('seg-a')).toBe(0);
    expect(readdirSync(dir)).toEqual(['manifest.json']);
    expect(b.add('seg-a', all)).toBe(10);
    expect(b.search('alpha', { limit: 50 })).toMatchObject({ total: 10, unreadable: [] });
    // A damaged sealed part found while feeding: the shard is refused until count() says 0.
    b.flush();
    sameSize(file, (b) => replaceIn(b, '"format":2', '"format":9'));
    const c = new SearchIndex(dir, { partDocs: 3 });
    expect(c.add('seg-a', [doc(10, { text: 'alpha 10' })])).toBe(0);
    expect(c.count('seg-a')).toBe(0);
    expect(c.add('seg-a', [...all, doc(10, { text: 'alpha 10' })])).toBe(11);
  });

  it('refuses documents for a shard whose file turns out unreadable until count() has said 0', () => {
    const { dir, file, all } = seed();
    sameSize(file, (b) => replaceIn(b, '"format":2', '"format":9'));
    const idx = new SearchIndex(dir);
    expect(idx.count('seg-a')).toBe(5); // the size still matches: only reading tells
    expect(idx.add('seg-a', [doc(5, { text: 'alpha 5' })])).toBe(0); // feeding from 5 would leave 0–4 out
    expect(idx.count('seg-a')).toBe(0);
    expect(idx.add('seg-a', [...all, doc(5, { text: 'alpha 5' })])).toBe(6);
  });

  it('starts over from a missing, malformed or foreign manifest', () => {
    for (const bad of ['', '{', '{"format":1,"shards":[["seg-a",5]]}', '{"format":1,"shards":[]}', '{"format":1,"shards":[["__proto__",1,1],["__proto__",1,1]]}', 'null']) {
      const { dir } = seed();
      writeFileSync(join(dir, 'manifest.json'), bad);
      const idx = new SearchIndex(dir);
      expect(idx.count('seg-a')).toBe(0);
      expect(idx.search('alpha').total).toBe(0);
      idx.add('seg-c', [doc(99, { shard: 'seg-c', text: 'alpha' })]);
      expect(idx.flush()).toBeNull();
      // The orphaned shard files are cleared with the manifest rewritten.
      expect(readdirSync(dir).sort()).toEqual(['manifest.json', partFile('seg-c', 0)].sort());
    }
  });

  it('keeps shards another process added since this one read the manifest', () => {
    const { dir } = seed();
    const a = new SearchIndex(dir);
    expect(a.count('seg-a')).toBe(5);
    const b = new SearchIndex(dir);
    b.add('seg-c', [doc(50, { shard: 'seg-c', text: 'alpha' })]);
    b.flush();
    a.add('seg-d', [doc(60, { shard: 'seg-d', text: 'alpha' })]);
    a.flush();
    const c = new SearchIndex(dir);
    expect(['seg-a', 'seg-b', 'seg-c', 'seg-d'].map((s) => c.count(s))).toEqual([5, 5, 1, 1]);
  });
});
