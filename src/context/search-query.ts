/**
 * A query over the parts of the index, in two passes, one part open at a time.
 *
 * 1. Terms: every part's header and dictionary. The query's words are looked up (exact and
 *    prefix by binary search, typo-tolerant ones by a scan of the terms of plausible length);
 *    the collection's statistics are summed (documents, field lengths, the df of each matched
 *    term); a part is remembered with the places of its matched terms' postings, or forgotten
 *    when it matched nothing.
 * 2. Postings: the parts that matched, newest first: their postings of the matched terms and
 *    their table of field lengths, kinds and branches. Every matching document is counted
 *    and scored; the best are kept (search-rank.ts), and a document's meta row (id, time,
 *    label) is read only when it can still enter the ranking.
 *
 * What a query holds is one part's sections and the matched terms' places per part, whatever
 * the history's length. A part found damaged makes its shard unreadable: the query starts
 * again without it, so no statistic of a shard it cannot rank stays in the scores.
 */
import { type Dict, type PartFile, withPart } from './search-part-file.js';
import { MAX_PART_DOCS, type SearchKind, type Stored } from './search-part.js';
import { type Candidate, contribution, finalScore, idfs, type Matched, matchTerm, type MatchMode, Ranked, requiredMask, type Stats } from './search-rank.js';
import type { QueryTerm } from './search-terms.js';
import type { ShardEvent } from './search-types.js';

/** A part to search: on disk (its path) or still in memory (its image). */
export interface PartRef {
  shard: string;
  part: number;
  where: string | Buffer;
}

export interface Filters {
  branch?: string | undefined;
  kinds?: ReadonlySet<SearchKind> | undefined;
}

export interface Outcome {
  ranked: Candidate[];
  total: number;
  mode: MatchMode;
}

interface MatchedTerm {
  m: Matched;
  start: number;
  end: number;
  crc: number;
}

interface PartMatch {
  ref: PartRef;
  newest: [string, string];
  branches: string[];
  terms: MatchedTerm[];
  /** The matched terms, for marking them in snippets. */
  matched: ReadonlySet<string>;
}

/**
 * The most indexed terms whose weights a query remembers across parts (a few MB at most): the
 * same words recur in every part, and a typo-tolerant match is an edit distance per term.
 */
const CACHE_TERMS = 50_000;

/** A typo-tolerant query term, with what a term's bytes must satisfy to be within its distance. */
interface Fuzzy {
  q: QueryTerm;
  /** Bytes that occur in the query term. */
  own: Uint8Array;
}

/**
 * Finds a query's terms in a part's dictionary; remembers each indexed term's weights across
 * parts. Exact and prefix matches are found by binary search. A typo-tolerant term must look
 * at every term, so two checks on the bytes rule most out before any is decoded: its length
 * (UTF-16 length ≤ bytes ≤ 3 × UTF-16 length), and its characters not in the query term —
 * each edit brings at most one, so a term starting more than `fuzzy` characters the query
 * term lacks is out of reach.
 */
export class Matcher {
  private readonly keys: Buffer[];
  private readonly fuzzy: Fuzzy[];
  private readonly cache = new Map<string, Matched | null>();

  constructor(private readonly terms: readonly QueryTerm[]) {
    this.keys = terms.map((q) => Buffer.from(q.term, 'utf8'));
    this.fuzzy = terms
      .filter((q) => q.fuzzy > 0)
      .map((q) => {
        const own = new Uint8Array(256);
        for (const b of Buffer.from(q.term, 'utf8')) own[b] = 1;
        return { q, own };
      });
  }

  weights(term: string): Matched | null {
    let w = this.cache.get(term);
    if (w === undefined) {
      w = matchTerm(this.terms, term);
      if (this.cache.size < CACHE_TERMS) this.cache.set(term, w);
    }
    return w;
  }

  /** Whether term i of `dict` may be within the edit distance of some typo-tolerant query term. */
  private reachable(dict: Dict, i: number): boolean {
    const bytes = dict.bytes(i);
    for (const { q, own } of this.fuzzy) {
      if (bytes < q.term.length - q.fuzzy || bytes > 3 * (q.term.length + q.fuzzy)) continue;
      if (dict.foreign(i, own, q.fuzzy) <= q.fuzzy) return true;
    }
    return false;
  }

  /** The dictionary's terms some query term matches, in dictionary order, with their weights. */
  match(dict: Dict): { index: number; m: Matched }[] {
    // The exact and prefix ranges, by binary search: [from, to) each.
    const ranges: [number, number][] = [];
    this.terms.forEach((q, k) => {
      const key = this.keys[k]!;
      const from = dict.lowerBound(key);
      let to = from;
      while (to < dict.count && dict.startsWith(to, key) && (q.prefix || to === from)) to++;
      if (to > from) ranges.push([from, to]);
    });
    const candidates: number[] = [];
    if (this.fuzzy.length) {
      const inRange = (i: number) => ranges.some(([a, z]) => i >= a && i < z);
      for (let i = 0; i < dict.count; i++) if (inRange(i) || this.reachable(dict, i)) candidates.push(i);
    } else {
      const all = new Set<number>();
      for (const [a, z] of ranges) for (let i = a; i < z; i++) all.add(i);
      candidates.push(...[...all].sort((x, y) => x - y));
    }
    const out: { index: number; m: Matched }[] = [];
    for (const index of candidates) {
      const m = this.weights(dict.term(index));
      if (m) out.push({ index, m });
    }
    return out;
  }
}

/** A part found damaged while a query read it. */
export class Unreadable extends Error {
  constructor(readonly shard: string) {
    super(`search part of ${shard} unreadable`);
  }
}

function open<T>(ref: PartRef, stage: ShardEvent['stage'], observe: ((e: ShardEvent) => void) | undefined, use: (p: PartFile) => T): T {
  observe?.({ type: 'load', shard: ref.shard, part: ref.part, stage });
  try {
    const out = withPart(ref.where, ref.shard, ref.part, use);
    if (out === null) throw new Unreadable(ref.shard);
    return out;
  } finally {
    observe?.({ type: 'release', shard: ref.shard, part: ref.part, stage });
  }
}

/** Pass 1: the statistics, and which parts hold which matched terms. */
function gatherTerms(parts: readonly PartRef[], matcher: Matcher, observe?: (e: ShardEvent) => void): { stats: Stats; matches: PartMatch[] } {
  let n = 0;
  const lengths = [0, 0, 0];
  const df = new Map<string, number[]>();
  const matches: PartMatch[] = [];
  for (const ref of parts) {
    open(ref, 'terms', observe, (p) => {
      const { docs, avg, newest, branches } = p.head;
      n += docs;
      for (let f = 0; f < 3; f++) lengths[f]! += avg[f]! * docs;
      const dict = p.dict();
      const terms: MatchedTerm[] = [];
      for (const { index, m } of matcher.match(dict)) {
        let sums = df.get(m.term);
        if (!sums) df.set(m.term, (sums = [0, 0, 0]));
        for (let f = 0; f < 3; f++) sums[f]! += dict.df(index, f);
        const [start, end, crc] = dict.postings(index);
        terms.push({ m, start, end, crc });
      }
      if (terms.length) matches.push({ ref, newest, branches, terms, matched: new Set(terms.map((t) => t.m.term)) });
      return true;
    });
  }
  return { stats: { n, avg: lengths.map((l) => (n ? l / n : 0)), df }, matches };
}

/** Search `parts` (in the order given: newest first); throws Unreadable naming a damaged part's shard. */
export function runQuery(parts: readonly PartRef[], terms: readonly QueryTerm[], filters: Filters, cap: number, observe?: (e: ShardEvent) => void): Outcome {
  const { stats, matches } = gatherTerms(parts, new Matcher(terms), observe);
  const all = new Ranked(cap);
  let any: Ranked | null = new Ranked(cap);
  let totalAll = 0;
  let totalAny = 0;
  const { branch, kinds } = filters;
  const required = requiredMask(terms);
  const idfOf = new Map<string, number[]>();
  // Per document of the part being read: its summed contributions, and the query terms it matched.
  const sums = new Float64Array(MAX_PART_DOCS);
  const masks = new Uint32Array(MAX_PART_DOCS);
  for (const m of matches) {
    open(m.ref, 'postings', observe, (p) => {
      const { docs } = p.head;
      const table = p.table();
      sums.fill(0, 0, docs);
      masks.fill(0, 0, docs);
      p.willRead(m.terms[0]!.start, m.terms[m.terms.length - 1]!.end);
      for (const t of m.terms) {
        let termIdf = idfOf.get(t.m.term);
        if (!termIdf) idfOf.set(t.m.term, (termIdf = idfs(stats, t.m.term)));
        const tIdf = termIdf;
        p.postings(t.start, t.end, t.crc, table, (doc, field, tf) => {
          sums[doc]! += contribution(t.m, tIdf[field]!, field, tf, table.length(doc, field), stats.avg[field]!);
          masks[doc]! |= t.m.mask;
        });
      }
      for (let doc = 0; doc < docs; doc++) {
        if (!masks[doc]) continue;
        const docBranch = m.branches[table.branch(doc)]!;
        const kind = table.kind(doc);
        if ((branch !== undefined && docBranch !== branch) || (kinds && !kinds.has(kind))) continue;
        const s = finalScore(sums[doc]!, masks[doc]!, required);
        if (s.all) {
          totalAll++;
          any = null;
        } else {
          totalAny++;
        }
        const pool = s.all ? all : any;
        if (!pool?.admits(s.score, m.newest)) continue;
        const [id, at, ref, title, hash] = p.metaRow(doc);
        const stored: Stored = { branch: docBranch, kind, at };
        if (ref !== null) stored.ref = ref;
        if (title !== null) stored.title = title;
        if (hash !== null) stored.hash = hash;
        pool.push({ id, at, score: s.score, shard: m.ref.shard, part: m.ref.part, doc, stored, matched: m.matched });
      }
      return true;
    });
  }
  const mode: MatchMode = totalAll > 0 || totalAny === 0 ? 'all' : 'any';
  const ranked = (mode === 'all' ? all : (any ?? all)).take();
  return { ranked, total: mode === 'all' ? totalAll : totalAny, mode };
}

