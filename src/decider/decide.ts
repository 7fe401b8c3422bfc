/**
 * decide: state + command → the events to append (and which log takes them), or a typed
 * error. Pure: randomness comes in as `nonce`, the session as data. Every front end — the
 * library, the CLI, MCP, Pi's tools — goes through here, so they all behave alike.
 */
import { createHash } from 'node:crypto';
import { type Config, DEFAULT_CONFIG, type FileChange, MAIN, type NewEvent } from '../events/types.js';
import { GccError, gccError } from '../errors.js';
import type { BranchInfo, MemoryState } from '../projections/state.js';
import { branchNameProblem } from '../store/paths.js';
import type { Command } from './commands.js';
import { findObjective, normalizeLine } from './objectives.js';

export interface DecideContext {
  session?: string | undefined;
  /** Random hex from the caller; makes ids unique without making decide impure. */
  nonce: string;
}

export type Decision = { ok: true; log: string; events: NewEvent[]; message: string } | { ok: false; error: GccError };

export const MAX_TEXT = 1_048_576;

export function currentBranch(state: MemoryState, session?: string): string {
  const b = (session !== undefined && state.sessions[session]) || state.defaultBranch;
  return state.branches[b]?.status === 'active' ? b : MAIN;
}

const ok = (log: string, events: NewEvent[], message: string): Decision => ({ ok: true, log, events, message });
const fail = (error: GccError): Decision => ({ ok: false, error });

function text(field: string, value: unknown, required = true): string | GccError {
  if (typeof value !== 'string') return gccError('E_INVALID_ARGUMENT', `${field} must be text`, `pass ${field} as a string`);
  if (required && value.trim() === '') return gccError('E_INVALID_ARGUMENT', `${field} cannot be empty`, `give a ${field}`);
  if (value.length > MAX_TEXT) return gccError('E_INVALID_ARGUMENT', `${field} is longer than ${MAX_TEXT} characters`, 'summarize it; keep large output in files');
  return value;
}

function activeBranch(state: MemoryState, name: string, role: string): BranchInfo | GccError {
  const b = state.branches[name];
  if (!b) return gccError('E_BRANCH_NOT_FOUND', `no branch named ${JSON.stringify(name)}`, 'list branches with `gctx status`');
  if (b.status !== 'active') {
    return gccError('E_BRANCH_CLOSED', `${role} ${name} is ${b.status}`, `read it with \`gctx context --branch ${name}\`; work continues on an active branch`);
  }
  return b;
}

function shortHash(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex').slice(0, 7);
}

function label(n: number): string {
  return `C${String(n).padStart(3, '0')}`;
}

function titleOf(contribution: string): string {
  const first = contribution.trim().split('\n')[0]!.trim();
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}

function purposeOf(state: MemoryState, b: BranchInfo): string {
  if (b.name !== MAIN) return b.purpose;
  const open = state.objectives.filter((o) => !o.done).slice(0, 3);
  return open.length ? `Roadmap: ${open.map((o) => o.text).join('; ')}` : 'Main line of the project';
}

/** Previous Progress: a rolling summary across the branch's recent commits, bounded. */
function previousOf(b: BranchInfo): string {
  if (b.commits === 0) return 'No earlier commits on this branch.';
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

function coerceConfig(key: string, value: string | number | boolean): { key: keyof Config; value: Config[keyof Config] } | GccError {
  if (!(key in DEFAULT_CONFIG)) {
    return gccError('E_CONFIG_KEY', `unknown config key ${JSON.stringify(key)}`, `use one of: ${Object.keys(DEFAULT_CONFIG).join(', ')}`);
  }
  const k = key as keyof Config;
  if (typeof DEFAULT_CONFIG[k] === 'boolean') {
    const s = String(value).toLowerCase();
    if (['true', 'on', 'yes', '1'].includes(s)) return { key: k, value: true };
    if (['false', 'off', 'no', '0'].includes(s)) return { key: k, value: false };
    return gccError('E_INVALID_ARGUMENT', `${key} takes true or false`, `gctx config set ${key} true`);
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) return gccError('E_INVALID_ARGUMENT', `${key} takes a whole number from 1 to 10000`, `gctx config set ${key} 10`);
  return { key: k, value: n };
}

/**
 * Files are UTF-8, which cannot hold a lone surrogate; make every string of a command
 * well-formed up front so what is logged is exactly what every projection can show.
 */
function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return value.toWellFormed() as T;
  if (Array.isArray(value)) return value.map(wellFormed) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wellFormed(v)])) as T;
  return value;
}

export function decide(state: MemoryState, input: Command, ctx: DecideContext): Decision {
  const cmd = wellFormed(input);
  const here = currentBranch(state, ctx.session);
  const session = ctx.session !== undefined ? { session: ctx.session } : {};
  switch (cmd.type) {
    case 'commit': {
      const contribution = text('contribution', cmd.contribution);
      if (typeof contribution !== 'string') return fail(contribution);
      const title = cmd.title !== undefined ? text('title', cmd.title) : titleOf(contribution);
      if (typeof title !== 'string') return fail(title);
      const b = activeBranch(state, here, 'branch');
      if (b instanceof GccError) return fail(b);
      const events: NewEvent[] = [];
      for (const target of cmd.check ?? []) {
        const o = findObjective(state.objectives, target);
        if (o instanceof GccError) return fail(o);
        if (!o.done) events.push({ type: 'objective.checked', data: { id: o.id } });
      }
      const lbl = label(b.commits + 1);
      const id = shortHash(here, lbl, title, contribution, ctx.nonce);
      const files = mergeFiles(Object.values(b.pending.files), cmd.files ?? []);
      const data = { id, label: lbl, title: normalizeLine(title), contribution, purpose: purposeOf(state, b), previous: previousOf(b), files };
      events.unshift({ type: 'commit.recorded', data });
      return ok(here, events, `Committed ${lbl} (${id}) on ${here}: ${data.title}`);
    }
    case 'branch': {
      const problem = typeof cmd.name === 'string' ? branchNameProblem(cmd.name) : 'it must be text';
      if (problem || cmd.name === MAIN) {
        return fail(gccError('E_BRANCH_NAME', `invalid branch name ${JSON.stringify(cmd.name)}: ${problem ?? 'main is the main line'}`, 'pick a name like `try-sqlite` or `feat/parser`'));
      }
      const clash = Object.keys(state.branches).find((n) => n.toLowerCase() === cmd.name.toLowerCase());
      if (clash) return fail(gccError('E_BRANCH_EXISTS', `branch ${clash} already exists`, `switch to it with \`gctx switch ${clash}\`, or pick another name`));
      const purpose = text('purpose', cmd.purpose);
      if (typeof purpose !== 'string') return fail(purpose);
      const from = activeBranch(state, here, 'current branch');
      if (from instanceof GccError) return fail(from);
      const hypotheses = (cmd.hypotheses ?? []).map((h) => normalizeLine(h)).filter((h) => h !== '');
      return ok(here, [{ type: 'branch.created', data: { name: cmd.name, parent: here, purpose, hypotheses, ...session } }], `Created branch ${cmd.name} from ${here} and switched to it`);
    }
    case 'switch': {
      const b = activeBranch(state, cmd.name, 'branch');
      if (b instanceof GccError) return fail(b);
      return ok(MAIN, [{ type: 'branch.switched', data: { to: cmd.name, ...session } }], `Switched to ${cmd.name}`);
    }
    case 'merge': {
      if (cmd.branch === MAIN) return fail(gccError('E_MERGE_MAIN', 'main is the main line and cannot be merged into another branch', 'merge a branch into main: `gctx merge <branch> --synthesis "…"`'));
      const src = activeBranch(state, cmd.branch, 'branch');
      if (src instanceof GccError) return fail(src);
      const into = cmd.into ?? (src.parent && state.branches[src.parent]?.status === 'active' ? src.parent : MAIN);
      if (into === cmd.branch) return fail(gccError('E_MERGE_SELF', `cannot merge ${into} into itself`, `gctx merge ${cmd.branch} --into main --synthesis "…"`));
      const target = activeBranch(state, into, 'target branch');
      if (target instanceof GccError) return fail(target);
      const synthesis = text('synthesis', cmd.synthesis);
      if (typeof synthesis !== 'string') return fail(synthesis);
      const tried = [`Purpose: ${src.purpose}`, ...src.hypotheses.map((h) => `Hypothesis: ${h}`), `${src.commits} commit(s)${src.recent.length ? `: ${src.recent.map((c) => `${c.label} ${c.title}`).join('; ')}` : ''}`].join('\n');
      const files = mergeFiles(
        Object.entries(state.files)
          .filter(([, f]) => f.branch === src.name)
          .map(([path]) => ({ path, added: 0, removed: 0 })),
        Object.values(src.pending.files),
      );
      const lbl = label(target.commits + 1);
      const title = normalizeLine(`Merge ${src.name}: ${titleOf(synthesis)}`).slice(0, 120);
      const id = shortHash(into, lbl, title, synthesis, ctx.nonce);
      const merge = { from: src.name, tried, learned: cmd.learned?.trim() ? cmd.learned : synthesis, integrated: synthesis };
      const commit: NewEvent = { type: 'commit.recorded', data: { id, label: lbl, title, contribution: synthesis, purpose: purposeOf(state, target), previous: previousOf(target), files, merge } };
      return ok(into, [commit, { type: 'branch.merged', data: { branch: src.name, into, commit: id, ...session } }], `Merged ${src.name} into ${into} as ${lbl} (${id}); now on ${into}`);
    }
    case 'abandon': {
      if (cmd.branch === MAIN) return fail(gccError('E_ABANDON_MAIN', 'main cannot be abandoned', 'abandon an experiment branch instead: `gctx abandon <branch> --reason "…"`'));
      const b = activeBranch(state, cmd.branch, 'branch');
      if (b instanceof GccError) return fail(b);
      const reason = text('reason', cmd.reason);
      if (typeof reason !== 'string') return fail(reason);
      return ok(b.name, [{ type: 'branch.abandoned', data: { branch: b.name, reason, ...session } }], `Abandoned ${b.name}; sessions on it moved to ${b.parent ?? MAIN}`);
    }
    case 'roadmap': {
      if (cmd.action === 'add') {
        const t = text('objective', cmd.target);
        if (typeof t !== 'string') return fail(t);
        const line = normalizeLine(t);
        return ok(MAIN, [{ type: 'objective.added', data: { id: `o-${ctx.nonce.slice(0, 8)}`, text: line } }], `Added objective ${state.objectives.length + 1}: ${line}`);
      }
      const o = findObjective(state.objectives, cmd.target);
      if (o instanceof GccError) return fail(o);
      const type = cmd.action === 'check' ? 'objective.checked' : cmd.action === 'uncheck' ? 'objective.unchecked' : 'objective.removed';
      return ok(MAIN, [{ type, data: { id: o.id } }], `Objective ${cmd.action === 'remove' ? 'removed' : `${cmd.action}ed`}: ${o.text}`);
    }
    case 'log': {
      for (const f of ['observation', 'thought', 'action'] as const) {
        const t = text(f, cmd[f], false);
        if (typeof t !== 'string') return fail(t);
      }
      if (!cmd.observation.trim() && !cmd.thought.trim() && !cmd.action.trim()) {
        return fail(gccError('E_INVALID_ARGUMENT', 'an OTA entry needs an observation, a thought or an action', 'gctx log --observation "…" --thought "…" --action "…"'));
      }
      const data = { observation: cmd.observation, thought: cmd.thought, action: cmd.action };
      return ok(here, [{ type: 'ota.logged', data }], `Logged on ${here}`);
    }
    case 'record-tool': {
      const data = { tool: cmd.tool, input: cmd.input, result: cmd.result, isError: cmd.isError, files: cmd.files, ...(cmd.host ? { host: cmd.host } : {}) };
      return ok(here, [{ type: 'tool.recorded', data }], `Recorded ${cmd.tool} on ${here}`);
    }
    case 'config': {
      const c = coerceConfig(cmd.key, cmd.value);
      if (c instanceof GccError) return fail(c);
      return ok(MAIN, [{ type: 'config.set', data: c }], `Set ${c.key} = ${String(c.value)}`);
    }
    case 'session': {
      const id = ctx.session ?? 'default';
      const type = `session.${cmd.kind}` as const;
      const data = type === 'session.compacted' ? { session: id, host: cmd.host } : { session: id, host: cmd.host, reason: cmd.reason ?? cmd.kind };
      return ok(here, [{ type, data } as NewEvent], `Session ${id} ${cmd.kind}`);
    }
  }
  const unknown: { type?: unknown } = cmd;
  return fail(gccError('E_INVALID_ARGUMENT', `unknown command ${JSON.stringify(unknown.type)}`, 'use commit, branch, switch, merge, abandon, roadmap, log, record-tool, config or session'));
}
