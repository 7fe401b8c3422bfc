/** The search index's public shapes (search-index.ts). */
import type { SearchKind } from './search-part.js';
import type { MatchMode } from './search-rank.js';

export interface SearchDoc {
  /** The event id (time-ordered), with a suffix when one event yields several documents. */
  id: string;
  /** The segment the event lives in; opaque here. */
  shard: string;
  branch: string;
  kind: SearchKind;
  /** ISO time. */
  at: string;
  /** What the reader calls it: `C003 1a2b3c4`, a branch name… */
  ref?: string;
  /** Weighted double: commit titles, branch names. */
  title?: string;
  /** A commit's hash, shown with its label where the label is not unique on its branch. */
  hash?: string;
  text: string;
}

export interface SearchHit {
  doc: Omit<SearchDoc, 'text' | 'shard'>;
  score: number;
  snippet: string;
}

export interface SearchOptions {
  /** Hits per page, 1–100 (default 20). */
  limit?: number;
  branch?: string;
  kinds?: SearchKind[];
  /** 1 is the best page. */
  page?: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Documents matching (in `match` mode), whether or not ranked high enough to be paged to. */
  total: number;
  /** Pages that can be asked for: ranks beyond MAX_RANKED are not kept. */
  pages: number;
  /** 'all': every word of the query matched; 'any': no document has them all, so hits have some. */
  match: MatchMode;
  /** Shards whose cache was unreadable and is now dropped: their count() is 0 until fed again. */
  unreadable: string[];
}

/** For tests and benchmarks: a part opened for a query, then let go. */
export interface ShardEvent {
  type: 'load' | 'release';
  shard: string;
  part: number;
  /** What was read: the dictionary (every part), the postings (parts that matched), the texts (snippets). */
  stage: 'terms' | 'postings' | 'texts';
}

export interface SearchIndexOptions {
  observe?: (e: ShardEvent) => void;
  /** Documents per part (default PART_DOCS). */
  partDocs?: number;
  /** Distinct terms per part (default PART_TERMS). */
  partTerms?: number;
}
