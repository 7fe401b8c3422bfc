/**
 * Scoring: MiniSearch's BM25+ with collection-wide statistics, computed exactly.
 *
 * A query term matches an indexed term exactly, as a prefix (the last word) or within its
 * edit distance (search-terms.ts), weighted as MiniSearch weights them. A document's score is
 * the sum, over the matched (term, field) pairs of the document, of the term's weights summed
 * over the query terms × field boost × BM25+(tf, df, N, field length, average field length),
 * times the number of query terms it matched — MiniSearch's formula, with N, df and the average field
 * length taken over every document of every part (the query's first pass sums them), so a
 * document scores the same whichever part holds it and whatever its neighbours.
 *
 * Ranking keeps the best `cap` documents only (Ranked): a document that cannot beat the
 * current floor is dropped before anything else of it is read.
 */
import { FIELDS, newerFirst, type Stored } from './search-part.js';
import type { QueryTerm } from './search-terms.js';

/** MiniSearch's defaults. */
export const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
export const WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };
/** Title (commit titles, branch names) counts double; the ref (`C003 1a2b3c4`) and body once. */
export const BOOST: Readonly<Record<(typeof FIELDS)[number], number>> = { title: 2, ref: 1, text: 1 };
const BOOSTS = FIELDS.map((f) => BOOST[f]);

export type MatchMode = 'all' | 'any';

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

/** An indexed term some query term matches: its weights summed over the query terms, and which it matches (bit i: term i). */
export interface Matched {
  term: string;
  sum: number;
  mask: number;
}

export function matchTerm(terms: readonly QueryTerm[], t: string): Matched | null {
  let sum = 0;
  let mask = 0;
  terms.forEach((q, i) => {
    const w = termWeight(q, t);
    if (!w) return;
    sum += w;
    mask |= 1 << i;
  });
  return mask ? { term: t, sum, mask } : null;
}

/** The collection's statistics: documents, average field lengths, and each matched term's df per field. */
export interface Stats {
  n: number;
  avg: readonly number[];
  df: ReadonlyMap<string, readonly number[]>;
}

/** BM25+'s idf of a term with document frequency `df` among `n` documents. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** Each field's idf of a matched term under `stats`. */
export function idfs(stats: Stats, term: string): number[] {
  const df = stats.df.get(term);
  return FIELDS.map((_, f) => idf(df?.[f] || 1, stats.n));
}

/**
 * What one (term, field) of a document adds to its score: the term's weight for the query,
 * the field's boost, and BM25+ of its frequency against the field's length.
 */
export function contribution(m: Matched, termIdf: number, field: number, tf: number, len: number, avg: number): number {
  return m.sum * BOOSTS[field]! * termIdf * (BM25.d + (tf * (BM25.k + 1)) / (tf + BM25.k * (1 - BM25.b + (BM25.b * len) / (avg || 1))));
}

/** The bits of the required query terms. */
export function requiredMask(terms: readonly QueryTerm[]): number {
  return terms.reduce((m, q, i) => (q.required ? m | (1 << i) : m), 0);
}

/** A document's score from its summed contributions, times the number of query terms it matched; and whether it matched every required one. */
export function finalScore(sum: number, mask: number, required: number): { score: number; all: boolean } {
  let quality = 0;
  for (let m = mask; m; m &= m - 1) quality++;
  return { score: sum * quality, all: (mask & required) === required };
}

export interface Candidate {
  id: string;
  at: string;
  score: number;
  shard: string;
  part: number;
  /** Its position in the part. */
  doc: number;
  stored: Stored;
  /** The terms matched in its part: the words of its text among them are the ones to mark. */
  matched: ReadonlySet<string>;
}

const EPS = 1e-9;
/** Whether two scores are equal up to rounding. */
export const same = (x: number, y: number) => Math.abs(x - y) <= EPS * Math.max(1, Math.abs(x), Math.abs(y));

/** Best first: higher score, then newer. */
export function byScore(a: Candidate, b: Candidate): number {
  return same(a.score, b.score) ? newerFirst(a.at, a.id, b.at, b.id) : b.score - a.score;
}

/** The best `cap` candidates seen so far; sorted lazily, in batches. */
export class Ranked {
  private items: Candidate[] = [];
  private floor: Candidate | null = null;
  private tie: { floor: Candidate; newest: readonly [string, string]; newer: boolean } | null = null;
  constructor(private readonly cap: number) {}

  /**
   * Whether a document of this score could still enter, knowing no document of its part is
   * newer than `newest`: false means it cannot, and nothing else of it needs reading.
   */
  admits(score: number, newest: readonly [string, string]): boolean {
    const f = this.floor;
    if (!f) return true;
    if (!same(score, f.score)) return score > f.score;
    // Ties are many where documents are alike: the part's answer holds until the floor moves.
    if (this.tie?.floor !== f || this.tie.newest !== newest) this.tie = { floor: f, newest, newer: newerFirst(newest[0], newest[1], f.at, f.id) < 0 };
    return this.tie.newer;
  }

  push(c: Candidate): void {
    this.items.push(c);
    if (this.items.length >= 2 * this.cap) this.trim();
  }

  private trim(): void {
    this.items.sort(byScore);
    this.items.length = Math.min(this.items.length, this.cap);
    if (this.items.length === this.cap) this.floor = this.items[this.cap - 1]!;
  }

  take(): Candidate[] {
    this.trim();
    return this.items;
  }
}
