import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CanonicalInput, CanonicalTool } from './envelope.js';

/**
 * The input of a call as one line of log text, said once: a file tool names its file (relative
 * to the project) and how much it wrote — the lines it changed are counted under Files, and
 * the content is in the repository; a shell names its command; the rest is compact JSON.
 * Paths of this machine become project-relative, so the log reads the same in every clone.
 */
const lines = (n: number): string => `${n} line${n === 1 ? '' : 's'}`;

export function describeInput(
  tool: CanonicalTool | undefined,
  input: CanonicalInput | undefined,
  cwd = '',
  root = '',
): string {
  if (!input) return '';
  const path = (p: unknown): string => (typeof p === 'string' ? projectPath(p, cwd, root) : '');
  const local = (text: string): string =>
    root && text.includes(root) ? text.split(`${root}${sep}`).join('').split(root).join('.') : text;
  switch (tool) {
    case 'Bash':
      return typeof input.command === 'string' ? local(input.command) : '';
    case 'Write':
      return typeof input.content === 'string'
        ? `${path(input.file_path)} (${lines(lineCount(input.content))})`
        : path(input.file_path);
    case 'Edit': {
      const n = Array.isArray(input.edits) ? input.edits.length : 0;
      return `${path(input.file_path)}${n > 1 ? ` (${n} edits)` : ''}`;
    }
    case 'Read': {
      const range =
        typeof input.offset === 'number'
          ? ` from line ${input.offset}${typeof input.limit === 'number' ? `, ${lines(input.limit)}` : ''}`
          : '';
      return `${path(input.file_path)}${range}`;
    }
    case 'Grep':
    case 'Glob': {
      const pattern = typeof input.pattern === 'string' ? JSON.stringify(input.pattern) : '';
      return `${pattern}${input.path ? ` in ${path(input.path)}` : ''}`;
    }
    default:
      try {
        return local(JSON.stringify(input));
      } catch {
        return String(input);
      }
  }
}

/** Lines of a text, a last line without its line break counted. */
export function lineCount(text: string): number {
  if (!text) return 0;
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** Project-relative with forward slashes; a file outside the project keeps its absolute path. */
export function projectPath(path: string, cwd: string, root: string): string {
  if (!root) return path;
  const absolute = isAbsolute(path) ? resolve(path) : resolve(cwd || root, path);
  const rel = relative(root, absolute);
  if (!rel) return '.';
  if (rel.startsWith('..') || isAbsolute(rel)) return absolute.split(sep).join('/');
  return rel.split(sep).join('/');
}

/** What marks a line as the verdict of a failing call: a failed test's id, an error's head, an exit code. */
const VERDICT = new RegExp(
  String.raw`^(FAILED|ERROR)\b|^(FAIL|✗|✕|×|●)\s|\bFAIL:|\berror( TS\d+|\[[A-Z]?\d+\])?:|^\w*(Error|` +
    String.raw`Exception)\b|\bpanicked at\b|\b(exit(ed)? (code|status)|exited with)\b|^npm ERR!|\b\d+ ` +
    String.raw`(failed|errors?)\b`,
  'i',
);
/** Lines that say where and why: assertions, pytest's `E` lines, a traceback's frames, a diff's two sides. */
const DETAIL = new RegExp(
  String.raw`^E\s|\bassert(ion)?\b|^\s*(Expected|Received|expected|actual|got)\b|^\s*at\s|Traceback|` +
    String.raw`^\s*File "|\.\w+:\d+(:\d+)?\b`,
);
/**
 * Progress and rulers: dots and percentages of a test run, lines of `=`/`-`/`_` with or
 * without a heading.
 */
const PROGRESS = String.raw`^[\s.sxXFE]*(\[\s*\d+%\])?\s*$`;
const RULERS = String.raw`^\s*[=\-_*~#]{4,}.*[=\-_*~#]{4,}\s*$|^\s*[=\-_*~#]{4,}\s*$`;
const BAR = String.raw`^\s*\d+%\s*[|█▏▎▍▌▋▊▉ ]*$`;
const NOISE = new RegExp(`${PROGRESS}|${RULERS}|${BAR}`);

/**
 * A failing call's output as what matters of it, within `limit` characters: the verdict lines (a
 * failed test's id, `Error:`, `error[…]`, the exit code) first, then assertions and the last
 * lines of a traceback, with progress runs and rulers dropped. A short output that holds no such
 * line is kept as it is; what was left out is said in one line.
 */
export function describeFailure(text: string, limit: number): string {
  // A ruler around a run's tally (`=== 1 failed, 119 passed ===`) keeps the tally.
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trimEnd().replace(/^\s*[=\-_]{3,}\s*(.*\b\d+ (?:failed|passed|errors?)\b.*?)\s*[=\-_]{3,}$/, '$1'));
  const kept = lines.filter((l) => l.trim() && !NOISE.test(l));
  const verdict = unique(kept.filter((l) => VERDICT.test(l.trim())));
  const detail = unique(kept.filter((l) => !VERDICT.test(l.trim()) && DETAIL.test(l)));
  if (!verdict.length && !detail.length) {
    const plain = kept.join('\n');
    return plain.length <= limit
      ? plain
      : `${plain.slice(0, Math.max(0, limit - 40)).trimEnd()}\n[… ${plain.length - limit + 40} characters omitted]`;
  }
  // The last lines are where most tools put their verdict (a traceback's error, a summary).
  const tail = kept.slice(-3).filter((l) => !verdict.includes(l) && !detail.includes(l));
  const out: string[] = [];
  let used = 0;
  const all = [...verdict, ...detail.slice(-6), ...tail];
  for (const l of all) {
    const line = l.length > 300 ? `${l.slice(0, 299)}…` : l;
    if (used + line.length + 1 > limit - 40) break;
    out.push(line);
    used += line.length + 1;
  }
  const left = kept.length - out.length;
  if (left > 0) out.push(`[… ${left} other line${left === 1 ? '' : 's'} of output omitted]`);
  return out.join('\n');
}

function unique(lines: string[]): string[] {
  return [...new Set(lines)];
}
