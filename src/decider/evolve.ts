/**
 * evolve: the pure fold from events to state, written as immer draft recipes so the
 * incremental path (one batch at a time) and replay (every event in one draft) run the very
 * same code. Branch and session lifecycles move through their machines (machines/steps.ts):
 * the machine is the model, the fold keeps its state value.
 *
 * Evolve is total: events in an unusual order — as a union of two clones' logs can produce —
 * are absorbed by rule, never thrown. A lifecycle move the machine refuses (a branch merged
 * on one clone and abandoned on the other) leaves the branch where the earlier event put it;
 * the failed approach it is listed as, whichever came first, carries the merge as well, so
 * readers say both rather than "do not retry" work that was merged.
 */
import { type Draft, freeze, Immer, produce } from 'immer';
import { diffLib } from '../runtime/lazy-deps.js';
import { type Config, DEFAULT_CONFIG, type GccEvent, isLocalType, MAIN } from '../events/types.js';
import { guardRefusal } from '../events/guard.js';
import { MAX_OBJECTIVES } from '../events/rules.js';
import type { BranchLifecycle, RejectCode } from '../machines/branch-machine.js';
import { branchStep, sessionStep } from '../machines/steps.js';
import { signalsOf } from '../machines/session.js';
import { ruledOut, sameApproach } from './ruled-out.js';
import { instructionsIn, lifts, sameSubject } from './constraints.js';
import {
  type BranchInfo,
  CONTRIBUTION_KEPT,
  emptyPending,
  CONSTRAINTS_KEPT,
  FAILED_WINDOW,
  GIST_KEPT,
  initialState,
  LEARNED_KEPT,
  type MemoryState,
  MILESTONE_WINDOW,
  newBranch,
  PENDING_FAILURES,
  PENDING_FILES,
  PROMPT_KEPT,
  REASON_KEPT,
  RECENT_COMMITS,
  SESSION_WINDOW,
} from './state.js';

/**
 * The branch an event is about. One whose creation has not been folded yet (a union can deliver
 * a branch's events before it) is held as `unborn`, the machine's state before creation: its
 * events are kept, and its creation, when it comes, makes it active.
 */
function branchOf(d: Draft<MemoryState>, name: string, at: string): Draft<BranchInfo> {
  let b = d.branches[name];
  if (!b) {
    b = newBranch(name, MAIN, at, '', []) as Draft<BranchInfo>;
    b.life = 'unborn';
    d.branches[name] = b;
  }
  return b;
}

function pushWindow<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

function labelRange(first: number, last: number): string {
  const l = (n: number) => `C${String(n).padStart(3, '0')}`;
  if (last <= 0) return 'none';
  return first === last ? l(first) : `${l(first)}–${l(last)}`;
}

/** Record a label number as used; a number already used makes the label a duplicate. */
function useLabel(b: Draft<BranchInfo>, label: string): void {
  const n = Number(label.slice(1));
  const ranges = b.labels;
  let i = 0;
  while (i < ranges.length && ranges[i]![1] < n - 1) i++;
  const r = ranges[i];
  if (r && r[0] <= n && n <= r[1]) {
    if (!b.dupLabels.includes(label)) b.dupLabels.push(label);
    return;
  }
  if (r && r[1] === n - 1) {
    r[1] = n;
    const after = ranges[i + 1];
    if (after && after[0] === n + 1) {
      r[1] = after[1];
      ranges.splice(i + 1, 1);
    }
  } else if (r && r[0] === n + 1) {
    r[0] = n;
  } else {
    ranges.splice(i, 0, [n, n]);
  }
}

/**
 * What the fold absorbed rather than applied as written, for `gctx verify` (decider/contradictions.ts):
 * a move the branch machine refused, with the branch's state then; a second initialization; a
 * merge into a branch that is not open.
 */
export type Refusal =
  | { code: RejectCode; life: BranchLifecycle }
  | { code: 'E_ALREADY_INITIALIZED'; created: string }
  | { code: 'E_MERGE_TARGET'; into: string };

/** Told each refusal as the fold meets it; the fold goes on the same. */
export type Refused = (e: GccEvent, r: Refusal) => void;

function lifecycle(
  d: Draft<MemoryState>,
  e: Extract<GccEvent, { type: 'branch.created' | 'commit.recorded' | 'branch.merged' | 'branch.abandoned' }>,
  refused?: Refused,
): boolean {
  const name = e.type === 'branch.created' ? e.data.name : e.type === 'commit.recorded' ? e.branch : e.data.branch;
  const b = d.branches[name];
  const context = {
    name,
    parent: name === MAIN ? null : (b?.parent ?? (e.type === 'branch.created' ? e.data.parent : MAIN)),
  };
  const step = branchStep(b?.life ?? 'unborn', context, e, 'fold');
  if (step.rejected) {
    refused?.(e, { code: step.rejected.code, life: b?.life ?? 'unborn' });
    return false;
  }
  if (b) b.life = step.life;
  return true;
}

/** `refused`: told what the fold absorbs (verify); commits are asked of the machine only then. */
export function evolveDraft(d: Draft<MemoryState>, e: GccEvent, refused?: Refused): void {
  d.lastId = e.id > d.lastId ? e.id : d.lastId;
  d.events += 1;
  // A clone's own moves (switches, sessions, prompts) stay out of the branches every clone shares:
  // they neither lengthen a log view nor make a branch a revert removed come back as unborn.
  if (!isLocalType(e.type)) branchOf(d, e.branch, e.at).logged += 1;
  switch (e.type) {
    case 'memory.initialized': {
      if (d.created) refused?.(e, { code: 'E_ALREADY_INITIALIZED', created: d.created });
      d.format = e.data.format;
      // Only the settings this version knows (validated with the event); others are a later version's.
      d.config = { ...DEFAULT_CONFIG };
      for (const k of Object.keys(DEFAULT_CONFIG) as (keyof Config)[]) {
        if (Object.hasOwn(e.data.config, k)) (d.config as Record<keyof Config, unknown>)[k] = e.data.config[k];
      }
      if (!d.created) d.created = e.at;
      const main = branchOf(d, MAIN, e.at);
      if (!main.created) main.created = e.at;
      return;
    }
    case 'objective.added':
      // Past the cap (a log written by hand or by an older gctx) an add is ignored: the fold
      // stays total and its cost bounded.
      if (d.objectives.length < MAX_OBJECTIVES && !d.objectives.some((o) => o.id === e.data.id))
        d.objectives.push({ id: e.data.id, text: e.data.text, done: false });
      return;
    case 'objective.checked':
    case 'objective.unchecked': {
      const o = d.objectives.find((x) => x.id === e.data.id);
      if (o) o.done = e.type === 'objective.checked';
      return;
    }
    case 'objective.edited': {
      const o = d.objectives.find((x) => x.id === e.data.id);
      if (o) o.text = e.data.text;
      return;
    }
    case 'objective.removed': {
      const i = d.objectives.findIndex((x) => x.id === e.data.id);
      if (i !== -1) d.objectives.splice(i, 1);
      return;
    }
    case 'notes.patched': {
      const next = diffLib().applyPatch(d.notes, e.data.patch);
      if (next !== false) d.notes = next;
      return;
    }
    case 'config.set':
      if (Object.hasOwn(DEFAULT_CONFIG, e.data.key) && typeof e.data.value === typeof DEFAULT_CONFIG[e.data.key])
        (d.config as Record<keyof Config, unknown>)[e.data.key] = e.data.value;
      return;
    case 'branch.created': {
      const existing = d.branches[e.data.name];
      // Created twice (a union of two clones that chose one name): the first creation stands.
      if (!lifecycle(d, e, refused)) return;
      const b = newBranch(e.data.name, e.data.parent, e.at, e.data.purpose, e.data.hypotheses);
      if (existing) {
        // Events of the branch arrived before its creation (a union): keep what they recorded.
        b.commits = existing.commits;
        b.logged = existing.logged;
        b.labels = existing.labels;
        b.dupLabels = existing.dupLabels;
        b.recent = existing.recent;
        b.last = existing.last;
        b.pending = existing.pending;
      }
      d.branches[e.data.name] = b as Draft<BranchInfo>;
      return;
    }
    case 'commit.recorded': {
      // Counted on its branch whatever the machine says: a commit is never lost to a union.
      if (refused) lifecycle(d, e, refused);
      const owner = branchOf(d, e.branch, e.at);
      owner.commits += 1;
      useLabel(owner, e.data.label);
      pushWindow(
        owner.recent,
        {
          id: e.data.id,
          label: e.data.label,
          title: e.data.title,
          at: e.at,
          gist: e.data.contribution.slice(0, GIST_KEPT),
          ...(e.data.abandon ? { abandon: e.data.abandon.from } : {}),
        },
        RECENT_COMMITS,
      );
      // Made where the branch's close was not seen yet: its merge (or abandon) did not include it.
      if (owner.closed !== null)
        pushWindow(
          (owner.late ??= []),
          { id: e.data.id, label: e.data.label, title: e.data.title, at: e.at },
          RECENT_COMMITS,
        );
      // The abandon record is a failed approach, listed as such: the last milestone stays the last progress.
      if (!e.data.abandon) {
        // The next step is the one this commit records, and only that: a commit that names
        // none has none (the step recorded before it may be what it did), and a merge is such a
        // commit — it supersedes the merged branch's step, which was usually "merge it back".
        // Status, the briefing and every view read the step from here.
        owner.last = {
          id: e.data.id,
          label: e.data.label,
          title: e.data.title,
          at: e.at,
          contribution: e.data.contribution.slice(0, CONTRIBUTION_KEPT),
          next: e.data.next ? e.data.next.slice(0, 300) : null,
          files: e.data.files.slice(0, 20),
          fileCount: e.data.files.length,
          // What was learned on the merged branch, when it says more than the synthesis (it
          // defaults to the synthesis).
          ...(e.data.merge
            ? {
                merged: {
                  from: e.data.merge.from,
                  learned:
                    e.data.merge.learned.trim() === e.data.contribution.trim()
                      ? ''
                      : e.data.merge.learned.slice(0, LEARNED_KEPT),
                },
              }
            : {}),
        };
      }
      owner.pending = emptyPending();
      // A commit that says an instruction of the user's was lifted lets it go.
      liftConstraints(d, e.data.contribution);
      if (!e.data.abandon)
        noteRuledOut(
          d,
          e.data.merge ? [e.data.contribution, e.data.merge.learned] : [e.data.contribution],
          e.data.merge?.from ?? e.branch,
          e.at,
        );
      for (const f of e.data.files) d.files[f.path] = { commit: e.data.id, branch: e.branch };
      if (e.data.abandon) {
        const src = d.branches[e.data.abandon.from];
        addMilestone(d, e.data.title, e.data.abandon.from, labelRange(1, src?.commits ?? 0), 'abandoned', e.at);
      } else if (e.data.merge) {
        const src = d.branches[e.data.merge.from];
        addMilestone(d, e.data.title, e.data.merge.from, labelRange(1, src?.commits ?? 0), 'merged', e.at);
      } else if (e.branch === MAIN) {
        addMilestone(d, e.data.title, MAIN, e.data.label, 'committed', e.at);
      }
      return;
    }
    case 'branch.merged': {
      const src = branchOf(d, e.data.branch, e.at);
      if (!lifecycle(d, e, refused)) {
        // Abandoned on another clone first: its failed approach says it was merged too.
        if (src.life === 'abandoned') {
          const f = d.failed.findLast((x) => x.branch === src.name);
          if (f) f.merged = { into: e.data.into, title: mergeTitle(d, src.name) };
        }
        return;
      }
      if (d.branches[e.data.into]?.life !== 'active') refused?.(e, { code: 'E_MERGE_TARGET', into: e.data.into });
      src.mergedInto = e.data.into;
      src.closed = e.at;
      shelve(src);
      return;
    }
    case 'branch.abandoned': {
      const b = branchOf(d, e.data.branch, e.at);
      if (!lifecycle(d, e, refused)) {
        // Merged on another clone first: listed with the failed approaches all the same, as
        // merged and abandoned — whichever came first, readers see the one line.
        if (b.life === 'merged')
          listFailed(d, b, e.data.reason, e.at, { into: b.mergedInto ?? MAIN, title: mergeTitle(d, b.name) });
        return;
      }
      b.reason = e.data.reason;
      b.closed = e.at;
      shelve(b);
      listFailed(d, b, e.data.reason, e.at);
      return;
    }
    case 'ota.logged':
      branchOf(d, e.branch, e.at).pending.turns += 1;
      return;
    case 'tool.recorded': {
      const owner = branchOf(d, e.branch, e.at);
      owner.pending.turns += 1;
      if (e.data.files.length) owner.pending.edits += 1;
      for (const f of e.data.files) {
        const prev = owner.pending.files[f.path];
        owner.pending.files[f.path] = {
          path: f.path,
          added: (prev?.added ?? 0) + f.added,
          removed: (prev?.removed ?? 0) + f.removed,
          at: e.at,
        };
        if (!prev) dropOldestBeyond(owner.pending.files, PENDING_FILES, (f) => f.at);
      }
      // What failed since the last commit, and why, until the same call succeeds: a resuming
      // agent should not find out again by running it. A call gctx's own write guard refused
      // is not failing work (it never ran; the agent was told why at the time).
      if (e.data.isError && guardRefusal(e.data.result)) return;
      const failures = owner.pending.failures;
      const input = e.data.input.slice(0, 300);
      // One entry per call: failing again moves it to the end (newest), succeeding removes it.
      const i = failures.findIndex((f) => f.tool === e.data.tool && f.input === input);
      if (i !== -1) failures.splice(i, 1);
      if (e.data.isError) {
        failures.push({ tool: e.data.tool, input, result: e.data.result.slice(0, 600), at: e.at });
        if (failures.length > PENDING_FAILURES) {
          failures.splice(0, failures.length - PENDING_FAILURES);
          owner.pending.failuresDropped += 1;
        }
      }
      return;
    }
    case 'memory.repaired':
      return;
    case 'prompt.recorded': {
      d.lastPrompt = { text: e.data.text.slice(0, PROMPT_KEPT), at: e.at, branch: e.branch };
      liftConstraints(d, e.data.text);
      // A newer instruction on the same subject supersedes the older one: the user's newest words stand.
      for (const text of instructionsIn(e.data.text)) {
        const i = d.constraints.findIndex((c) => sameSubject(c.text, text));
        if (i !== -1) d.constraints.splice(i, 1);
        pushWindow(d.constraints, { text, at: e.at, branch: e.branch }, CONSTRAINTS_KEPT);
      }
      return;
    }
    case 'branch.switched': {
      d.lastMoved = e.data.to;
      if (e.data.session !== undefined) {
        const s = sessionOf(d, e.data.session, '', e.at);
        s.branch = e.data.to;
        s.own = true;
        return;
      }
      // A command naming no session moves the clone's default, and with it every session that
      // never chose a branch itself: an agent driving gctx through the CLI moves its own hooks.
      d.defaultBranch = e.data.to;
      for (const id of Object.keys(d.sessions)) {
        const s = d.sessions[id]!;
        if (!s.own) s.branch = e.data.to;
      }
      return;
    }
    case 'session.started':
    case 'session.compacted':
    case 'session.ended': {
      const s = sessionOf(d, e.data.session, e.data.host, e.at);
      const step = sessionStep(s, { host: e.data.host, session: e.data.session }, signalsOf(e), 'fold');
      s.life = step.life;
      s.started = step.started;
      s.reason = step.reason;
      s.host = e.data.host;
      if (e.type !== 'session.ended' && e.data.host !== 'mcp') s.briefed = true;
      return;
    }
  }
}

/** An abandoned branch listed among the failed approaches (`merged`: another clone merged it first). */
function listFailed(
  d: Draft<MemoryState>,
  b: Draft<BranchInfo>,
  reason: string,
  at: string,
  merged?: { into: string; title: string },
): void {
  d.failedCount += 1;
  const f = {
    branch: b.name,
    parent: b.parent ?? MAIN,
    purpose: b.purpose.slice(0, 300),
    reason: reason.slice(0, REASON_KEPT),
    at,
  };
  pushWindow(d.failed, merged ? { ...f, merged } : f, FAILED_WINDOW);
}

/**
 * A closed branch keeps what is read of it once closed — its summary's commit titles, the
 * branch lists, the next step a merge carried — and lets go of its commits' prose: the gists
 * and the last contribution and files, which status and the briefing show for the open branch
 * a session stands on (status, walking up to a closed parent, shows its commits' titles).
 * The prose stays in the logs. Every read holds the state, and closed branches are what makes
 * it grow with the history.
 */
function shelve(b: Draft<BranchInfo>): void {
  // New records rather than `delete`: an object a property is deleted from is kept as a hash
  // table, several times its size, for as long as the branch is in the state.
  b.recent = b.recent.map(({ gist: _gist, ...c }) => c);
  if (b.last) {
    b.last.contribution = '';
    b.last.files = [];
  }
}

/** Instructions of the user's that `text` (a prompt, a commit) says are lifted. */
function liftConstraints(d: Draft<MemoryState>, text: string): void {
  if (!d.constraints.length) return;
  const head = text.slice(0, RULED_OUT_SCAN);
  for (let i = d.constraints.length - 1; i >= 0; i--)
    if (lifts(head, d.constraints[i]!.text)) d.constraints.splice(i, 1);
}

/** Characters of a commit's text read for ruled-out approaches: the decisions are in its head. */
const RULED_OUT_SCAN = 4_000;

/** What a commit (or a merge's synthesis and learned) says was tried and dropped, each approach once. */
function noteRuledOut(d: Draft<MemoryState>, texts: string[], branch: string, at: string): void {
  const seen = new Set<string>();
  for (const text of texts) {
    if (seen.has(text)) continue;
    seen.add(text);
    for (const r of ruledOut(text.slice(0, RULED_OUT_SCAN))) {
      const i = d.failedApproaches.findIndex((x) => sameApproach(x.what, r.what));
      if (i !== -1) d.failedApproaches.splice(i, 1);
      else d.failedApproachCount += 1;
      pushWindow(d.failedApproaches, { what: r.what, why: r.why, branch, at }, FAILED_WINDOW);
    }
  }
}

/** The title of a branch's merge, from the milestones window ('' when it has left it). */
function mergeTitle(d: Draft<MemoryState>, branch: string): string {
  const m = d.milestones.findLast((x) => x.branch === branch && x.status === 'merged');
  return m ? m.title : '';
}

function addMilestone(
  d: Draft<MemoryState>,
  title: string,
  branch: string,
  commits: string,
  status: 'committed' | 'merged' | 'abandoned',
  at: string,
): void {
  d.milestoneCount += 1;
  pushWindow(d.milestones, { n: d.milestoneCount, title, branch, commits, status, at }, MILESTONE_WINDOW);
}

/** Keep a dict of timed entries to `max`, dropping the oldest by `time`. */
function dropOldestBeyond<T>(dict: Record<string, T>, max: number, time: (x: T) => string): void {
  const keys = Object.keys(dict);
  if (keys.length <= max) return;
  let oldest = keys[0]!;
  for (const k of keys) if (time(dict[k]!) < time(dict[oldest]!)) oldest = k;
  delete dict[oldest];
}

/** A session's record, created on first sight; the oldest are forgotten past SESSION_WINDOW. */
function sessionOf(d: Draft<MemoryState>, id: string, host: string, at: string) {
  let s = d.sessions[id];
  if (!s) {
    dropOldestBeyond(d.sessions, SESSION_WINDOW - 1, (x) => x.since);
    s = { host, branch: d.lastMoved, own: false, life: 'idle', started: false, reason: '', since: at };
    d.sessions[id] = s;
  }
  return s;
}

export function evolve(state: MemoryState, events: readonly GccEvent[]): MemoryState {
  if (events.length === 0) return state;
  return produce(state, (d) => {
    for (const e of events) evolveDraft(d, e);
  });
}

const unfrozen = new Immer({ autoFreeze: false });

/**
 * evolve() without freezing what it returns, for a holder that never hands its state out to be
 * changed (the engine's Memory). Immer freezes the whole of a base not frozen yet — a walk of
 * every branch, which grows with the history — and a state read back from a snapshot is not
 * frozen; copy-on-write still leaves every earlier state as it was.
 */
export function evolveUnfrozen(state: MemoryState, events: readonly GccEvent[]): MemoryState {
  if (events.length === 0) return state;
  return unfrozen.produce(state, (d) => {
    for (const e of events) evolveDraft(d, e);
  });
}

/**
 * Replay from scratch: the same recipe applied to a fresh plain state nothing else can see
 * yet, then frozen — immer's proxies are for sharing, which a fresh state does not need.
 */
export function replay(events: readonly GccEvent[]): MemoryState {
  const r = replayer();
  for (const e of events) r.add(e);
  return r.state();
}

/** replay() one event at a time, for events streamed from the logs rather than held; `refused`: see evolveDraft. */
export function replayer(refused?: Refused): { add(e: GccEvent): void; state(): MemoryState } {
  const d = initialState() as Draft<MemoryState>;
  return { add: (e) => evolveDraft(d, e, refused), state: () => freeze(d as MemoryState, true) };
}
