/**
 * The cross-shard re-scoring is MiniSearch's BM25+ with collection-wide statistics: on one
 * shard it gives MiniSearch's own scores, and however the same documents are split into
 * shards, the ranking and scores are those of a single index.
 */
import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { afterAll, describe, expect, it } from 'vitest';
import { SEARCH_KINDS, SearchIndex, type SearchDoc } from '../../src/context/search-index.js';
import { SNIPPET_MAX } from '../../src/context/search-snippet.js';
import { editDistance, miniQuery } from '../../src/context/search-rank.js';
import { type IndexedDoc, MINI_OPTIONS } from '../../src/context/search-part.js';
import { queryTerms } from '../../src/context/search-terms.js';
import { hostileText } from '../support/arbitraries.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { doc } from './search-fixtures.js';

afterAll(cleanup);

const VOCAB = ['tokenizer', 'tokenize', 'token', 'unicode', 'unicorn', 'parser', 'parse', 'retryWithBackoff', 'src/http.ts', 'cache', 'caches', 'replay', 'branch', 'merge', 'budget', 'window', 'C003'];
const sentence = (min: number) => fc.array(fc.constantFrom(...VOCAB), { minLength: min, maxLength: 25 }).map((w) => w.join(' '));
const docs = fc.array(fc.record({ title: sentence(1), text: sentence(1), kind: fc.constantFrom('commit' as const, 'log' as const) }), { minLength: 1, maxLength: 40 });
const typo = (w: string) => fc.constantFrom(w, w.slice(0, -1), `${w.slice(0, 2)}x${w.slice(3)}`, w.slice(0, 4));
const query = fc.array(fc.constantFrom(...VOCAB).chain(typo), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function build(list: SearchDoc[], parts: number, partDocs?: number): SearchIndex {
  const idx = new SearchIndex(`${tempProject('gcc-rank-')}/search`, partDocs ? { partDocs } : {});
  const per = Math.ceil(list.length / parts);
  for (let p = 0; p < parts; p++) {
    const shard = `seg-${p}`;
    idx.add(shard, list.slice(p * per, (p + 1) * per).map((d) => ({ ...d, shard })));
  }
  return idx;
}

describe('re-scoring across shards', () => {
  it('gives MiniSearch’s own scores on a single shard', () => {
    fc.assert(
      fc.property(docs, query, (specs, q) => {
        const list = specs.map((s, i) => doc(i, s));
        const idx = build(list, 1);
        const ms = new MiniSearch<IndexedDoc>(MINI_OPTIONS);
        ms.addAll(list.map(({ shard: _shard, ...d }) => d));
        const { query: text, options } = miniQuery(queryTerms(q));
        const expected = new Map(ms.search(text, options).map((r) => [r.id as string, r.score]));
        const r = idx.search(q, { limit: 100 });
        for (const h of r.hits) expect(close(h.score, expected.get(h.doc.id)!)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('ranks and scores the same however the documents are split into shards and parts', () => {
    fc.assert(
      fc.property(docs, query, fc.integer({ min: 2, max: 7 }), fc.integer({ min: 1, max: 9 }), fc.constantFrom(undefined, 'log' as const), (specs, q, parts, partDocs, kind) => {
        const list = specs.map((s, i) => doc(i, s));
        const opts = { limit: 100, ...(kind ? { kinds: [kind] } : {}) };
        const one = build(list, 1).search(q, opts);
        const many = build(list, parts, partDocs).search(q, opts);
        expect(many.total).toBe(one.total);
        expect(many.match).toBe(one.match);
        expect(many.hits.map((h) => h.doc.id)).toEqual(one.hits.map((h) => h.doc.id));
        many.hits.forEach((h, i) => expect(close(h.score, one.hits[i]!.score)).toBe(true));
      }),
      { numRuns: 150 },
    );
  });

  it('takes hostile documents and queries through a flush and a reopen without throwing', () => {
    const hostileDoc = fc.record({
      id: hostileText.filter((t) => t.length > 0 && t.length <= 200),
      branch: hostileText,
      kind: fc.constantFrom(...SEARCH_KINDS),
      at: hostileText,
      ref: fc.option(hostileText, { nil: undefined }),
      title: fc.option(hostileText, { nil: undefined }),
      text: hostileText,
    });
    fc.assert(
      fc.property(fc.array(hostileDoc, { maxLength: 12 }), fc.array(hostileText, { minLength: 1, maxLength: 4 }), (raw, queries) => {
        const list: SearchDoc[] = raw.map(({ ref, title, ...d }) => ({ ...d, shard: 'seg', ...(ref === undefined ? {} : { ref }), ...(title === undefined ? {} : { title }) }));
        const dir = `${tempProject('gcc-hostile-')}/search`;
        const a = new SearchIndex(dir, { partDocs: 3 });
        const n = a.add('seg', list);
        expect(n).toBe(new Set(list.map((d) => d.id)).size);
        expect(a.flush()).toBeNull();
        const b = new SearchIndex(dir, { partDocs: 3 });
        expect(b.count('seg')).toBe(n);
        for (const q of queries) {
          const r = b.search(q, { limit: 100 });
          expect(r.unreadable).toEqual([]);
          expect(r.hits.length).toBeLessThanOrEqual(r.total);
          for (const h of r.hits) {
            expect(h.snippet.length).toBeLessThanOrEqual(SNIPPET_MAX);
            expect(list.some((d) => d.id === h.doc.id && d.branch === h.doc.branch)).toBe(true);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('computes edit distances like the textbook, giving up past the bound', () => {
    const lev = (a: string, b: string): number => {
      const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
      for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      return d[a.length]![b.length]!;
    };
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 3 }), (a, b, max) => {
        const want = lev(a, b);
        expect(editDistance(a, b, max)).toBe(want <= max ? want : max + 1);
      }),
    );
  });
});
