/**
 * The HTTP contract between `gctx serve` and its page, as types only (no DOM, no Node), so the
 * page, the daemon and the browser test's fake daemon can all be checked against one text.
 * All JSON, UTF-8; every list newest first. Every string is untrusted: it comes from a
 * repository's memory and may hold markup.
 */

export type BranchStatus = 'active' | 'merged' | 'abandoned';

export interface Objective { n: number; text: string; done: boolean }
export interface Milestone { n: number; title: string; branch: string; status: 'committed' | 'merged' | 'abandoned'; at: string }
export interface BranchInfo {
  name: string;
  parent: string | null;
  status: BranchStatus;
  purpose: string;
  commits: number;
  created: string;
  closed: string | null;
  reason: string | null;
  mergedInto: string | null;
}
export interface FailedApproach { branch: string; reason: string; at: string }
export interface SessionInfo { id: string; host: string; state: string; branch: string; since: string }
export interface ReadinessInfo { host: string; state: string }

/** GET /api/overview */
export interface Overview {
  project: string;
  version: string;
  events: number;
  /** The clone's current memory branch. */
  branch: string;
  objectives: Objective[];
  milestones: Milestone[];
  branches: BranchInfo[];
  failed: FailedApproach[];
  /** Mermaid gitGraph source of the history. */
  graph: string;
  /** Mermaid stateDiagram-v2 sources, one per machine definition. */
  machines: { branch: string; session: string; readiness: string };
  sessions: SessionInfo[];
  readiness: ReadinessInfo[];
}

export interface FileChange { path: string; added: number; removed: number }
export interface CommitItem {
  label: string;
  hash: string;
  branch: string;
  at: string;
  title: string;
  contribution: string;
  files: FileChange[];
  next?: string;
}

export type LogKind = 'tool' | 'ota' | 'commit' | 'branch' | 'merge' | 'abandon' | 'roadmap' | 'config' | 'session';
export interface LogItem { at: string; branch: string; kind: LogKind; text: string }

/** GET /api/commits and /api/log: one page, and the cursor for the next older page. */
export interface Page<T> { items: T[]; next: string | null }

export interface SearchHit { at: string; branch: string; kind: string; ref: string | null; snippet: string; score: number }
/** GET /api/search?q=&page= (pages are numbered from 1). */
export interface SearchResult { hits: SearchHit[]; total: number; pages: number }

/** The data of an `event: memory` on GET /events. */
export interface MemoryEvent { events: number; lastId: string }
