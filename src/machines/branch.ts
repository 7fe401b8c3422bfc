/**
 * Branch operations routed through the branch lifecycle machine (./branch-machine.ts).
 *
 * API for the engine's decider (all pure, no actors, no clocks):
 *
 *   decideBranchOp(state: BranchWorld | BranchView, op: BranchOp): BranchDecision
 *     → { ok: true, emitted: NewEvent[], next: BranchWorld } | { ok: false, error: GccError }
 *   replayBranch(events: readonly (GccEvent | NewEvent)[], opts?: { session?: string }): BranchWorld
 *   branchView(world: BranchWorld): BranchView          plain JSON, for comparisons and storage
 *   worldFromView(view: BranchView): BranchWorld        from the engine's projection
 *   initialBranchWorld(): BranchWorld                   main only, current
 *
 * Emitted events follow the engine's projection (src/projections/evolve.ts): create emits
 * 'branch.created', merge 'commit.recorded' (the synthesis) + 'branch.merged', abandon
 * 'branch.abandoned'; the session moves they imply are not repeated as 'branch.switched'
 * (only a sessionless merge run from a third branch adds one). `merge` without `into` targets
 * the parent if open, else main; abandoning the current branch moves to the parent if open,
 * else main.
 *
 * `commit` and `merge` leave their branches in flight (committing / merging), so any op that
 * would race them gets E_BUSY. After the store acknowledges the append, call
 * `decideBranchOp(next, { type: 'settle' })`. If the append fails, discard `next` and keep the
 * world you had: nothing was recorded, so nothing moved.
 *
 * Error precedence (first that applies): unknown branch (E_BRANCH_NOT_FOUND) / existing name
 * (E_BRANCH_EXISTS); then the machines in this order — create: current FORK; switch: current
 * SWITCH_OUT, target SWITCH_IN; commit: current COMMIT; merge: source MERGE, current SWITCH_OUT
 * (when it is neither source nor target), target SWITCH_IN (when not current), target COMMIT;
 * abandon: ABANDON, then the fallback's SWITCH_IN when the abandoned branch was current.
 */
import { initialTransition, transition } from 'xstate';
import { gccError, type GccError } from '../errors.js';
import { MAIN, type GccEvent, type NewEvent } from '../events/types.js';
import { emittedBy } from './effects.js';
import { fallbackOf, Pointers } from './branch-pointers.js';
import {
  branchInFlight, branchMachine, branchStatus,
  type BranchEmitted, type BranchMachineEvent, type BranchRejected, type BranchSnapshot,
  type BranchStatus, type CommitData,
} from './branch-machine.js';

export { branchMachine, branchStatus, branchInFlight };
export type { BranchSnapshot, BranchStatus, BranchMachineEvent, BranchEmitted, BranchRejected, CommitData };

export interface BranchWorld {
  readonly kind: 'world';
  /** This session's current branch. */
  readonly current: string;
  readonly branches: Readonly<Record<string, BranchSnapshot>>;
}

export interface BranchView {
  current: string;
  branches: Record<string, { status: BranchStatus; parent: string | null; inFlight?: 'commit' | 'merge' | null }>;
}

export type BranchOp =
  | { type: 'create'; name: string; purpose: string; hypotheses?: string[]; session?: string }
  | { type: 'switch'; to: string; session?: string }
  | { type: 'commit'; commit: CommitData }
  /** `into` defaults to the branch's parent. `commit` is the synthesis commit for the target. */
  | { type: 'merge'; branch: string; into?: string; commit: CommitData; session?: string }
  | { type: 'abandon'; branch: string; reason: string; session?: string }
  | { type: 'settle' };

export type BranchDecision =
  | { ok: true; emitted: NewEvent[]; next: BranchWorld }
  | { ok: false; error: GccError };

function snapshotAt(name: string, parent: string | null, value: BranchSnapshot['value']): BranchSnapshot {
  return branchMachine.resolveState({ value, context: { name, parent } });
}

export function initialBranchWorld(): BranchWorld {
  return { kind: 'world', current: MAIN, branches: { [MAIN]: snapshotAt(MAIN, null, { active: { current: 'idle' } }) } };
}

export function worldFromView(view: BranchView): BranchWorld {
  const branches: Record<string, BranchSnapshot> = { ...initialBranchWorld().branches };
  for (const [name, b] of Object.entries(view.branches)) {
    const parent = name === MAIN ? null : (b.parent ?? MAIN);
    let value: BranchSnapshot['value'];
    if (b.status !== 'active') value = { closed: b.status };
    else if (b.inFlight === 'merge') value = 'merging';
    else if (name === view.current) value = { active: { current: b.inFlight === 'commit' ? 'committing' : 'idle' } };
    else value = { active: 'notCurrent' };
    branches[name] = snapshotAt(name, parent, value);
  }
  return { kind: 'world', current: view.current, branches };
}

export function branchView(world: BranchWorld): BranchView {
  const branches: BranchView['branches'] = {};
  for (const [name, s] of Object.entries(world.branches)) {
    branches[name] = { status: branchStatus(s), parent: s.context.parent, inFlight: branchInFlight(s) };
  }
  return { current: world.current, branches };
}

/** A mutable working copy: ops send machine events until one is rejected. */
class Draft {
  current: string;
  readonly branches: Record<string, BranchSnapshot>;
  readonly emitted: NewEvent[] = [];
  constructor(world: BranchWorld) {
    this.current = world.current;
    this.branches = { ...world.branches };
  }
  send(name: string, event: BranchMachineEvent): BranchRejected | null {
    const snap = this.branches[name] ?? initialTransition(branchMachine, { name })[0];
    const [next, actions] = transition(branchMachine, snap, event);
    for (const out of emittedBy<BranchEmitted>(actions)) {
      if (out.type === 'gcc.rejected') return out;
      this.emitted.push(out);
    }
    this.branches[name] = next;
    return null;
  }
  world(): BranchWorld {
    return { kind: 'world', current: this.current, branches: this.branches };
  }
}

const FIX_STATUS = 'see the branches with `gctx status`';

function rejection(r: BranchRejected, d: Draft): GccError {
  const s = d.branches[r.branch];
  switch (r.code) {
    case 'E_BUSY':
      return gccError('E_BUSY', `branch "${r.branch}" has a ${s ? branchInFlight(s) ?? 'write' : 'write'} in flight`, 'wait for it to be recorded, then retry');
    case 'E_BRANCH_CLOSED':
      return gccError('E_BRANCH_CLOSED', `branch "${r.branch}" is ${s ? branchStatus(s) : 'closed'}: it takes no more commits, merges or switches`, `read it with \`gctx context --branch ${r.branch}\`; work on an open branch (\`gctx switch ${MAIN}\`) or start one (\`gctx branch <name>\`)`);
    case 'E_MERGE_SELF':
      return gccError('E_MERGE_SELF', `cannot merge "${r.branch}" into itself`, `name another target: \`gctx merge ${r.branch} --into ${MAIN}\``);
    case 'E_MERGE_MAIN':
      return gccError('E_MERGE_MAIN', `${MAIN} is the trunk and cannot be merged into another branch`, 'merge a branch into main instead: `gctx merge <branch>`');
    case 'E_ABANDON_MAIN':
      return gccError('E_ABANDON_MAIN', `${MAIN} cannot be abandoned`, 'abandon a branch instead: `gctx abandon <branch> --reason "..."`');
  }
}

const notFound = (name: string): BranchDecision => ({
  ok: false, error: gccError('E_BRANCH_NOT_FOUND', `no branch named "${name}"`, FIX_STATUS),
});

export function decideBranchOp(state: BranchWorld | BranchView, op: BranchOp): BranchDecision {
  const d = new Draft('kind' in state ? state : worldFromView(state));
  const fail = (r: BranchRejected | null): BranchDecision | null => (r ? { ok: false, error: rejection(r, d) } : null);
  const session = 'session' in op && op.session !== undefined ? { session: op.session } : {};
  switch (op.type) {
    case 'create': {
      if (d.branches[op.name]) {
        return { ok: false, error: gccError('E_BRANCH_EXISTS', `branch "${op.name}" already exists`, `switch to it (\`gctx switch ${op.name}\`) or pick another name`) };
      }
      const parent = d.current;
      const err = fail(d.send(parent, { type: 'FORK' }))
        ?? fail(d.send(op.name, { type: 'CREATE', parent, purpose: op.purpose, hypotheses: op.hypotheses ?? [], ...session }))
        ?? fail(d.send(op.name, { type: 'SWITCH_IN', ...session }));
      if (err) return err;
      d.current = op.name;
      break;
    }
    case 'switch': {
      if (!d.branches[op.to]) return notFound(op.to);
      if (op.to === d.current) break;
      const err = fail(d.send(d.current, { type: 'SWITCH_OUT' })) ?? fail(d.send(op.to, { type: 'SWITCH_IN', ...session }));
      if (err) return err;
      d.current = op.to;
      break;
    }
    case 'commit': {
      const err = fail(d.send(d.current, { type: 'COMMIT', commit: op.commit }));
      if (err) return err;
      break;
    }
    case 'merge': {
      const source = d.branches[op.branch];
      if (!source) return notFound(op.branch);
      const into = op.into ?? fallbackOf(d.branches, op.branch);
      if (!d.branches[into]) return notFound(into);
      const wasCurrent = d.current;
      let err = fail(d.send(op.branch, { type: 'MERGE', into, commit: op.commit.id, ...session }));
      if (!err && wasCurrent !== op.branch && wasCurrent !== into) err = fail(d.send(wasCurrent, { type: 'SWITCH_OUT' }));
      if (!err && wasCurrent !== into) err = fail(d.send(into, { type: 'SWITCH_IN', ...session }));
      if (!err) err = fail(d.send(into, { type: 'COMMIT', commit: op.commit }));
      if (err) return err;
      d.current = into;
      // The synthesis commit leads the batch: projections then see the merge after its commit.
      const rank = (e: NewEvent): number => (e.type === 'commit.recorded' ? 0 : e.type === 'branch.merged' ? 1 : 2);
      d.emitted.sort((a, b) => rank(a) - rank(b));
      break;
    }
    case 'abandon': {
      if (!d.branches[op.branch]) return notFound(op.branch);
      const err = fail(d.send(op.branch, { type: 'ABANDON', reason: op.reason, ...session }));
      if (err) return err;
      if (d.current === op.branch) {
        const to = fallbackOf(d.branches, op.branch);
        const e2 = fail(d.send(to, { type: 'SWITCH_IN', ...session }));
        if (e2) return e2;
        d.current = to;
      }
      break;
    }
    case 'settle': {
      for (const [name, s] of Object.entries(d.branches)) if (branchInFlight(s)) d.send(name, { type: 'DONE' });
      break;
    }
  }
  return { ok: true, emitted: withoutImpliedSwitches(d, state, op), next: d.world() };
}

/**
 * The engine's projection already moves sessions on create, merge and abandon, so a
 * 'branch.switched' is kept only where those rules would not land the session where this
 * decision did (a sessionless merge run from a third branch). One rule, also used by replay.
 */
function withoutImpliedSwitches(d: Draft, before: BranchWorld | BranchView, op: BranchOp): NewEvent[] {
  if (op.type === 'switch') return d.emitted;
  const session = 'session' in op ? op.session : undefined;
  const rest = d.emitted.filter((e) => e.type !== 'branch.switched');
  if (rest.length === d.emitted.length) return d.emitted;
  const p = new Pointers(before.current);
  if (session !== undefined) p.sessions.set(session, before.current);
  for (const e of rest) p.apply(e, d.branches);
  if (p.current(session, settled(d.branches)) === d.current) return rest;
  return [...rest, { type: 'branch.switched', data: session === undefined ? { to: d.current } : { to: d.current, session } }];
}

/** In-flight merges count as merged when judging where sessions point. */
function settled(branches: Readonly<Record<string, BranchSnapshot>>): Record<string, BranchSnapshot> {
  const out: Record<string, BranchSnapshot> = {};
  for (const [n, s] of Object.entries(branches)) out[n] = s.matches('merging') ? transition(branchMachine, s, { type: 'DONE' })[0] : s;
  return out;
}

/**
 * Fold a log through the machines. Lenient on purpose: the log is the truth, and a union of
 * two clones' logs may hold moves that one clone alone would have refused; such a move leaves
 * the branch where it was. Commits do not change lifecycle state, so they are skipped.
 * `current` is where `session` (or, without one, the default pointer) stands afterwards,
 * moved by the rules of the engine's projection (see Pointers).
 */
export function replayBranch(events: readonly (GccEvent | NewEvent)[], opts: { session?: string } = {}): BranchWorld {
  const d = new Draft(initialBranchWorld());
  const p = new Pointers(MAIN);
  for (const e of events) {
    if (e.type === 'branch.created') {
      if (!d.branches[e.data.name]) {
        d.send(e.data.name, { type: 'CREATE', parent: e.data.parent, purpose: e.data.purpose, hypotheses: e.data.hypotheses });
      }
    } else if (e.type === 'branch.merged') {
      if (d.branches[e.data.branch] && !d.send(e.data.branch, { type: 'MERGE', into: e.data.into, commit: e.data.commit })) {
        d.send(e.data.branch, { type: 'DONE' });
      }
    } else if (e.type === 'branch.abandoned') {
      if (d.branches[e.data.branch]) d.send(e.data.branch, { type: 'ABANDON', reason: e.data.reason });
    } else if (e.type !== 'branch.switched') continue;
    p.apply(e, d.branches);
  }
  // Lifecycle states come from the machines; current/notCurrent from the pointer.
  const view = branchView(d.world());
  return worldFromView({ ...view, current: p.current(opts.session, d.branches) });
}
