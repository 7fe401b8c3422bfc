/**
 * Ranking across shards.
 *
 * Each part of each shard is searched by its own MiniSearch index with BM25+, and BM25
 * depends on collection statistics: the number of documents N, each term's document
 * frequency df, the average field length. A part only knows its own. Scores from two parts
 * are therefore comparable only roughly: a term common in one month's documents (a burst of
 * work on the parser) gets a low idf there and a high one elsewhere, so the same document
 * would score differently depending on its neighbours — by a factor of 2 or more for bursty
 * terms.
 *
 * What is done about it: while the parts are visited one by one, the statistics of every
 * term the query touches are summed (N and field lengths from each part's index, df from
 * each part's postings of the matched terms — a few lookups per part). Each part's results
 * are kept, by their local score, in a bounded pool a few times larger than the page asked
 * for, with the term frequencies and field lengths needed to score them again. At the end
 * the pool is re-scored with MiniSearch's own formula and the summed statistics, so the
 * final order is exactly what one index over all documents would give — for every document
 * that reached the pool. A document that its part's local statistics rank far below the
 * pool's threshold can still be missed; the pool's margin makes that rare.
 *
 * Multi-word queries: every result of the per-part OR search is classified. While no
 * document anywhere matches all required words, the any-word results are pooled too; once
 * one does, the answer is all-words and that pool is dropped.
 */
import type MiniSearch from 'minisearch';
import type { SearchResult } from 'minisearch';
import type { IndexedDoc, Plain, SearchKind, Stored } from './search-part.js';
import { FIELDS } from './search-part.js';
import type { QueryTerm } from './search-terms.js';

/** MiniSearch's defaults, restated because the re-scoring must use the same. */
export const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
export const WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };
/** Title (commit titles, branch names) counts double; the ref (`C003 1a2b3c4`) and body once. */
export const BOOST: Readonly<Record<(typeof FIELDS)[number], number>> = { title: 2, ref: 1, text: 1 };
const BOOSTS = FIELDS.map((f) => BOOST[f]);

export interface Filters {
  branch?: string | undefined;
  kinds?: ReadonlySet<SearchKind> | undefined;
}

/** One (term, field) of a pooled document: what its BM25 contribution is computed from. */
interface Posting {
  term: string;
  field: number;
  tf: number;
  len: number;
}

export interface Candidate {
  id: string;
  shard: string;
  part: number;
  stored: Stored;
  local: number;
  postings: Posting[];
  score: number;
}

export function bm25(tf: number, df: number, n: number, len: number, avg: number): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return idf * (BM25.d + (tf * (BM25.k + 1)) / (tf + BM25.k * (1 - BM25.b + (BM25.b * len) / avg)));
}

/** Levenshtein distance on UTF-16 units (as MiniSearch's fuzzy search counts), or max+1 once over `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let low = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
      cur.push(v);
      if (v < low) low = v;
    }
    if (low > max) return max + 1;
    prev = cur;
  }
  return Math.min(prev[b.length]!, max + 1);
}

/** How much indexed term `t` counts for query term `q`: MiniSearch's exact, prefix and fuzzy weights. */
export function termWeight(q: QueryTerm, t: string): number {
  if (t === q.term) return 1;
  if (q.prefix && t.startsWith(q.term)) return (WEIGHTS.prefix * t.length) / (t.length + 0.3 * (t.length - q.term.length));
  if (q.fuzzy > 0) {
    const d = editDistance(q.term, t, q.fuzzy);
    if (d <= q.fuzzy) return (WEIGHTS.fuzzy * t.length) / (t.length + d);
  }
  return 0;
}

/** Search options giving MiniSearch exactly the terms of the plan, each with its own prefix/fuzzy. */
export function miniQuery(terms: readonly QueryTerm[]) {
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

/** Newer first among equals: `at`, then the time-ordered id. */
function newer(a: Candidate, b: Candidate): number {
  if (a.stored.at !== b.stored.at) return a.stored.at < b.stored.at ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

const EPS = 1e-9;
function order(key: (c: Candidate) => number) {
  return (a: Candidate, b: Candidate) => {
    const x = key(a);
    const y = key(b);
    return Math.abs(x - y) > EPS * Math.max(1, Math.abs(x), Math.abs(y)) ? y - x : newer(a, b);
  };
}
const byLocal = order((c) => c.local);
const byScore = order((c) => c.score);

/** The best `cap` candidates seen so far by local score; sorted lazily, in batches. */
class Pool {
  private items: Candidate[] = [];
  private floor: Candidate | null = null;
  constructor(private readonly cap: number) {}

  /** Whether a document with this local score could still enter. */
  admits(local: number, stored: Stored, id: string): boolean {
    if (!this.floor) return true;
    return byLocal({ id, shard: '', part: 0, stored, local, postings: [], score: 0 }, this.floor) < 0;
  }

  push(c: Candidate): void {
    this.items.push(c);
    if (this.items.length >= 2 * this.cap) this.trim();
  }

  private trim(): void {
    this.items.sort(byLocal);
    this.items.length = Math.min(this.items.length, this.cap);
    if (this.items.length === this.cap) this.floor = this.items[this.cap - 1]!;
  }

  take(): Candidate[] {
    this.trim();
    return this.items;
  }
}

export type MatchMode = 'all' | 'any';

/** Everything a query gathers while it visits the parts, one at a time. */
export class Gather {
  private n = 0;
  private readonly lengths = FIELDS.map(() => 0);
  private readonly df = new Map<string, number[]>();
  private readonly all: Pool;
  private any: Pool | null;
  private readonly required: string[];
  totalAll = 0;
  totalAny = 0;

  constructor(
    private readonly terms: readonly QueryTerm[],
    private readonly filters: Filters,
    cap: number,
  ) {
    this.all = new Pool(cap);
    this.any = new Pool(cap);
    this.required = terms.filter((t) => t.required).map((t) => t.term);
  }

  /** 'any' only when some document matched some words and none matched them all. */
  get mode(): MatchMode {
    return this.totalAll > 0 || this.totalAny === 0 ? 'all' : 'any';
  }

  get total(): number {
    return this.mode === 'all' ? this.totalAll : this.totalAny;
  }

  private keep(stored: Stored): boolean {
    const { branch, kinds } = this.filters;
    return (branch === undefined || stored.branch === branch) && (!kinds || kinds.has(stored.kind));
  }

  /** Search one part and fold its statistics and results in; nothing of it is kept but the pooled candidates. */
  visit(shard: string, part: number, ms: MiniSearch<IndexedDoc>, plain: Plain): void {
    const count = plain.documentCount;
    this.n += count;
    FIELDS.forEach((_, f) => (this.lengths[f]! += (plain.averageFieldLength[f] ?? 0) * count));
    const { query, options } = miniQuery(this.terms);
    const results = ms.search(query, options);
    if (!results.length) return;
    const matched = new Set<string>();
    for (const r of results) for (const t of r.terms) matched.add(t);
    // The postings of the matched terms: their df here, and the tf of pooled documents.
    const postings = new Map<string, Record<string, Record<string, number>>>();
    for (const [term, byField] of plain.index) {
      if (!matched.has(term)) continue;
      postings.set(term, byField);
      let sums = this.df.get(term);
      if (!sums) this.df.set(term, (sums = FIELDS.map(() => 0)));
      for (const f of Object.keys(byField)) sums[Number(f)]! += Object.keys(byField[f]!).length;
    }
    let shortIds: Map<string, string> | null = null;
    for (const r of results as (SearchResult & Stored)[]) {
      const stored: Stored = { branch: r.branch, kind: r.kind, at: r.at };
      if (r.ref !== undefined) stored.ref = r.ref;
      if (r.title !== undefined) stored.title = r.title;
      if (!this.keep(stored)) continue;
      const all = this.required.every((t) => r.queryTerms.includes(t));
      if (all) {
        this.totalAll++;
        this.any = null;
      } else {
        this.totalAny++;
      }
      const pool = all ? this.all : this.any;
      if (!pool || !pool.admits(r.score, stored, r.id as string)) continue;
      shortIds ??= new Map(Object.entries(plain.documentIds).map(([k, v]) => [v, k]));
      const short = shortIds.get(r.id as string)!;
      const list: Posting[] = [];
      for (const term of r.terms) {
        const byField = postings.get(term);
        if (!byField) continue;
        for (const f of Object.keys(byField)) {
          const tf = byField[f]![short];
          const len = plain.fieldLength[short]?.[Number(f)];
          if (tf !== undefined && typeof len === 'number') list.push({ term, field: Number(f), tf, len });
        }
      }
      pool.push({ id: r.id as string, shard, part, stored, local: r.score, postings: list, score: 0 });
    }
  }

  /** The pooled candidates re-scored with the statistics of every part visited, best first. */
  finish(): Candidate[] {
    const pool = (this.mode === 'all' ? this.all : this.any ?? this.all).take();
    const avg = this.lengths.map((l) => (this.n ? l / this.n : 0));
    const weights = new Map<string, number>();
    const weight = (i: number, term: string) => {
      const key = `${i}\u0000${term}`;
      let w = weights.get(key);
      if (w === undefined) weights.set(key, (w = termWeight(this.terms[i]!, term)));
      return w;
    };
    for (const c of pool) {
      let sum = 0;
      let quality = 0;
      this.terms.forEach((_, i) => {
        let hit = false;
        for (const p of c.postings) {
          const w = weight(i, p.term);
          if (!w) continue;
          hit = true;
          sum += w * BOOSTS[p.field]! * bm25(p.tf, this.df.get(p.term)?.[p.field] ?? 1, this.n, p.len, avg[p.field] || 1);
        }
        if (hit) quality++;
      });
      c.score = sum * quality;
    }
    return pool.sort(byScore);
  }
}
