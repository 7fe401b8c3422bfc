/**
 * decide: state + command → the events to append, or a typed error. Pure: randomness comes in
 * as a nonce, the session and what git says of the work tree as data. Every front end goes
 * through here (via Memory.execute), so all behave alike.
 *
 * Branch lifecycle moves are asked of the branch machine (machines/steps.ts): the decider
 * builds the candidate event, the machine accepts it (and emits it: that is what is appended)
 * or rejects it with a code. Session lifecycle signals go to the session machine, whose
 * emitted events are appended as they are.
 *
 * Shared events go to this clone's segment and travel through git; local ones (where a
 * session stands, session lifecycles) go to the local log and never do.
 */
import { type Config, DEFAULT_CONFIG, type FileChange, MAIN, type NewEvent, type Placed } from '../events/types.js';
import {
  branchKey,
  branchNameLike,
  CONFIG_MAX,
  configValueProblem,
  MAX_ITEMS,
  MAX_LINE,
  MAX_OBJECTIVES,
  MAX_PATH,
  MAX_TEXT,
  newBranchNameProblem,
  SHORT_LINE,
} from '../events/rules.js';
import { fieldSays, GccError, gccError } from '../errors.js';
import type { BranchRejected } from '../machines/branch-machine.js';
import type { SessionSignal } from '../machines/session.js';
import { branchStep, sessionStep } from '../machines/steps.js';
import type { Command } from './commands.js';
import { findObjective, normalizeLine, sameObjective } from './objectives.js';
import { flatText } from '../log/safe-text.js';
import { crypto } from '../runtime/lazy-deps.js';
import {
  type BranchInfo,
  currentBranch,
  drift,
  driftText,
  isOpen,
  landing,
  lastLabel,
  type MemoryState,
  PROMPT_KEPT,
} from './state.js';

export { currentBranch };

export interface DecideContext {
  session?: string | undefined;
  /** Random hex from the caller; makes ids unique without making decide impure. */
  nonce: string;
  /** Files the work tree changed since the branch's last commit, as git tells (engine/git-files.ts). */
  gitFiles?: readonly FileChange[];
}

export type Decision =
  | { ok: true; shared: Placed[]; local: Placed[]; message: string }
  | { ok: false; error: GccError };

const fail = (error: GccError): Decision => ({ ok: false, error });
const ok = (shared: Placed[], local: Placed[], message: string): Decision => ({ ok: true, shared, local, message });
const on = (branch: string, e: NewEvent): Placed => ({ ...e, branch }) as Placed;

/** The text of a field, or a throw saying what is wrong with it (decide turns it into the decision). */
function text(field: string, value: unknown, required = true, max = MAX_TEXT): string {
  if (typeof value !== 'string')
    throw gccError('E_INVALID_ARGUMENT', fieldSays.notA(field, 'text'), `pass the ${field} as a string`);
  if (required && value.trim() === '')
    throw gccError('E_INVALID_ARGUMENT', fieldSays.empty(field), `give the ${field}: words, not only spaces`);
  if (value.length > max)
    throw gccError('E_INVALID_ARGUMENT', fieldSays.longer(field, max), 'summarize it; keep large output in files');
  return value;
}

/** An optional field: undefined when absent or only spaces, else its text. */
const optional = (field: string, value: string | undefined, max = MAX_TEXT): string | undefined =>
  value !== undefined && value.trim() ? text(field, value, true, max) : undefined;

/**
 * Files are UTF-8, which cannot hold a lone surrogate; make every string of a command
 * well-formed up front so what is logged is exactly what every view can show.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return value.toWellFormed() as T;
  if (Array.isArray(value)) return value.map(wellFormed) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wellFormed(v)])) as T;
  return value;
}

function shortHash(...parts: string[]): string {
  const h = crypto().createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex').slice(0, 7);
}

export const labelOf = (n: number): string => `C${String(n).padStart(3, '0')}`;

export function titleOf(contribution: string, max = 72): string {
  const first = normalizeLine(contribution.trim().split('\n')[0]!);
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

function purposeOf(state: MemoryState, b: BranchInfo | undefined): string {
  if (b && b.name !== MAIN) return b.purpose;
  const open = state.objectives.filter((o) => !o.done).slice(0, 3);
  return open.length ? `Roadmap: ${open.map((o) => o.text).join('; ')}` : 'Main line of the project';
}

/** Previous Progress: a rolling summary of the branch's recent commits, bounded. */
function previousOf(b: BranchInfo | undefined): string {
  if (!b || b.commits === 0) return 'No earlier commits on this branch.';
  const older = b.commits - b.recent.length;
  const list = b.recent.map((c) => `${c.label} ${c.title}`).join('; ');
  const last = b.last ? titleOf(b.last.contribution, 200) : '';
  return (
    `${b.commits} earlier ` +
    `commit${b.commits === 1 ? '' : 's'}${older > 0 ? ` (${older} not listed)` : ''}: ${list}` +
    `.${last ? ` Last: ${last}` : ''}`
  );
}

/** What a branch tried, for the record of its merge or abandon: its purpose, hypotheses and commits. */
function triedOn(src: BranchInfo): string {
  const commits = src.recent.map((c) => `${c.label} ${c.title}`).join('; ');
  return [
    `Purpose: ${src.purpose}`,
    ...src.hypotheses.map((h) => `Hypothesis: ${h}`),
    `${src.commits} commit(s)${commits ? `: ${commits}` : ''}`,
  ].join('\n');
}

/** Files of several sources by path; the first source that counted a path's lines wins its counts. */
export function mergeFiles(...lists: readonly (readonly FileChange[])[]): FileChange[] {
  const map = new Map<string, FileChange>();
  for (const list of lists) {
    for (const f of list) {
      const prev = map.get(f.path);
      if (!prev || (prev.added === 0 && prev.removed === 0))
        map.set(f.path, { path: f.path, added: f.added, removed: f.removed });
    }
  }
  return [...map.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

function checkFiles(files: unknown): FileChange[] {
  if (files === undefined) return [];
  if (!Array.isArray(files) || files.length > MAX_ITEMS)
    throw gccError(
      'E_INVALID_ARGUMENT',
      'files must be a list of paths',
      'gctx commit "…" --files src/a.ts --files src/b.ts',
    );
  const out: FileChange[] = [];
  for (const f of files as unknown[]) {
    const rec = typeof f === 'string' ? { path: f, added: 0, removed: 0 } : (f as FileChange);
    // A path is one line: no control character (C0, DEL, C1) and no line separator.
    if (
      !rec ||
      typeof rec.path !== 'string' ||
      !rec.path.trim() ||
      rec.path.length > MAX_PATH ||
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(rec.path)
    ) {
      throw gccError(
        'E_INVALID_ARGUMENT',
        `not a file path: ${JSON.stringify(rec?.path ?? f).slice(0, 80)}`,
        'name files relative to the project, e.g. src/parser.ts',
      );
    }
    const n = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
    out.push({
      path: rec.path.trim().replaceAll('\\', '/').replace(/^\.\//, ''),
      added: n(rec.added),
      removed: n(rec.removed),
    });
  }
  return out;
}

/**
 * A name that is not free for a new branch, where `taken` is the branch holding it (the same
 * name, or one only case tells apart). The way on fits its state: an open branch is switched to;
 * a closed one cannot be (a switch is refused), so another name is suggested, one that is free.
 */
function branchExists(state: MemoryState, wanted: string, taken: string): GccError {
  const b = state.branches[taken];
  if (!b || b.life === 'active')
    return gccError(
      'E_BRANCH_EXISTS',
      `branch ${taken} already exists`,
      `switch to it with \`gctx switch ${taken}\`, or pick another name`,
    );
  const how =
    b.life === 'merged'
      ? `was merged into ${b.mergedInto ?? MAIN}`
      : b.life === 'abandoned'
        ? 'was abandoned'
        : 'is known from events of another clone';
  const read = b.life === 'unborn' ? '' : `; read what it did with \`gctx context --branch ${taken}\``;
  return gccError(
    'E_BRANCH_EXISTS',
    `branch ${taken} already exists and ${how}: a closed branch takes no more work`,
    `pick another name, e.g. \`gctx branch ${freeName(state, wanted)} --purpose "…"\`${read}`,
  );
}

/** `name-2`, `name-3`… (counting on from a number the name ends with): the first no branch holds. */
function freeName(state: MemoryState, name: string): string {
  const taken = new Set(Object.keys(state.branches).map(branchKey));
  const m = /^(.*?)-(\d{1,6})$/.exec(name);
  const stem = (m ? m[1]! : name).slice(0, 90);
  const first = m ? Number(m[2]) + 1 : 2;
  for (let n = first; n < first + 10_000; n++) {
    const candidate = `${stem}-${n}`;
    if (!taken.has(branchKey(candidate)) && !newBranchNameProblem(candidate)) return candidate;
  }
  return '<another-name>';
}

/** A name a new branch cannot take, with one it can: the nearest valid name, free. */
function badBranchName(state: MemoryState, name: string, problem: string): GccError {
  const like = branchNameLike(name) ?? 'try-sqlite';
  const valid = Object.keys(state.branches).some((n) => branchKey(n) === branchKey(like))
    ? freeName(state, like)
    : like;
  return gccError(
    'E_BRANCH_NAME',
    `invalid branch name ${JSON.stringify(name)}: ${problem}`,
    `pick a valid name, e.g. \`gctx branch ${valid} --purpose "…"\``,
  );
}

function rejection(r: BranchRejected, state: MemoryState): GccError {
  const b = r.branch;
  switch (r.code) {
    case 'E_BRANCH_CLOSED':
      return gccError(
        'E_BRANCH_CLOSED',
        `branch "${b}" is closed: it takes no more commits, merges or switches`,
        `read it with \`gctx context --branch ${b}\`; work on an open branch (\`gctx ` +
          `switch ${MAIN}\`) or start one (\`gctx branch <name> --purpose "…"\`)`,
      );
    case 'E_MERGE_SELF':
      return gccError(
        'E_MERGE_SELF',
        `cannot merge "${b}" into itself`,
        `name another target: \`gctx merge ${b} --into ${MAIN} --synthesis "…"\``,
      );
    case 'E_MERGE_MAIN':
      return gccError(
        'E_MERGE_MAIN',
        `${MAIN} is the trunk and cannot be merged into another branch`,
        'merge a branch into main instead: `gctx merge <branch> --synthesis "…"`',
      );
    case 'E_ABANDON_MAIN':
      return gccError(
        'E_ABANDON_MAIN',
        `${MAIN} cannot be abandoned`,
        'abandon a branch instead: `gctx abandon <branch> --reason "…"`',
      );
    case 'E_BRANCH_EXISTS':
      return branchExists(state, b, b);
    case 'E_BRANCH_NOT_FOUND':
      return notFound(b);
  }
}

/** The branch machine's verdict on an event: the accepted events, or a throw of its rejection. */
function through(state: MemoryState, name: string, e: Parameters<typeof branchStep>[2]): NewEvent[] {
  const b = state.branches[name];
  const step = branchStep(
    b?.life ?? 'unborn',
    { name, parent: name === MAIN ? null : (b?.parent ?? (e.type === 'branch.created' ? e.data.parent : MAIN)) },
    e,
  );
  if (step.rejected) throw rejection(step.rejected, state);
  return step.accepted;
}

const notFound = (name: string) =>
  gccError('E_BRANCH_NOT_FOUND', `no branch named ${JSON.stringify(name)}`, 'see the branches with `gctx status`');

function switchTo(to: string, session: string | undefined): Placed {
  return on(to, { type: 'branch.switched', data: session === undefined ? { to } : { to, session } });
}

/** Commands that record on the session's branch: they pin the session where it is, saying so. */
const PINS = new Set<Command['type']>(['commit', 'log', 'record-tool', 'merge', 'abandon']);

/**
 * A git checkout or a teammate's merge can leave the session's pointer naming a branch it is
 * not on; a pull that brings the branch back must not move the session there unasked. So the
 * first command that records where the session is pins it there, and its message says why.
 */
export function decide(state: MemoryState, input: Command, ctx: DecideContext): Decision {
  let d: Decision;
  try {
    d = decideCommand(state, input, ctx);
  } catch (err) {
    if (err instanceof GccError) return fail(err);
    throw err;
  }
  const moved = d.ok && PINS.has(input.type) ? drift(state, ctx.session) : null;
  if (!d.ok || !moved) return d;
  // A session that never chose a branch follows the clone's default: the default is pinned.
  const own = ctx.session === undefined || state.sessions[ctx.session]?.own === true;
  return ok(
    d.shared,
    [switchTo(moved.to, own ? ctx.session : undefined), ...d.local],
    `${d.message}\n${driftText(state, moved, true)}`,
  );
}

function decideCommand(state: MemoryState, input: Command, ctx: DecideContext): Decision {
  const cmd = wellFormed(input);
  const here = currentBranch(state, ctx.session);
  switch (cmd.type) {
    case 'commit': {
      const contribution = text('contribution', cmd.contribution);
      const title = optional('title', cmd.title, MAX_LINE) ?? titleOf(contribution);
      const next = optional('next', cmd.next);
      const explicit = checkFiles(cmd.files);
      const b = state.branches[here]!;
      const checks: Placed[] = [];
      for (const target of cmd.check ?? []) {
        const o = findObjective(state.objectives, target);
        if (!o.done) checks.push(on(MAIN, { type: 'objective.checked', data: { id: o.id, text: o.text } }));
      }
      const label = labelOf(lastLabel(b) + 1);
      const id = shortHash(here, label, title, contribution, ctx.nonce);
      const pending = Object.values(b.pending.files).map((f) => ({ path: f.path, added: f.added, removed: f.removed }));
      const files = mergeFiles(ctx.gitFiles ?? [], explicit, pending);
      const data = {
        id,
        label,
        title: normalizeLine(title),
        contribution,
        purpose: purposeOf(state, b),
        previous: previousOf(b),
        files,
        ...(next ? { next } : {}),
      };
      const accepted = through(state, here, { type: 'commit.recorded', data });
      return ok(
        [...accepted.map((e) => on(here, e)), ...checks],
        [],
        `Committed ${label} (${id}) on ${here}: ${data.title}`,
      );
    }
    case 'branch': {
      const problem = newBranchNameProblem(cmd.name) ?? (cmd.name === MAIN ? 'main is the trunk' : null);
      if (problem) throw badBranchName(state, cmd.name, problem);
      // Branch folders must not collide on case-insensitive file systems.
      const clash = Object.keys(state.branches).find((n) => branchKey(n) === branchKey(cmd.name));
      if (clash) throw branchExists(state, cmd.name, clash);
      const purpose = text('purpose', cmd.purpose);
      const hypotheses = (cmd.hypotheses ?? []).map((h) => normalizeLine(String(h))).filter((h) => h !== '');
      const accepted = through(state, cmd.name, {
        type: 'branch.created',
        data: { name: cmd.name, parent: here, purpose, hypotheses },
      });
      return ok(
        accepted.map((e) => on(cmd.name, e)),
        [switchTo(cmd.name, ctx.session)],
        `Created branch ${cmd.name} from ${here} and switched to it`,
      );
    }
    case 'switch': {
      const b = state.branches[cmd.name];
      if (!b || b.life === 'unborn') throw notFound(cmd.name);
      if (!isOpen(b))
        throw rejection(
          { type: 'gcc.rejected', code: 'E_BRANCH_CLOSED', branch: cmd.name, refused: 'commit.recorded' },
          state,
        );
      // Where the pointer names another branch (see decide), switching to where one is pins it.
      if (cmd.name === here && !drift(state, ctx.session)) return ok([], [], `Already on ${cmd.name}`);
      return ok([], [switchTo(cmd.name, ctx.session)], `Switched to ${cmd.name}`);
    }
    case 'merge': {
      const synthesis = text('synthesis', cmd.synthesis);
      // The merge's own next step: it supersedes the merged branch's, which is not carried over.
      const next = optional('next', cmd.next);
      const src = state.branches[cmd.branch];
      if (!src || src.life === 'unborn') throw notFound(cmd.branch);
      const into = cmd.into ?? (src.parent !== null && isOpen(state.branches[src.parent]) ? src.parent : MAIN);
      const target = state.branches[into];
      if (!target) throw notFound(into);
      const tried = triedOn(src);
      const files = mergeFiles(
        Object.entries(state.files)
          .filter(([, f]) => f.branch === cmd.branch)
          .map(([path]) => ({ path, added: 0, removed: 0 })),
        Object.values(src.pending.files),
      );
      const label = labelOf(lastLabel(target) + 1);
      const title = normalizeLine(`Merge ${cmd.branch}: ${titleOf(synthesis)}`).slice(0, 120);
      const id = shortHash(into, label, title, synthesis, ctx.nonce);
      const merge = {
        from: cmd.branch,
        tried,
        learned: cmd.learned?.trim() ? cmd.learned : synthesis,
        integrated: synthesis,
      };
      const closed = through(state, cmd.branch, {
        type: 'branch.merged',
        data: { branch: cmd.branch, into, commit: id },
      });
      const commit = through(state, into, {
        type: 'commit.recorded',
        data: {
          id,
          label,
          title,
          contribution: synthesis,
          purpose: purposeOf(state, target),
          previous: previousOf(target),
          files,
          merge,
          ...(next ? { next } : {}),
        },
      });
      // The synthesis commit leads the batch: readers of the log see the merge after its commit.
      // Whoever merges the branch it is on moves with it, by its own command.
      const local = here !== into ? [switchTo(into, ctx.session)] : [];
      return ok(
        [...commit.map((e) => on(into, e)), ...closed.map((e) => on(cmd.branch, e))],
        local,
        `Merged ${cmd.branch} into ${into} as ${label} (${id}); now on ${into}`,
      );
    }
    case 'abandon': {
      const reason = text('reason', cmd.reason);
      const src = state.branches[cmd.branch];
      if (!src || src.life === 'unborn') throw notFound(cmd.branch);
      const closed = through(state, cmd.branch, { type: 'branch.abandoned', data: { branch: cmd.branch, reason } });
      const to = landing(state, src.parent ?? MAIN);
      const target = state.branches[to]!;
      const tried = triedOn(src);
      const label = labelOf(lastLabel(target) + 1);
      const title = normalizeLine(`Abandon ${cmd.branch}: ${titleOf(reason)}`).slice(0, 120);
      const id = shortHash(to, label, title, reason, ctx.nonce);
      const record = {
        id,
        label,
        title,
        contribution: `Tried on ${cmd.branch} and dropped: ${reason}`,
        purpose: purposeOf(state, target),
        previous: previousOf(target),
        files: [],
        abandon: { from: cmd.branch, tried, reason },
      };
      const commit = through(state, to, { type: 'commit.recorded', data: record });
      // The session that abandons the branch it is on moves by this command, as a merge's does: no drift to tell it of
      // later.
      const local = here === cmd.branch ? [switchTo(to, ctx.session)] : [];
      return ok(
        [...commit.map((e) => on(to, e)), ...closed.map((e) => on(cmd.branch, e))],
        local,
        `Abandoned ${cmd.branch}, recorded on ${to} as ${label} (${id}); sessions on it are now on ${to}`,
      );
    }
    case 'roadmap': {
      if (cmd.action === 'add') {
        const line = normalizeLine(text('target', cmd.target, true, MAX_LINE));
        // Only control characters (or terminal codes, taken out by redaction) is no objective.
        if (line === '') text('target', '');
        const same = sameObjective(state.objectives, line);
        if (same !== -1)
          throw gccError(
            'E_OBJECTIVE_EXISTS',
            `the roadmap already has it open, as objective ${same + 1}: ${flatText(state.objectives[same]!.text)}`,
            `it is open; check it off when done: \`gctx roadmap check ${same + 1}\``,
          );
        if (state.objectives.length >= MAX_OBJECTIVES)
          throw gccError(
            'E_INVALID_ARGUMENT',
            `the roadmap holds at most ${MAX_OBJECTIVES} objectives`,
            'remove or check off some first: `gctx roadmap remove <number>`',
          );
        return ok(
          [on(MAIN, { type: 'objective.added', data: { id: `o-${ctx.nonce.slice(0, 8)}`, text: line } })],
          [],
          `Added objective ${state.objectives.length + 1}: ${line}`,
        );
      }
      if (cmd.action !== 'check' && cmd.action !== 'uncheck' && cmd.action !== 'remove') {
        throw gccError(
          'E_INVALID_ARGUMENT',
          `unknown roadmap action ${JSON.stringify(cmd.action)}`,
          'use add, check, uncheck or remove',
        );
      }
      const o = findObjective(state.objectives, cmd.target);
      const type =
        cmd.action === 'check'
          ? 'objective.checked'
          : cmd.action === 'uncheck'
            ? 'objective.unchecked'
            : 'objective.removed';
      const verb = cmd.action === 'check' ? 'done' : cmd.action === 'uncheck' ? 'reopened' : 'removed';
      // The text may be an old or pulled event's: the message shows it on one line.
      return ok([on(MAIN, { type, data: { id: o.id, text: o.text } })], [], `Objective ${verb}: ${flatText(o.text)}`);
    }
    case 'log': {
      for (const f of ['observation', 'thought', 'action'] as const) text(f, cmd[f], false);
      if (!cmd.observation.trim() && !cmd.thought.trim() && !cmd.action.trim()) {
        throw gccError(
          'E_INVALID_ARGUMENT',
          'an OTA entry needs an observation, a thought or an action',
          'gctx log --observation "…" --thought "…" --action "…"',
        );
      }
      return ok(
        [
          on(here, {
            type: 'ota.logged',
            data: { observation: cmd.observation, thought: cmd.thought, action: cmd.action },
          }),
        ],
        [],
        `Logged on ${here}`,
      );
    }
    case 'record-tool': {
      text('tool', cmd.tool);
      text('input', cmd.input, false);
      text('result', cmd.result, false);
      // A tool's name and its host are shown on one line: flattened here, as a title is.
      const tool = normalizeLine(cmd.tool);
      if (!tool)
        throw gccError(
          'E_INVALID_ARGUMENT',
          'tool has no name once control characters and line breaks are removed',
          'name the tool as the host does, e.g. Bash or Edit',
        );
      const files = checkFiles(cmd.files);
      const host = cmd.host ? oneLineField(cmd.host) : '';
      const data = {
        tool,
        input: cmd.input,
        result: cmd.result,
        isError: cmd.isError === true,
        files,
        ...(host ? { host } : {}),
      };
      return ok([on(here, { type: 'tool.recorded', data })], [], `Recorded ${tool} on ${here}`);
    }
    case 'record-prompt': {
      text('text', cmd.text, false, MAX_LINE);
      if (!cmd.text.trim()) return ok([], [], 'Nothing to record: the prompt is empty');
      // A checkpoint before a compaction hands the last prompt again: once is enough.
      if (state.lastPrompt?.text.trim() === cmd.text.slice(0, PROMPT_KEPT).trim())
        return ok([], [], 'Already recorded: the newest prompt');
      return ok(
        [],
        [
          on(here, {
            type: 'prompt.recorded',
            data: { session: oneLineField(ctx.session ?? 'default'), host: oneLineField(cmd.host), text: cmd.text },
          }),
        ],
        `Recorded the prompt on ${here}`,
      );
    }
    case 'config': {
      const c = coerceConfig(cmd.key, cmd.value);
      return ok([on(MAIN, { type: 'config.set', data: c })], [], `Set ${c.key} = ${String(c.value)}`);
    }
    case 'session': {
      const id = ctx.session ?? 'default';
      const s = state.sessions[id];
      // A host and a reason are shown on one line ("Session started (startup) in claude-code"), whatever the host sent.
      const signals = cmd.signals.map(
        (g): SessionSignal =>
          'reason' in g && typeof g.reason === 'string' ? { ...g, reason: oneLineField(g.reason, SHORT_LINE / 2) } : g,
      );
      const step = sessionStep(
        s ?? { life: 'idle', started: false, reason: '' },
        { host: oneLineField(cmd.host), session: id },
        signals,
      );
      return ok(
        [],
        step.emitted.map((e) => on(here, e)),
        step.emitted.length
          ? `Session ${id}: ${step.emitted.map((e) => e.type.slice(8)).join(', ')}`
          : `Session ${id}: nothing to record`,
      );
    }
    default:
      throw gccError(
        'E_INVALID_ARGUMENT',
        `unknown command ${JSON.stringify((cmd as { type?: unknown }).type)}`,
        'use commit, branch, switch, merge, abandon, roadmap, log, record-tool, record-prompt, config or session',
      );
  }
}

/**
 * A host's name or a session's reason: one line, within the SHORT_LINE characters a log holds of
 * it. A reason gets half: a session ended by a new start is logged as `restarted: <reason>`.
 */
function oneLineField(value: string, max = SHORT_LINE): string {
  return normalizeLine(String(value)).slice(0, max).toWellFormed();
}

function coerceConfig(
  key: string,
  value: string | number | boolean,
): { key: keyof Config; value: Config[keyof Config] } {
  if (typeof key !== 'string' || !Object.hasOwn(DEFAULT_CONFIG, key)) {
    throw gccError(
      'E_CONFIG_KEY',
      `unknown config key ${JSON.stringify(key)}`,
      `use one of: ${Object.keys(DEFAULT_CONFIG).join(', ')}`,
    );
  }
  const k = key as keyof Config;
  if (typeof DEFAULT_CONFIG[k] === 'boolean') {
    const s = String(value).toLowerCase();
    if (['true', 'on', 'yes', '1'].includes(s)) return { key: k, value: true };
    if (['false', 'off', 'no', '0'].includes(s)) return { key: k, value: false };
    throw gccError('E_INVALID_ARGUMENT', `${key} takes true or false`, `gctx config set ${key} true`);
  }
  const n = Number(value);
  if (configValueProblem(k, n))
    throw gccError(
      'E_INVALID_ARGUMENT',
      `${key} takes a whole number from 1 to ${CONFIG_MAX}`,
      `gctx config set ${key} 10`,
    );
  return { key: k, value: n };
}
