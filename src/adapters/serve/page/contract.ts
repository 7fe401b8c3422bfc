/**
 * The HTTP contract between `gctx serve` and its page, as types only (no DOM, no Node), so the
 * page, the daemon and the browser test's fake daemon can all be checked against one text.
 * All JSON, UTF-8; every list newest first. Every string is untrusted: it comes from a
 * repository's memory and may hold markup.
 *
 * Ids are the memory's event ids: unique, and ordered by time, so the id of the oldest item
 * shown is the cursor of the next older page, and stays valid however much is appended.
 */

type BranchStatus = 'active' | 'merged' | 'abandoned';
/** The branch machine's state (src/machines/branch-machine.ts). */
type BranchState = 'unborn' | 'active' | 'merged' | 'abandoned';

export interface Objective {
  n: number;
  text: string;
  done: boolean;
}
export interface Milestone {
  n: number;
  title: string;
  branch: string;
  status: 'committed' | 'merged' | 'abandoned';
  at: string;
}
export interface BranchInfo {
  name: string;
  parent: string | null;
  status: BranchStatus;
  state: BranchState;
  purpose: string;
  commits: number;
  created: string;
  closed: string | null;
  reason: string | null;
  mergedInto: string | null;
}
export interface FailedApproach {
  branch: string;
  reason: string;
  at: string;
}
/** `state`: the session machine's state (idle, opening, ready, compacting, degraded, ended). */
export interface SessionInfo {
  id: string;
  host: string;
  state: string;
  branch: string;
  since: string;
}

/** GET /api/overview */
export interface Overview {
  project: string;
  version: string;
  events: number;
  /** The newest event's id. */
  lastId: string;
  /** The clone's current memory branch. */
  branch: string;
  objectives: Objective[];
  milestones: Milestone[];
  branches: BranchInfo[];
  failed: FailedApproach[];
  /** Names the history graph's current version: GET /api/graph when it differs from the one drawn. */
  graphTag: string;
  /** Mermaid stateDiagram-v2 sources, one per machine definition. */
  machines: { branch: string; session: string };
  sessions: SessionInfo[];
}

export interface FileChange {
  path: string;
  added: number;
  removed: number;
}
export interface CommitItem {
  id: string;
  label: string;
  hash: string;
  branch: string;
  at: string;
  title: string;
  contribution: string;
  files: FileChange[];
  next?: string;
  /** `stale: src/x.ts changed since (+2 −1)`, when a cited file changed since (context/stale.ts). */
  stale?: string;
}

export type LogKind =
  | 'tool'
  | 'ota'
  | 'commit'
  | 'branch'
  | 'merge'
  | 'abandon'
  | 'roadmap'
  | 'config'
  | 'session'
  | 'memory';
export interface LogItem {
  id: string;
  at: string;
  branch: string;
  kind: LogKind;
  text: string;
}

/**
 * GET /api/commits and /api/log (`branch`, `before`, `limit` ≤ 100): one page, and `next`, the
 * `before` of the next older page (the id of the oldest item here), or null when none is left.
 */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** GET /api/graph: the Mermaid gitGraph source of the history, its tag also sent as the ETag. */
export interface GraphSource {
  tag: string;
  source: string;
}

/** A commit's or a merge's title is said once, on the hit: its snippet does not repeat it. */
export interface SearchHit {
  id: string;
  at: string;
  branch: string;
  kind: string;
  ref: string | null;
  title: string | null;
  snippet: string;
  score: number;
}
/** GET /api/search?q=&page= (pages are numbered from 1). */
export interface SearchResult {
  hits: SearchHit[];
  total: number;
  pages: number;
}

/** The data of an `event: memory` on GET /events. */
export interface MemoryEvent {
  events: number;
  lastId: string;
}
