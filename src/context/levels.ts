/** The levels CONTEXT answers at and the shapes of a query, its answer and what it reads (query.ts answers them). */
import type { MemoryState } from '../decider/state.js';
import type { FileChange, GccEvent } from '../events/types.js';
import type { SearchResult } from './search-index.js';
import type { StaleCheck } from './stale.js';

export const CONTEXT_LEVELS = ['status', 'branch', 'commit', 'log', 'metadata', 'full', 'search'] as const;

export type ContextLevel = (typeof CONTEXT_LEVELS)[number];

export type ContextQuery =
  /**
   * `beyond`: what the briefing leaves out, for a session a host briefed (the default CONTEXT answer); status
   * otherwise.
   */
  | { level: 'status'; beyond?: boolean }
  | { level: 'branch'; name?: string; page?: number; k?: number }
  | { level: 'commit'; id: string }
  | { level: 'log'; n?: number; page?: number; branch?: string }
  | { level: 'metadata'; segment?: string }
  | { level: 'full'; page?: number; k?: number }
  | { level: 'search'; text: string; limit?: number; page?: number };

/** Every query's level is a documented level and every documented level has a query. */
const levelsAgree: [ContextQuery['level'], ContextLevel] extends [ContextLevel, ContextQuery['level']] ? true : never =
  true;
void levelsAgree;

export interface ContextAnswer {
  text: string;
  data: unknown;
  truncated: boolean;
  tokens: number;
  /** The query that shows what was left out (older, or less relevant); null when nothing was. */
  next: ContextQuery | null;
}

export interface ContextSource {
  state: MemoryState;
  newest(q: { branch?: string; before?: string; limit: number; filter?: (e: GccEvent) => boolean }): GccEvent[];
  /** Every event (of a branch), newest log first; stop by returning false. */
  scan(q: { branch?: string; label?: number }, visit: (e: GccEvent) => boolean): void;
  search(text: string, opts: { limit: number; page: number }): SearchResult;
  /** What git sees changed in the work tree since the branch's last commit (null outside git). */
  uncommitted?(branch: string): FileChange[] | null;
  /** Which cited files changed since their milestone (context/stale.ts). */
  stale?: StaleCheck;
}

export interface ContextOptions {
  session?: string | undefined;
  budget?: number | undefined;
  /** How the asking front end spells a query ("gctx context --log --page 2"), for the notes. */
  spell?: (q: ContextQuery) => string;
}
