/**
 * Memory as one line per thing, for the reader: what happened, when, on which files — with no
 * internal ids, no event-type names, each input once, results clipped to what is worth their
 * tokens (docs/benchmarks.md, the resume benchmark).
 */
import {
  type BranchInfo,
  type CommitRef,
  CONTRIBUTION_KEPT,
  type Failed,
  GIST_KEPT,
  type LastCommit,
  LEARNED_KEPT,
  REASON_KEPT,
  type MemoryState,
  type PendingFailure,
} from '../decider/state.js';
import { guardRefusal } from '../events/guard.js';
import { type FileChange, type GccEvent, MAIN } from '../events/types.js';
import { filesFitted, summaryLine } from '../log/prose.js';
import { clip } from './budget.js';

/** ` (from feat)` after a branch's name, when it is not main. */
export const fromParent = (name: string, b: BranchInfo): string => (name === MAIN ? '' : ` (from ${b.parent ?? MAIN})`);

/** What a branch is for, clipped, as the briefing and status say it first. */
export const purposeOf = (b: BranchInfo): string => clip(b.purpose || 'no purpose recorded', 200);

/** `1 event`, `2 events`: a count with its noun. */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** gctx's own guard's refusals, in a few words rather than their reason's ninety tokens. */
const REFUSED = {
  git: 'it would overwrite memory not yet committed to git',
  write: '.GCC/ is written through the memory tools',
};

const time = (at: string): string => `${at.slice(5, 10)} ${at.slice(11, 16)}`;

/** One log entry as the log view shows it. */
export function entryLine(e: GccEvent): string {
  switch (e.type) {
    case 'tool.recorded': {
      const call = clip(e.data.input ? `${e.data.tool} ${e.data.input}` : e.data.tool, 200);
      // gctx's own guard refused it: said in a few words, not its reason's ninety tokens.
      const refused = e.data.isError ? guardRefusal(e.data.result) : null;
      if (refused) return `${time(e.at)} ${call} → blocked by gctx: ${REFUSED[refused]}`;
      const result = e.data.result.trim() ? clip(e.data.result, e.data.isError ? 300 : 160) : '';
      const files = e.data.files.length ? ` [${filesFitted(e.data.files, 160)}]` : '';
      const outcome = e.data.isError ? ` → failed: ${result || '(no output)'}` : result ? ` → ${result}` : '';
      return `${time(e.at)} ${call}${outcome}${files}`;
    }
    case 'ota.logged': {
      // Each part named, in a word: which is the observation and which the action matters more
      // than the tokens the names cost. A part left empty is left out.
      const parts: [string, string][] = [
        ['Observation', e.data.observation],
        ['Thought', e.data.thought],
        ['Action', e.data.action],
      ];
      return `${time(e.at)} ${clip(
        parts
          .filter(([, x]) => x.trim())
          .map(([name, x]) => `${name}: ${x}`)
          .join(' | '),
        430,
      )}`;
    }
    case 'prompt.recorded':
      return `${time(e.at)} The user asked: ${clip(e.data.text, 160)}`;
    default:
      return `${time(e.at)} ${summaryLine(e)}`;
  }
}

/** Plain failed approaches (not disputed), newest first. */
const plainFailed = (state: MemoryState): Failed[] => [...state.failed].reverse().filter((f) => !f.merged);

/**
 * Approaches tried and dropped, newest first, with why. A branch both merged and abandoned
 * (two clones disagreed) is not a plain failure: disputedLines says it.
 */
export function failedLines(
  state: MemoryState,
  max: number,
  where = 'in the full roadmap (context full)',
  whole = (branch: string) => `context branch ${branch}`,
): string[] {
  const plain = plainFailed(state);
  const lines = plain.slice(0, max).map((f) => {
    const why = clipTo(f.reason, 240, whole(f.branch), REASON_KEPT);
    return `  - ${f.branch} (${f.at.slice(0, 10)}): ${clip(f.purpose, 120)} — dropped: ${why}`;
  });
  const more = state.failedCount - lines.length - (state.failed.length - plain.length);
  if (lines.length && more > 0) lines.push(`  … ${more} earlier, newest first, ${where}`);
  return lines;
}

/**
 * The user's standing instructions (state.constraints), newest first, in their words: at most
 * `max`, each clipped; the header says what lifts them.
 */
export function constraintLines(state: MemoryState, max: number): string[] {
  if (!state.constraints.length) return [];
  const shown = [...state.constraints].reverse().slice(0, max);
  return [
    "The user's standing instructions (their words, newest first; they hold until the user or a commit lifts them):",
    ...shown.map((c) => `  - "${clip(c.text, 240)}" (${time(c.at)})`),
  ];
}

/** The user's newest prompt, clipped to `max`: what they last asked for. */
export function lastPromptLine(state: MemoryState, max: number): string | null {
  const p = state.lastPrompt;
  return p
    ? `The user's last request (${time(p.at)}${p.branch ? `, on ${p.branch}` : ''}): "${clip(p.text, max)}"`
    : null;
}

/**
 * Approaches ruled out inside commits and merges (state.failedApproaches), newest first, one line
 * each with why and the branch it was tried on: at most `max`, then how many more and `where`.
 */
export function ruledOutLines(state: MemoryState, max: number, where: (branch: string) => string): string[] {
  const all = [...state.failedApproaches].reverse();
  const lines = all.slice(0, max).map((f) => `  - ${clip(f.what, 120)} (on ${f.branch}) — ${clip(f.why, 160)}`);
  const more = state.failedApproachCount - lines.length;
  const oldest = all[Math.min(max, all.length) - 1]?.branch;
  if (lines.length && more > 0) lines.push(`  … ${more} more ruled out in earlier commits (${where(oldest!)})`);
  return lines;
}

/**
 * The newest commit when it is the record of an abandon: said in a few words when failedLines(state,
 * `max`) lists the branch with its reason, else in its own words, clipped to `room` and ending with
 * `pointer` when cut.
 */
export function dropText(state: MemoryState, drop: CommitRef, max: number, room: number, pointer: string): string {
  if (
    plainFailed(state)
      .slice(0, max)
      .some((f) => f.branch === drop.abandon)
  )
    return `abandoned ${drop.abandon} (why: under Failed approaches)`;
  if (state.failed.some((f) => f.branch === drop.abandon && f.merged))
    return `abandoned ${drop.abandon}, which another clone merged (below)`;
  return clipTo(drop.gist ?? drop.title, room, pointer, GIST_KEPT);
}

/** A branch merged on one clone and abandoned on another, in one line: neither a plain failure nor plain progress. */
function disputedLine(f: Failed): string {
  const title = f.merged ? f.merged.title.replace(/^Merge [^:]*: /, '') : '';
  const into = `${f.merged?.into ?? 'main'}${title ? ` (${clip(title, 120)})` : ''}`;
  return `${f.branch}: merged into ${into} but abandoned elsewhere: ${clip(f.reason, 240)}`;
}

/** Branches both merged and abandoned, newest first: at most `max`; `whole`, where a clipped one is whole. */
export function disputedLines(
  state: MemoryState,
  max: number,
  whole = (branch: string) => `context branch ${branch}`,
): string[] {
  return [...state.failed]
    .reverse()
    .filter((f) => f.merged)
    .slice(0, max)
    .map((f) => {
      const line = disputedLine(f);
      const cut = line.endsWith('…') || f.reason.length >= REASON_KEPT;
      return `  - ${line}${cut ? ` (whole: ${whole(f.branch)})` : ''}`;
    });
}

/**
 * Work since the branch's last commit: the files, newest first, at most `max` of them and inside
 * `room` characters; `where` says where the rest are (the log).
 */
export function pendingLine(b: BranchInfo, max: number, where: string, room = Infinity): string | null {
  const p = b.pending;
  if (!p.turns) return null;
  const files = Object.values(p.files).sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0));
  const head = `Since the last commit: ${count(p.turns, 'step')}, ${count(p.edits, 'edit')}`;
  if (!files.length) return `${head}.`;
  const lead = `${head} in ${count(files.length, 'file')}, newest first: `;
  return `${lead}${filesFitted(files.slice(0, max), room - lead.length - 1, files.length, where)}.`;
}

/** The work tree's changes git sees since the branch's last commit, when no hook logged the work. */
export function uncommittedLine(
  files: readonly FileChange[] | null | undefined,
  max: number,
  room = Infinity,
): string | null {
  if (!files?.length) return null;
  const lead = 'Changed in the work tree since the last memory commit (git): ';
  return `${lead}${filesFitted(files.slice(0, max), room - lead.length - 1, files.length, '(git status)')}.`;
}

/**
 * The calls failing since the branch's last commit, newest first, each with what it said: at
 * most `max` of them (the newest in full, the others shorter), then how many more and `where`
 * they are (the log, which shows every failed call).
 */
export function failureLines(b: BranchInfo, max: number, where: string): string[] {
  const all = [...b.pending.failures].reverse();
  if (!all.length) return [];
  const item = (f: PendingFailure, i: number) => {
    const call = clip(f.input ? `${f.tool} ${f.input}` : f.tool, i ? 120 : 160);
    return `${call} → ${clip(f.result.trim() || '(no output)', i ? 200 : 360)}`;
  };
  const more = all.length - Math.min(all.length, max) + b.pending.failuresDropped;
  if (all.length === 1 && !more) return [`Failing since the last commit (${time(all[0]!.at)}): ${item(all[0]!, 0)}`];
  const lines = [
    'Failing since the last commit, newest first:',
    ...all.slice(0, max).map((f, i) => `  - ${time(f.at)} ${item(f, i)}`),
  ];
  if (more > 0) lines.push(`  … ${count(more, 'more failing call')} ${where}`);
  return lines;
}

/**
 * Text clipped to `max`, ending with `pointer` (where it is whole) when anything was cut, here
 * or by the state, which keeps the first `kept` characters.
 */
export function clipTo(text: string, max: number, pointer: string, kept = Infinity): string {
  const out = clip(text, max);
  return isCut(text, out) || text.length >= kept ? `${out} (whole: ${pointer})` : out;
}

const isCut = (text: string, clipped: string): boolean => clipped !== clip(text, Number.MAX_SAFE_INTEGER);

/**
 * The record an abandon left on the branch, when it is the branch's newest commit: the newest
 * milestone, though not progress (the last progress is `b.last`).
 */
export function newestDrop(b: BranchInfo): CommitRef | null {
  const n = b.recent.at(-1);
  return n?.abandon && n.id !== b.last?.id ? n : null;
}

/**
 * What a milestone did, in `max` characters: its contribution; for a merge, which branch and
 * what was learned there too. Cut, it ends with `pointer`, the call that shows it whole.
 */
export function milestoneText(last: LastCommit, max: number, pointer: string): string {
  const m = last.merged;
  if (!m) return clipTo(last.contribution, max, pointer, CONTRIBUTION_KEPT);
  const learned = m.learned.trim() ? clip(m.learned, Math.floor(max / 3)) : '';
  const synthesis = clip(last.contribution, Math.max(60, max - (learned ? learned.length + 11 : 0)));
  const also = learned ? `${/[.!?…]$/.test(synthesis) ? ' Learned' : '; learned'}: ${learned}` : '';
  const whole = `merged ${clip(m.from, 60)}: ${synthesis}${also}`;
  // The state keeps the head of each: cut there, or here, the commit has the whole.
  const cut =
    isCut(last.contribution, synthesis) ||
    isCut(m.learned, learned) ||
    last.contribution.length >= CONTRIBUTION_KEPT ||
    m.learned.length >= LEARNED_KEPT;
  return cut ? `${whole} (whole: ${pointer})` : whole;
}

/**
 * Notes people wrote under main.md's Notes: pointed to (`where`), with their first line, not read out (they can be
 * long).
 */
export function notesLine(state: MemoryState, where: string): string | null {
  const notes = state.notes.split('\n').filter((l) => l.trim());
  if (!notes.length) return null;
  const first = clip(notes[0]!.replace(/^[-*#>\s]+/, ''), 120);
  return `Notes in main.md (${count(notes.length, 'line')}, ${where}): ${first}`;
}
