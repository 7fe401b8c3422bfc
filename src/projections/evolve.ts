/**
 * evolve: the pure fold from events to state, written as immer draft recipes so the
 * incremental path (one batch at a time) and replay (every event in one draft) run the
 * very same code. Evolve is total: events in an unusual order — as a git union of two
 * clones' logs can produce — are absorbed by rule, never thrown.
 */
import { diffLib } from '../runtime/lazy-deps.js';
import { current, type Draft, freeze, isDraft, produce } from 'immer';
import { type Config, DEFAULT_CONFIG, type GccEvent, MAIN } from '../events/types.js';
import { type BranchInfo, fileBucket, initialState, type MemoryState, MILESTONE_WINDOW, newBranch, RECENT_COMMITS } from './state.js';

function branchOf(d: Draft<MemoryState>, name: string, at: string): Draft<BranchInfo> {
  let b = d.branches[name];
  if (!b) {
    b = newBranch(name, MAIN, at, '', []) as Draft<BranchInfo>;
    d.branches[name] = b;
  }
  return b;
}

function pointSessions(d: Draft<MemoryState>, from: string, to: string): void {
  for (const [s, b] of Object.entries(d.sessions)) if (b === from) d.sessions[s] = to;
  if (d.defaultBranch === from) d.defaultBranch = to;
}

function labelRange(first: number, last: number): string {
  const l = (n: number) => `C${String(n).padStart(3, '0')}`;
  if (last <= 0) return 'none';
  return first === last ? l(first) : `${l(first)}–${l(last)}`;
}

/**
 * Append to a bounded window. On a draft, by building the new array: splicing a draft array
 * goes through immer's traps element by element, which made every commit on a long history
 * pay for the whole window. On replay's plain state, in place: copying the window for each
 * of ten thousand commits was a tenth of the fold.
 */
function pushWindow<T>(draft: T[], item: T, max: number): T[] {
  if (!isDraft(draft)) {
    draft.push(item);
    if (draft.length > max) draft.splice(0, draft.length - max);
    return draft;
  }
  const list = current(draft as unknown as object) as readonly T[];
  const keep = list.length >= max ? list.slice(list.length - max + 1) : list.slice();
  keep.push(item);
  return keep;
}

function addMilestone(d: Draft<MemoryState>, title: string, branch: string, commits: string, status: string, at: string): void {
  d.milestoneCount += 1;
  d.milestones = pushWindow(d.milestones, { n: d.milestoneCount, title, branch, commits, status, at }, MILESTONE_WINDOW) as Draft<MemoryState>['milestones'];
}

export function evolveDraft(d: Draft<MemoryState>, e: GccEvent): void {
  const owner = branchOf(d, e.branch, e.at);
  owner.seq = e.seq;
  d.lastId = e.id;
  d.events += 1;
  switch (e.type) {
    case 'memory.initialized': {
      d.format = e.data.format;
      d.config = { ...DEFAULT_CONFIG, ...e.data.config };
      if (!d.created) d.created = e.at;
      const main = branchOf(d, MAIN, e.at);
      if (!main.created) main.created = e.at;
      return;
    }
    case 'objective.added':
      if (!d.objectives.some((o) => o.id === e.data.id)) d.objectives.push({ id: e.data.id, text: e.data.text, done: false });
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
      if (e.data.key in DEFAULT_CONFIG) (d.config as Record<keyof Config, unknown>)[e.data.key] = e.data.value;
      return;
    case 'branch.created': {
      const existing = d.branches[e.data.name];
      if (!existing || (existing.status === 'active' && !existing.purpose)) {
        const b = newBranch(e.data.name, e.data.parent, e.at, e.data.purpose, e.data.hypotheses);
        if (existing) b.seq = existing.seq;
        d.branches[e.data.name] = b as Draft<BranchInfo>;
      }
      if (e.data.session) d.sessions[e.data.session] = e.data.name;
      else d.defaultBranch = e.data.name;
      return;
    }
    case 'branch.switched':
      if (e.data.session) d.sessions[e.data.session] = e.data.to;
      else d.defaultBranch = e.data.to;
      return;
    case 'commit.recorded': {
      owner.commits += 1;
      owner.recent = pushWindow(owner.recent, { id: e.data.id, label: e.data.label, title: e.data.title, at: e.at }, RECENT_COMMITS);
      owner.lastContribution = e.data.contribution.slice(0, 600);
      owner.pending = { edits: 0, turns: 0, files: {} };
      for (const f of e.data.files) (d.files[fileBucket(f.path)] ??= {})[f.path] = { commit: e.data.id, branch: e.branch };
      if (e.branch === MAIN) {
        const m = e.data.merge;
        if (m) {
          const src = d.branches[m.from];
          addMilestone(d, e.data.title, m.from, labelRange(1, src?.commits ?? 0), 'merged', e.at);
        } else {
          addMilestone(d, e.data.title, MAIN, e.data.label, 'committed', e.at);
        }
      }
      return;
    }
    case 'branch.merged': {
      const src = branchOf(d, e.data.branch, e.at);
      if (src.status === 'active') {
        src.status = 'merged';
        src.mergedInto = e.data.into;
        src.closed = e.at;
      }
      pointSessions(d, e.data.branch, e.data.into);
      if (e.data.session) d.sessions[e.data.session] = e.data.into;
      return;
    }
    case 'branch.abandoned': {
      const b = branchOf(d, e.data.branch, e.at);
      if (b.status === 'active') {
        b.status = 'abandoned';
        b.reason = e.data.reason;
        b.closed = e.at;
      }
      pointSessions(d, e.data.branch, b.parent ?? MAIN);
      return;
    }
    case 'ota.logged':
      owner.pending.turns += 1;
      return;
    case 'tool.recorded': {
      owner.pending.turns += 1;
      if (e.data.files.length) owner.pending.edits += 1;
      for (const f of e.data.files) {
        const prev = owner.pending.files[f.path];
        owner.pending.files[f.path] = { path: f.path, added: (prev?.added ?? 0) + f.added, removed: (prev?.removed ?? 0) + f.removed };
      }
      return;
    }
    case 'session.started':
    case 'session.compacted':
    case 'session.ended':
      return;
  }
}

export function evolve(state: MemoryState, events: readonly GccEvent[]): MemoryState {
  if (events.length === 0) return state;
  return produce(state, (d) => {
    for (const e of events) evolveDraft(d, e);
  });
}

/**
 * Replay from scratch: the same recipe applied to a fresh plain state that nothing else
 * can see yet, then frozen. Skipping immer's proxies here is what keeps a 100,000-event
 * replay fast; sharing `evolveDraft` is what keeps it equal to the incremental path.
 */
export function replay(events: readonly GccEvent[]): MemoryState {
  const r = replayer();
  for (const e of events) r.add(e);
  return r.state();
}

/** replay() one event at a time, for events streamed from the logs rather than held. */
export function replayer(): { add(e: GccEvent): void; state(): MemoryState } {
  const d = initialState() as Draft<MemoryState>;
  return {
    add: (e) => evolveDraft(d, e),
    state: () => freeze(d as MemoryState, true),
  };
}
