/**
 * Decisions on the branch lifecycle — COMMIT, BRANCH, SWITCH, MERGE, ABANDON. This side
 * checks the call (names, text) and computes what only the memory knows (labels, purpose,
 * rolling progress, files touched); the branch lifecycle machine then decides whether the
 * move is legal and emits the events that are appended.
 */
import { createHash } from 'node:crypto';
import { type FileChange, MAIN, type NewEvent } from '../events/types.js';
import { GccError, gccError } from '../errors.js';
import { type BranchOp, type BranchView, decideBranchOp } from '../machines/branch.js';
import { type BranchInfo, fileEntries, type MemoryState } from '../projections/state.js';
import { branchNameProblem } from '../store/paths.js';
import { type BranchCommand, currentBranch, type DecideContext, type Decision, fail, ok, text, wellFormed } from './decision.js';
import { findObjective, normalizeLine } from './objectives.js';


function shortHash(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex').slice(0, 7);
}

const label = (n: number) => `C${String(n).padStart(3, '0')}`;

function titleOf(contribution: string): string {
  const first = contribution.trim().split('\n')[0]!.trim();
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}

function purposeOf(state: MemoryState, b: BranchInfo | undefined): string {
  if (b && b.name !== MAIN) return b.purpose;
  const open = state.objectives.filter((o) => !o.done).slice(0, 3);
  return open.length ? `Roadmap: ${open.map((o) => o.text).join('; ')}` : 'Main line of the project';
}

/** Previous Progress: a rolling summary across the branch's recent commits, bounded. */
function previousOf(b: BranchInfo | undefined): string {
  if (!b || b.commits === 0) return 'No earlier commits on this branch.';
  const older = b.commits - b.recent.length;
  const list = b.recent.map((c) => `${c.label} ${c.title}`).join('; ');
  const last = b.lastContribution.length > 300 ? `${b.lastContribution.slice(0, 299)}…` : b.lastContribution;
  return `${b.commits} earlier commit${b.commits === 1 ? '' : 's'}${older > 0 ? ` (${older} not listed)` : ''}: ${list}. Last: ${last}`;
}

function mergeFiles(...lists: FileChange[][]): FileChange[] {
  const map = new Map<string, FileChange>();
  for (const list of lists) {
    for (const f of list) {
      const prev = map.get(f.path);
      map.set(f.path, { path: f.path, added: (prev?.added ?? 0) + f.added, removed: (prev?.removed ?? 0) + f.removed });
    }
  }
  return [...map.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The machine needs only the branches an operation touches, and their parents. */
function viewOf(state: MemoryState, here: string, names: string[]): BranchView {
  const branches: BranchView['branches'] = {};
  const add = (name: string | null, withParent: boolean) => {
    const b = name === null ? undefined : state.branches[name];
    if (!b || branches[b.name]) return;
    branches[b.name] = { status: b.status, parent: b.parent };
    if (withParent) add(b.parent, false);
  };
  for (const n of [MAIN, here, ...names]) add(n, true);
  return { current: here, branches };
}

function throughMachine(state: MemoryState, here: string, names: string[], op: BranchOp): NewEvent[] | GccError {
  const d = decideBranchOp(viewOf(state, here, names), op);
  return d.ok ? d.emitted : d.error;
}

export function decideBranchCommand(state: MemoryState, input: BranchCommand, ctx: DecideContext): Decision {
  const cmd = wellFormed(input);
  const here = currentBranch(state, ctx.session);
  const session = ctx.session !== undefined ? { session: ctx.session } : {};
  switch (cmd.type) {
    case 'commit': {
      const contribution = text('contribution', cmd.contribution);
      if (typeof contribution !== 'string') return fail(contribution);
      const title = cmd.title !== undefined ? text('title', cmd.title) : titleOf(contribution);
      if (typeof title !== 'string') return fail(title);
      const b = state.branches[here]!;
      const checks: NewEvent[] = [];
      for (const target of cmd.check ?? []) {
        const o = findObjective(state.objectives, target);
        if (o instanceof GccError) return fail(o);
        if (!o.done) checks.push({ type: 'objective.checked', data: { id: o.id } });
      }
      const lbl = label(b.commits + 1);
      const id = shortHash(here, lbl, title, contribution, ctx.nonce);
      const files = mergeFiles(Object.values(b.pending.files), cmd.files ?? []);
      const commit = { id, label: lbl, title: normalizeLine(title), contribution, purpose: purposeOf(state, b), previous: previousOf(b), files };
      const emitted = throughMachine(state, here, [], { type: 'commit', commit });
      if (emitted instanceof GccError) return fail(emitted);
      return ok(here, [...emitted, ...checks], `Committed ${lbl} (${id}) on ${here}: ${commit.title}`);
    }
    case 'branch': {
      const problem = typeof cmd.name === 'string' ? branchNameProblem(cmd.name) : 'it must be text';
      if (problem || cmd.name === MAIN) {
        return fail(gccError('E_BRANCH_NAME', `invalid branch name ${JSON.stringify(cmd.name)}: ${problem ?? 'main is the main line'}`, 'pick a name like `try-sqlite` or `feat/parser`'));
      }
      // Case-insensitive: branch folders must not collide on macOS and Windows.
      const clash = Object.keys(state.branches).find((n) => n.toLowerCase() === cmd.name.toLowerCase());
      if (clash) return fail(gccError('E_BRANCH_EXISTS', `branch ${clash} already exists`, `switch to it with \`gctx switch ${clash}\`, or pick another name`));
      const purpose = text('purpose', cmd.purpose);
      if (typeof purpose !== 'string') return fail(purpose);
      const hypotheses = (cmd.hypotheses ?? []).map((h) => normalizeLine(h)).filter((h) => h !== '');
      const emitted = throughMachine(state, here, [], { type: 'create', name: cmd.name, purpose, hypotheses, ...session });
      if (emitted instanceof GccError) return fail(emitted);
      return ok(here, emitted, `Created branch ${cmd.name} from ${here} and switched to it`);
    }
    case 'switch': {
      const emitted = throughMachine(state, here, [cmd.name], { type: 'switch', to: cmd.name, ...session });
      if (emitted instanceof GccError) return fail(emitted);
      return ok(MAIN, emitted, emitted.length ? `Switched to ${cmd.name}` : `Already on ${cmd.name}`);
    }
    case 'merge': {
      const synthesis = text('synthesis', cmd.synthesis);
      if (typeof synthesis !== 'string') return fail(synthesis);
      const src = state.branches[cmd.branch];
      const parent = src?.parent ?? null;
      const into = cmd.into ?? (parent !== null && state.branches[parent]?.status === 'active' ? parent : MAIN);
      const target = state.branches[into];
      const tried = src
        ? [`Purpose: ${src.purpose}`, ...src.hypotheses.map((h) => `Hypothesis: ${h}`), `${src.commits} commit(s)${src.recent.length ? `: ${src.recent.map((c) => `${c.label} ${c.title}`).join('; ')}` : ''}`].join('\n')
        : '';
      const files = mergeFiles(
        fileEntries(state)
          .filter(([, f]) => f.branch === cmd.branch)
          .map(([path]) => ({ path, added: 0, removed: 0 })),
        src ? Object.values(src.pending.files) : [],
      );
      const lbl = label((target?.commits ?? 0) + 1);
      const title = normalizeLine(`Merge ${cmd.branch}: ${titleOf(synthesis)}`).slice(0, 120);
      const id = shortHash(into, lbl, title, synthesis, ctx.nonce);
      const merge = { from: cmd.branch, tried, learned: cmd.learned?.trim() ? cmd.learned : synthesis, integrated: synthesis };
      const commit = { id, label: lbl, title, contribution: synthesis, purpose: purposeOf(state, target), previous: previousOf(target), files, merge };
      const emitted = throughMachine(state, here, [cmd.branch, into], { type: 'merge', branch: cmd.branch, into, commit, ...session });
      if (emitted instanceof GccError) return fail(emitted);
      return ok(into, emitted, `Merged ${cmd.branch} into ${into} as ${lbl} (${id}); now on ${into}`);
    }
    case 'abandon': {
      const reason = text('reason', cmd.reason);
      if (typeof reason !== 'string') return fail(reason);
      const emitted = throughMachine(state, here, [cmd.branch], { type: 'abandon', branch: cmd.branch, reason, ...session });
      if (emitted instanceof GccError) return fail(emitted);
      const b = state.branches[cmd.branch]!;
      return ok(cmd.branch, emitted, `Abandoned ${cmd.branch}; sessions on it moved to ${b.parent ?? MAIN}`);
    }
  }
}
