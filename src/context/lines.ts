/**
 * Memory as one line per thing, for the reader: what happened, when, on which files — with no
 * internal ids, no event-type names, each input once, results clipped to what is worth their
 * tokens (docs/benchmarks.md, the resume benchmark).
 */
import type { BranchInfo, MemoryState } from '../decider/state.js';
import { guardRefusal } from '../events/guard.js';
import type { FileChange, GccEvent } from '../events/types.js';
import { filesFitted, summaryLine } from '../log/prose.js';
import { clip } from './budget.js';

const time = (at: string): string => `${at.slice(5, 10)} ${at.slice(11, 16)}`;

/** One log entry as the log view shows it. */
export function entryLine(e: GccEvent): string {
  switch (e.type) {
    case 'tool.recorded': {
      const call = clip(e.data.input ? `${e.data.tool} ${e.data.input}` : e.data.tool, 200);
      // gctx's own guard refused it: said in a few words, not its reason's ninety tokens.
      const refused = e.data.isError ? guardRefusal(e.data.result) : null;
      if (refused) return `${time(e.at)} ${call} → blocked by gctx: ${refused === 'git' ? 'it would overwrite memory not yet committed to git' : '.GCC/ is written through the memory tools'}`;
      const result = e.data.result.trim() ? clip(e.data.result, e.data.isError ? 300 : 160) : '';
      const files = e.data.files.length ? ` [${filesFitted(e.data.files, 160)}]` : '';
      return `${time(e.at)} ${call}${e.data.isError ? ` → failed: ${result || '(no output)'}` : result ? ` → ${result}` : ''}${files}`;
    }
    case 'ota.logged': {
      // Each part named, in a word: which is the observation and which the action matters more
      // than the tokens the names cost. A part left empty is left out.
      const parts: [string, string][] = [['Observation', e.data.observation], ['Thought', e.data.thought], ['Action', e.data.action]];
      return `${time(e.at)} ${clip(parts.filter(([, x]) => x.trim()).map(([name, x]) => `${name}: ${x}`).join(' | '), 430)}`;
    }
    default:
      return `${time(e.at)} ${summaryLine(e)}`;
  }
}

/** Approaches tried and dropped, newest first, with why. */
export function failedLines(state: MemoryState, max: number, where = 'in the full roadmap (context full)'): string[] {
  const lines = [...state.failed]
    .reverse()
    .slice(0, max)
    .map((f) => `  - ${f.branch} (${f.at.slice(0, 10)}): ${clip(f.purpose, 120)} — dropped: ${clip(f.reason, 240)}`);
  const more = state.failedCount - lines.length;
  if (lines.length && more > 0) lines.push(`  … ${more} earlier, newest first, ${where}`);
  return lines;
}

/**
 * Work since the branch's last commit: the files, newest first, at most `max` of them and inside
 * `room` characters; `where` says where the rest are (the log).
 */
export function pendingLine(b: BranchInfo, max: number, where: string, room = Infinity): string | null {
  const p = b.pending;
  if (!p.turns) return null;
  const files = Object.values(p.files).sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0));
  const head = `Since the last commit: ${p.turns} step${p.turns === 1 ? '' : 's'}, ${p.edits} edit${p.edits === 1 ? '' : 's'}`;
  if (!files.length) return `${head}.`;
  const lead = `${head} in ${files.length} file${files.length === 1 ? '' : 's'}, newest first: `;
  return `${lead}${filesFitted(files.slice(0, max), room - lead.length - 1, files.length, where)}.`;
}

/** The work tree's changes git sees since the branch's last commit, when no hook logged the work. */
export function uncommittedLine(files: readonly FileChange[] | null | undefined, max: number, room = Infinity): string | null {
  if (!files?.length) return null;
  const lead = 'Changed in the work tree since the last memory commit (git): ';
  return `${lead}${filesFitted(files.slice(0, max), room - lead.length - 1, files.length, '(git status)')}.`;
}

/** The newest failed tool call since the branch's last commit, and what it said. */
export function failureLine(b: BranchInfo): string | null {
  const f = b.pending.failure;
  if (!f) return null;
  const call = clip(f.input ? `${f.tool} ${f.input}` : f.tool, 160);
  return `Failing since the last commit (${time(f.at)}): ${call} → ${clip(f.result.trim() || '(no output)', 360)}`;
}
