/**
 * Which view files a batch of events touches, and their new content. The incremental path
 * renders only what a batch touched (appending to commit.md and log.md, rewriting the small
 * files); a rebuild renders everything (engine/views.ts). Both call the same renderers on the
 * same state, so a replay gives the same bytes.
 */
import type { BranchInfo, MemoryState } from '../decider/state.js';
import { displayLabel } from '../decider/state.js';
import { type GccEvent, isLocalType, MAIN } from '../events/types.js';
import type { Layout } from '../store/paths.js';
import { commitHeader, renderCommit } from './render-commit.js';
import { LOG_WINDOW, logEntry, logHeader } from './render-log.js';
import { renderMain } from './render-main.js';
import { renderMetadata } from './render-metadata.js';
import { renderSummary } from './render-summary.js';

/**
 * A view rewritten whole, or grown at its end. An append's `create` is the view's start when
 * the batch begins it (a branch's first entry); null when the view should be there already:
 * found missing (removed by hand), it is rebuilt from the logs rather than started again.
 */
export type FileWrite =
  | { kind: 'write'; content: string }
  | { kind: 'append'; content: string; create: string | null; branch: string; view: 'log' | 'commit' };

/**
 * The views' format: bump it whenever a render changes, so views written by an earlier gctx
 * are rebuilt at the next open rather than found to differ from a rebuild.
 */
export const VIEWS_FORMAT = 4;

export interface ViewPlan {
  writes: Map<string, FileWrite>;
  /** Branches whose commit.md is rebuilt from the logs: a label of theirs became ambiguous. */
  commitRebuild: Set<string>;
  /** Branches whose log.md is rebuilt from the logs: it reached the point where it is trimmed. */
  logRebuild: Set<string>;
}

function append(
  out: Map<string, FileWrite>,
  path: string,
  content: string,
  create: string | null,
  branch: string,
  view: 'log' | 'commit',
): void {
  const prev = out.get(path);
  out.set(
    path,
    prev && prev.kind === 'append'
      ? { ...prev, content: prev.content + content }
      : { kind: 'append', content, create, branch, view },
  );
}

/** Whether every branch agrees on `fields` in both states (a batch replaces one or two branch records). */
function sameBranches(a: MemoryState, b: MemoryState, fields: readonly (keyof BranchInfo)[]): boolean {
  if (a.branches === b.branches) return true;
  const names = Object.keys(b.branches);
  if (names.length !== Object.keys(a.branches).length) return false;
  for (const name of names) {
    const x = a.branches[name];
    const y = b.branches[name];
    if (x === y) continue;
    if (!x || !y || fields.some((f) => x[f] !== y[f])) return false;
  }
  return true;
}

/** main.md's inputs (render-main.ts); kept with it by the replay-equals-incremental properties. */
function sameMainFields(a: MemoryState, b: MemoryState): boolean {
  return (
    a.objectives === b.objectives &&
    a.milestones === b.milestones &&
    a.milestoneCount === b.milestoneCount &&
    a.failed === b.failed &&
    a.failedCount === b.failedCount &&
    a.notes === b.notes &&
    a.defaultBranch === b.defaultBranch &&
    sameBranches(a, b, ['life', 'purpose', 'parent', 'mergedInto'])
  );
}

/** metadata.yaml's inputs (render-metadata.ts). */
function sameMetadataFields(a: MemoryState, b: MemoryState): boolean {
  return (
    a.files === b.files &&
    a.config === b.config &&
    a.created === b.created &&
    sameBranches(a, b, ['life', 'created', 'parent', 'reason', 'mergedInto'])
  );
}

/** The files a batch changes, rendered from the state after it. */
export function incrementalPlan(
  l: Layout,
  before: MemoryState,
  after: MemoryState,
  events: readonly GccEvent[],
): ViewPlan {
  const plan: ViewPlan = { writes: new Map(), commitRebuild: new Set(), logRebuild: new Set() };
  const summaries = new Set<string>();
  for (const e of events) {
    const b = after.branches[e.branch];
    if (!b || isLocalType(e.type)) continue;
    summaries.add(e.branch);
    if (e.type === 'branch.merged' || e.type === 'branch.abandoned') summaries.add(e.data.branch);
    // An event sorting before one already folded (another clone's id from a clock running
    // ahead) belongs earlier in the views than an append would put it: they are rewritten in id order.
    const early = e.id < before.lastId;
    if (early) {
      plan.logRebuild.add(e.branch);
      if (e.type === 'commit.recorded') plan.commitRebuild.add(e.branch);
    }
    if (b.logged >= 2 * LOG_WINDOW && b.logged % LOG_WINDOW === 0) plan.logRebuild.add(e.branch);
    else if (!plan.logRebuild.has(e.branch)) {
      const first = (before.branches[e.branch]?.logged ?? 0) === 0;
      append(plan.writes, l.logOf(e.branch), logEntry(e), first ? logHeader(e.branch) : null, e.branch, 'log');
    }
    if (e.type === 'branch.created' || e.type === 'memory.initialized') {
      const name = e.type === 'branch.created' ? e.data.name : MAIN;
      append(plan.writes, l.commitOf(name), '', commitHeader(name), name, 'commit');
    }
    if (e.type === 'commit.recorded') {
      if ((before.branches[e.branch]?.dupLabels.length ?? 0) !== b.dupLabels.length) plan.commitRebuild.add(e.branch);
      else if (!plan.commitRebuild.has(e.branch))
        append(
          plan.writes,
          l.commitOf(e.branch),
          renderCommit(e, displayLabel(b, e.data.label, e.data.id)),
          null,
          e.branch,
          'commit',
        );
    }
  }
  for (const name of plan.logRebuild) plan.writes.delete(l.logOf(name));
  for (const name of plan.commitRebuild) plan.writes.delete(l.commitOf(name));
  // The first event writes main.md and metadata.yaml even when they render as before: they must exist.
  const first = events.some((e) => e.type === 'memory.initialized');
  // Most batches (a logged call, a commit off main) change neither file: the fields they are
  // rendered from are compared first, so such a batch renders neither.
  if (first || !sameMainFields(before, after)) {
    const main = renderMain(after);
    if (first || main !== renderMain(before)) plan.writes.set(l.mainMd, { kind: 'write', content: main });
  }
  if (first || !sameMetadataFields(before, after)) {
    const meta = renderMetadata(after);
    if (first || meta !== renderMetadata(before)) plan.writes.set(l.metadata, { kind: 'write', content: meta });
  }
  for (const name of summaries) {
    const b = after.branches[name];
    if (!b || name === MAIN || b.life === 'unborn') continue;
    const text = renderSummary(b);
    const old = before.branches[name];
    if (!old || old.life === 'unborn' || renderSummary(old) !== text)
      plan.writes.set(l.summaryOf(name), { kind: 'write', content: text });
  }
  return plan;
}
