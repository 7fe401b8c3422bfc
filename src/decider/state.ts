/**
 * The folded state of a memory: exactly what decisions, views and the briefing need, and
 * nothing that grows per event without need (windows are bounded; commit bodies stay in the
 * logs). Maps keyed by names people choose (branches, files, sessions) are prototype-free,
 * so a branch called `constructor` is a branch like any other.
 */
import type { Constraint } from './constraints.js';
import type { BranchLifecycle } from '../machines/branch-machine.js';
import type { SessionLifecycle } from '../machines/session.js';
import { type Config, DEFAULT_CONFIG, type FileChange, FORMAT_VERSION, MAIN } from '../events/types.js';

/** A map with no prototype: `dict.constructor` is undefined, not Object's. */
export type Dict<T> = Record<string, T>;
export const dict = <T>(entries?: Iterable<[string, T]>): Dict<T> => {
  const d = Object.create(null) as Dict<T>;
  if (entries) for (const [k, v] of entries) d[k] = v;
  return d;
};

export interface CommitRef {
  id: string;
  label: string;
  title: string;
  at: string;
  /** The head of its contribution, for status (so no read of the logs is needed); open branches only. */
  gist?: string;
  /** The record ABANDON leaves on the parent: the branch abandoned. */
  abandon?: string;
}

/** How much of a last commit's contribution, and of what a merge learned, the state keeps. */
export const CONTRIBUTION_KEPT = 600;
export const LEARNED_KEPT = 400;
/** How much of an abandon's reason the failed approaches keep. */
export const REASON_KEPT = 600;
/** How much of each recent commit's contribution the state keeps, for status. */
export const GIST_KEPT = 300;

/** The substance of a branch's last milestone, for the briefing. */
export interface LastCommit extends CommitRef {
  contribution: string;
  /** The step this commit recorded; none when it named none (a merge included: see evolve). */
  next: string | null;
  /** The first files the commit touched (a window: see evolve), and how many it touched. */
  files: FileChange[];
  fileCount: number;
  /** A merge: the branch merged, and what was learned there when it says more than the synthesis. */
  merged?: { from: string; learned: string };
}

/** A tool call that failed since the last commit, until the same call succeeds. */
export interface PendingFailure {
  tool: string;
  input: string;
  result: string;
  at: string;
}

/** Failing calls kept per branch, newest last; older ones are counted, not kept. */
export const PENDING_FAILURES = 8;

/** Files of the work in flight kept per branch; beyond it the oldest are dropped. */
export const PENDING_FILES = 200;

export interface PendingFile extends FileChange {
  /** Time of the newest edit: work in flight is listed newest first. */
  at: string;
}

export interface BranchInfo {
  name: string;
  parent: string | null;
  /** The branch machine's state (machines/branch-machine.ts). */
  life: BranchLifecycle;
  created: string;
  purpose: string;
  hypotheses: string[];
  reason: string | null;
  mergedInto: string | null;
  closed: string | null;
  commits: number;
  /** Shared events recorded on this branch: how long its log view is (a clone's own moves are not in it). */
  logged: number;
  /** Label numbers in use, as ranges, and the labels more than one commit carries (after a union). */
  labels: [number, number][];
  dupLabels: string[];
  /** The last few commits, newest last. */
  recent: CommitRef[];
  last: LastCommit | null;
  /**
   * Commits folded after the branch was merged or abandoned (made where that was not seen yet): what its close did not
   * include.
   */
  late?: CommitRef[];
  /**
   * Work logged on this branch since its last commit: the calls still failing, newest last (one
   * per call: a call that fails again moves to the end), and how many older ones fell out of the window.
   */
  pending: {
    edits: number;
    turns: number;
    files: Dict<PendingFile>;
    failures: PendingFailure[];
    failuresDropped: number;
  };
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
  status: 'committed' | 'merged' | 'abandoned';
  at: string;
}

/** An approach that was tried and dropped, and why: a resuming agent must not try it again. */
export interface Failed {
  branch: string;
  parent: string;
  purpose: string;
  reason: string;
  at: string;
  /**
   * The same branch was merged too (two clones disagreed: one merged it, the other abandoned
   * it): where, and the merge's title. Readers say both in one line, not "do not retry".
   */
  merged?: { into: string; title: string };
}

/**
 * An approach a commit or a merge's synthesis says was tried and did not work (decider/ruled-out.ts),
 * beside the abandoned branches of `failed`: `branch` is where it was tried (a merge's: the
 * branch merged). Read by the briefing, status and the repeat guard.
 */
export interface FailedApproach {
  what: string;
  why: string;
  branch: string;
  at: string;
}

/** A host session as this clone knows it: where it stands and its lifecycle machine. */
export interface SessionInfo {
  host: string;
  /** Where the session is: where the clone last moved when it began, then as it moves. */
  branch: string | null;
  /** It switched itself: a sessionless switch (a person, or its agent through the CLI) no longer moves it. */
  own: boolean;
  life: SessionLifecycle;
  started: boolean;
  reason: string;
  since: string;
  /** A hook host (not an MCP server) reported its start or compaction, and so handed it the briefing. */
  briefed?: boolean;
}

export interface FileInfo {
  commit: string;
  branch: string;
}

export interface MemoryState {
  format: number;
  created: string;
  config: Config;
  objectives: Objective[];
  notes: string;
  milestones: Milestone[];
  milestoneCount: number;
  failed: Failed[];
  failedCount: number;
  /**
   * The user's standing instructions from their prompts, oldest first, until superseded (decider/constraints.ts).
   * Local.
   */
  constraints: Constraint[];
  /** The user's newest prompt, its head (local). */
  lastPrompt: { text: string; at: string; branch: string } | null;
  /** Approaches ruled out inside commits and merges, newest last (a window), and how many in all. */
  failedApproaches: FailedApproach[];
  failedApproachCount: number;
  branches: Dict<BranchInfo>;
  /** Files touched by commits: path → the last commit that touched it (metadata.yaml's file_tree). */
  files: Dict<FileInfo>;
  /** Local: where commands naming no session act (moved only by them). */
  defaultBranch: string;
  /** Local: the branch this clone last moved to, from any session: where a new session begins. */
  lastMoved: string;
  sessions: Dict<SessionInfo>;
  /** Id of the newest event folded in; new ids sort after it. */
  lastId: string;
  events: number;
}

export const MILESTONE_WINDOW = 50;
export const RECENT_COMMITS = 5;
export const FAILED_WINDOW = 20;
export const SESSION_WINDOW = 200;
/** Standing instructions kept; past it the oldest is let go. */
export const CONSTRAINTS_KEPT = 8;
/** Characters of the newest prompt the state keeps. */
export const PROMPT_KEPT = 600;

export function emptyPending(): BranchInfo['pending'] {
  return { edits: 0, turns: 0, files: dict(), failures: [], failuresDropped: 0 };
}

export function newBranch(
  name: string,
  parent: string | null,
  created: string,
  purpose: string,
  hypotheses: string[],
): BranchInfo {
  return {
    name,
    parent,
    life: 'active',
    created,
    purpose,
    hypotheses,
    reason: null,
    mergedInto: null,
    closed: null,
    commits: 0,
    logged: 0,
    labels: [],
    dupLabels: [],
    recent: [],
    last: null,
    pending: emptyPending(),
  };
}

export function initialState(): MemoryState {
  return {
    format: FORMAT_VERSION,
    created: '',
    config: { ...DEFAULT_CONFIG },
    objectives: [],
    notes: '',
    milestones: [],
    milestoneCount: 0,
    failed: [],
    failedCount: 0,
    failedApproaches: [],
    failedApproachCount: 0,
    constraints: [],
    lastPrompt: null,
    branches: dict([[MAIN, newBranch(MAIN, null, '', 'Main line of the project', [])]]),
    files: dict(),
    defaultBranch: MAIN,
    lastMoved: MAIN,
    sessions: dict(),
    lastId: '',
    events: 0,
  };
}

/** The order branches are listed and drawn in: main first, then by creation, then by name. */
export function branchOrder(a: BranchInfo, b: BranchInfo): number {
  if (a.name === MAIN || b.name === MAIN) return a.name === MAIN ? -1 : 1;
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  return a.name < b.name ? -1 : 1;
}

export const isOpen = (b: BranchInfo | undefined): b is BranchInfo => b !== undefined && b.life === 'active';

/**
 * Where a pointer at `name` lands: the branch while it is open; a merged branch's target, an
 * abandoned one's parent, followed until an open branch; main when nothing is left.
 */
export function landing(state: MemoryState, name: string | null | undefined): string {
  let cur = name ?? MAIN;
  for (let i = 0; i < 100; i++) {
    const b = state.branches[cur];
    if (!b) return MAIN;
    if (b.life === 'active') return cur;
    cur = (b.life === 'merged' ? b.mergedInto : b.parent) ?? MAIN;
  }
  return MAIN;
}

/**
 * The session's current branch: its own pointer; for a session not seen yet, where the clone
 * last moved (a new session resumes the work); without a session, the clone's default.
 */
export function currentBranch(state: MemoryState, session?: string): string {
  if (session === undefined) return landing(state, state.defaultBranch);
  return landing(state, state.sessions[session]?.branch ?? state.lastMoved);
}

/** Why a session is not on the branch its pointer names (which only a gctx command moves). */
export interface Drift {
  /** The branch named: where a gctx command in this work tree last put the session. */
  from: string;
  to: string;
  /** `absent`: the branch's events are not in this checkout (a git checkout or reset took them). */
  why: 'absent' | 'merged' | 'abandoned';
  /** Commits on `from` that its merge or abandon did not include. */
  late: CommitRef[];
}

/**
 * The session's pointer, when it names another branch than the one the session is on: a git
 * checkout took the branch's events away (they come back with it), or a merge or abandon made
 * elsewhere closed it. Null when it names where the session is.
 */
export function drift(state: MemoryState, session?: string): Drift | null {
  const from =
    (session === undefined ? state.defaultBranch : (state.sessions[session]?.branch ?? state.lastMoved)) ?? MAIN;
  const to = landing(state, from);
  if (to === from) return null;
  const b = state.branches[from];
  const why = !b || b.life === 'active' || b.life === 'unborn' ? 'absent' : b.life;
  return { from, to, why, late: why === 'absent' ? [] : (b?.late ?? []) };
}

/**
 * What a reader is told of a drift: where the session stood, why it is elsewhere, what was left behind. `pinned`: told
 * by the command that pinned it.
 */
export function driftText(state: MemoryState, d: Drift, pinned: boolean): string {
  const b = state.branches[d.from];
  const lead = `${d.from}, where gctx last put this clone,`;
  if (d.why === 'absent') {
    const then = pinned
      ? `now on ${d.to}, and it stays there (\`gctx switch ${d.from}\` once ${d.from} is back)`
      : `the next commit goes to ${d.to} and keeps this clone there`;
    return `${lead} is not in this checkout (its events are on another git branch): ${then}.`;
  }
  const closed = d.why === 'merged' ? `${lead} was merged into ${b?.mergedInto ?? d.to}` : `${lead} was abandoned`;
  if (!d.late.length) return `${closed}; now on ${d.to}.`;
  const labels = d.late.map((c) => `${displayLabel(b, c.label, c.id)} "${c.title.slice(0, 80)}"`).join(', ');
  const first = d.late[0]!;
  return (
    `${closed} without its later commits ${labels}; now on ${d.to}. Read them (\`gctx context ` +
    `--commit ${d.from}@${displayLabel(b, first.label, first.id)}\`) and commit what still ` +
    `matters here.`
  );
}

/** The highest label number a branch carries. */
export function lastLabel(b: BranchInfo): number {
  return b.labels.length ? b.labels[b.labels.length - 1]![1] : 0;
}

/** How readers see a commit's label: qualified by its hash where the label is not unique on its branch. */
export function displayLabel(b: BranchInfo | undefined, label: string, hash: string): string {
  return b && b.dupLabels.includes(label) ? `${label}.${hash}` : label;
}
