/**
 * The folded state of a memory: exactly what the decider and the projection files need, and
 * nothing that grows per event without need (milestones keep a bounded window; commit
 * bodies stay in the logs).
 */
import { type Config, DEFAULT_CONFIG, type FileChange, MAIN } from '../events/types.js';

export type BranchStatus = 'active' | 'merged' | 'abandoned';

export interface CommitRef {
  id: string;
  label: string;
  title: string;
  at: string;
}

export interface BranchInfo {
  name: string;
  parent: string | null;
  status: BranchStatus;
  created: string;
  purpose: string;
  hypotheses: string[];
  reason: string | null;
  mergedInto: string | null;
  closed: string | null;
  commits: number;
  /** The last few commits, newest last: the rolling "Previous Progress". */
  recent: CommitRef[];
  lastContribution: string;
  /** Work logged since the last commit on this branch. */
  pending: { edits: number; turns: number; files: Record<string, FileChange> };
  /** Last sequence number in this branch's log.md. */
  seq: number;
}

export interface Objective {
  id: string;
  text: string;
  done: boolean;
}

export interface Milestone {
  n: number;
  title: string;
  branch: string;
  commits: string;
  status: string;
  at: string;
}

export interface MemoryState {
  format: number;
  created: string;
  config: Config;
  defaultBranch: string;
  sessions: Record<string, string>;
  objectives: Objective[];
  nextObjective: number;
  notes: string;
  milestones: Milestone[];
  milestoneCount: number;
  branches: Record<string, BranchInfo>;
  /**
   * Files touched by commits: path → the last commit that touched it, in buckets by a hash
   * of the path (see fileBucket). Read it through fileEntries().
   */
  files: Record<string, Record<string, FileInfo>>;
  /** Id of the newest event folded in; new ids must sort after it. */
  lastId: string;
  events: number;
}

export interface FileInfo {
  commit: string;
  branch: string;
}

/**
 * The bucket of a path in `files`. State is updated through immer, which copies every
 * object on the path to a change: one flat record of every file ever touched made each
 * commit copy the whole tree (~0.3 ms at 10,000 events). FNV-1a, 64 buckets.
 */
export function fileBucket(path: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return String((h >>> 0) & 63);
}

/** Every [path, info] of the file tree, in no particular order. */
export function fileEntries(state: MemoryState): [string, FileInfo][] {
  const out: [string, FileInfo][] = [];
  for (const bucket of Object.values(state.files)) for (const path of Object.keys(bucket)) out.push([path, bucket[path]!]);
  return out;
}

export const MILESTONE_WINDOW = 50;
export const RECENT_COMMITS = 5;

export function newBranch(name: string, parent: string | null, created: string, purpose: string, hypotheses: string[]): BranchInfo {
  return {
    name,
    parent,
    status: 'active',
    created,
    purpose,
    hypotheses,
    reason: null,
    mergedInto: null,
    closed: null,
    commits: 0,
    recent: [],
    lastContribution: '',
    pending: { edits: 0, turns: 0, files: {} },
    seq: 0,
  };
}

export function initialState(): MemoryState {
  return {
    format: 1,
    created: '',
    config: { ...DEFAULT_CONFIG },
    defaultBranch: MAIN,
    sessions: {},
    objectives: [],
    nextObjective: 1,
    notes: '',
    milestones: [],
    milestoneCount: 0,
    branches: { [MAIN]: newBranch(MAIN, null, '', 'Main line of the project', []) },
    files: {},
    lastId: '',
    events: 0,
  };
}
