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
import { BM25, BOOST, byScore, type Candidate, contribution, editDistance, finalScore, idfs, type Matched, matchTerm, requiredMask, WEIGHTS } from '../../src/context/search-rank.js';
import type { IndexedDoc } from '../../src/context/search-part.js';
import { withPart } from '../../src/context/search-part-file.js';
import { indexTerms, type QueryTerm, queryTerms, tokens } from '../../src/context/search-terms.js';
import { hostileText } from '../support/arbitraries.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { doc } from './search-fixtures.js';

afterAll(cleanup);

const VOCAB = ['café', 'cafe', 'naïve', 'Ñandú', 'tokenizer', 'tokenize', 'token', 'unicode', 'unicorn', 'parser', 'parse', 'retryWithBackoff', 'src/http.ts', 'cache', 'caches', 'replay', 'branch', 'merge', 'budget', 'window', 'C003'];
const sentence = (min: number) => fc.array(fc.constantFrom(...VOCAB), { minLength: min, maxLength: 25 }).map((w) => w.join(' '));
const docs = fc.array(fc.record({ title: sentence(1), text: sentence(1), kind: fc.constantFrom('commit' as const, 'log' as const) }), { minLength: 1, maxLength: 40 });
const typo = (w: string) => fc.constantFrom(w, w.slice(0, -1), `${w.slice(0, 2)}x${w.slice(3)}`, w.slice(0, 4));
const query = fc.array(fc.constantFrom(...VOCAB).chain(typo), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));

/** One MiniSearch index over every document, configured as the index defines terms and scores: the reference. */
const MINI_OPTIONS = { idField: 'id', fields: ['title', 'ref', 'text'], storeFields: ['branch', 'kind', 'at', 'ref', 'title'], tokenize: tokens, processTerm: indexTerms };

/** MiniSearch options giving it exactly the terms of the plan, each with its own prefix/fuzzy. */
function miniQuery(terms: readonly QueryTerm[]) {
  return {
    query: terms.map((t) => t.term).join(' '),
    options: {
      tokenize: (s: string) => s.split(' '),
      processTerm: (t: string) => t,
      prefix: (_t: string, i: number) => terms[i]?.prefix ?? false,
      fuzzy: (_t: string, i: number) => terms[i]?.fuzzy || false,
      maxFuzzy: 2,
      combineWith: 'OR' as const,
      boost: { ...BOOST },
      weights: { ...WEIGHTS },
      bm25: { ...BM25 },
    },
  };
}

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

/**
 * The reference for the query path: every term of every part's dictionary weighed against the
 * query, every posting of every matching term read, every matching document scored and
 * sorted — no lookup, no skipped part, no bounded ranking.
 */
function bruteForce(idx: SearchIndex, q: string, kind?: 'log' | 'commit', branch?: string) {
  const terms = queryTerms(q);
  let n = 0;
  const lengths = [0, 0, 0];
  const df = new Map<string, number[]>();
  type Posting = { m: Matched; field: number; tf: number; len: number };
  const docs: { shard: string; part: number; doc: number; id: string; at: string; branch: string; kind: string; posts: Posting[] }[] = [];
  for (const ref of idx.parts()) {
    const ok = withPart(ref.where, ref.shard, ref.part, (f) => {
      n += f.head.docs;
      for (let k = 0; k < 3; k++) lengths[k]! += f.head.avg[k]! * f.head.docs;
      const dict = f.dict();
      const table = f.table();
      const meta = f.meta();
      const byDoc = new Map<number, Posting[]>();
      for (let i = 0; i < dict.count; i++) {
        const m = matchTerm(terms, dict.term(i));
        if (!m) continue;
        const sums = df.get(m.term) ?? [0, 0, 0];
        df.set(m.term, sums);
        for (let k = 0; k < 3; k++) sums[k]! += dict.df(i, k);
        const [start, end, crc] = dict.postings(i);
        f.postings(start, end, crc, table, (doc, field, tf) => {
          const list = byDoc.get(doc) ?? [];
          byDoc.set(doc, list);
          list.push({ m, field, tf, len: table.length(doc, field) });
        });
      }
      for (const [doc, posts] of byDoc) docs.push({ shard: ref.shard, part: ref.part, doc, id: meta[doc]![0], at: meta[doc]![1], branch: f.head.branches[table.branch(doc)]!, kind: table.kind(doc), posts });
      return true;
    });
    expect(ok).toBe(true);
  }
  const stats = { n, avg: lengths.map((l) => (n ? l / n : 0)), df };
  const required = requiredMask(terms);
  const all: Candidate[] = [];
  const any: Candidate[] = [];
  for (const d of docs) {
    if ((kind && d.kind !== kind) || (branch && d.branch !== branch)) continue;
    let sum = 0;
    let mask = 0;
    for (const p of d.posts) {
      sum += contribution(p.m, idfs(stats, p.m.term)[p.field]!, p.field, p.tf, p.len, stats.avg[p.field]!);
      mask |= p.m.mask;
    }
    const s = finalScore(sum, mask, required);
    const c = { id: d.id, at: d.at, score: s.score, shard: d.shard, part: d.part, doc: d.doc, stored: { branch: d.branch, kind: 'log' as const, at: d.at }, matched: new Set<string>() };
    (s.all ? all : any).push(c);
  }
  const ranked = (all.length || !any.length ? all : any).sort(byScore);
  return { mode: all.length || !any.length ? 'all' : 'any', total: ranked.length, ranked };
}

describe('the query path', () => {
  const word = fc.constantFrom(...VOCAB, 'Cafe\u0301', 'tokens', 'zzz').chain(typo);
  const text = (min: number) => fc.array(word, { minLength: min, maxLength: 20 }).map((w) => w.join(' '));
  const corpus = fc.array(
    // Times out of order and often equal: the newest-first tie-break is exercised across parts.
    fc.record({ title: fc.option(text(1), { nil: undefined }), text: fc.oneof(text(0), fc.constant('parser café'), fc.constant('parser café')), kind: fc.constantFrom('commit' as const, 'log' as const), branch: fc.constantFrom('main', 'feat/x'), at: fc.integer({ min: 0, max: 9 }).map((s) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString()) }),
    { minLength: 1, maxLength: 60 },
  );

  it('returns exactly what a brute-force scan of every part returns', () => {
    fc.assert(
      fc.property(
        corpus,
        fc.oneof(fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')), fc.constant('parser')),
        fc.record({ shards: fc.integer({ min: 1, max: 4 }), partDocs: fc.integer({ min: 1, max: 6 }), reopen: fc.boolean(), backwards: fc.boolean(), limit: fc.integer({ min: 1, max: 5 }), page: fc.integer({ min: 1, max: 2 }) }),
        fc.option(fc.constantFrom('log' as const, 'commit' as const), { nil: undefined }),
        fc.option(fc.constantFrom('main', 'feat/x'), { nil: undefined }),
        (specs, q, o, kind, branch) => {
          const list = specs.map((s, i) => doc(i, s));
          const dir = `${tempProject('gcc-brute-')}/search`;
          let idx = new SearchIndex(dir, { partDocs: o.partDocs });
          const per = Math.ceil(list.length / o.shards);
          // Most of each shard fed, flushed, then the rest fed (held in memory unless reopened).
          // Backwards: the shard visited first holds the oldest documents.
          const name = (s: number) => `seg-${o.backwards ? o.shards - s : s}`;
          const cut = (s: number) => list.slice(s * per, (s + 1) * per).map((d) => ({ ...d, shard: name(s) }));
          for (let s = 0; s < o.shards; s++) idx.add(name(s), cut(s).slice(0, Math.ceil((per * 2) / 3)));
          expect(idx.flush()).toBeNull();
          if (o.reopen) idx = new SearchIndex(dir, { partDocs: o.partDocs });
          for (let s = 0; s < o.shards; s++) idx.add(name(s), cut(s));
          const want = bruteForce(idx, q, kind, branch);
          const got = idx.search(q, { limit: o.limit, page: o.page, ...(kind ? { kinds: [kind] } : {}), ...(branch ? { branch } : {}) });
          expect(got.unreadable).toEqual([]);
          expect(got.match).toBe(want.mode);
          expect(got.total).toBe(want.total);
          const page = want.ranked.slice((o.page - 1) * o.limit, o.page * o.limit);
          expect(got.hits.map((h) => [h.doc.id, h.score])).toEqual(page.map((c) => [c.id, c.score]));
        },
      ),
      { numRuns: 200 },
    );
  });
});

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
