/**
 * The rules every value must keep, whether it comes from a command or from a log read off
 * disk (a log may arrive by `git pull` from anyone): names that become paths, sizes, and the
 * shapes of ids. One set of rules, used by the decider and by the log's validation alike.
 */

/** Longest free text (a contribution, a tool result, a patch) in characters. */
import { type Config, DEFAULT_CONFIG } from './types.js';

export const MAX_TEXT = 1_048_576;
/** Longest one-line text: titles, objectives, branch purposes' first line. */
export const MAX_LINE = 4_096;
/** Most items in a list (hypotheses, files of one event, objectives to check). */
export const MAX_ITEMS = 10_000;
/** Most objectives a roadmap holds: main.md is read by people and agents, and every fold scans the list. */
export const MAX_OBJECTIVES = 500;
/**
 * Largest entry gctx writes, in bytes of the log: every field at its cap could exceed it, so
 * the write is refused and the text asked to be summarized; a reader never holds more.
 */
export const MAX_ENTRY_BYTES = 16 * 1024 * 1024;
/**
 * Largest entry a reader reads before calling it damage: room above MAX_ENTRY_BYTES for entries
 * of a gctx that had no such cap (whose front ends took no message over 8 MiB), while text that
 * never ends an entry is refused without being held whole.
 */
export const MAX_ENTRY_READ = 2 * MAX_ENTRY_BYTES;
/** Longest short field: a host's name, a session id, a session's reason. */
export const SHORT_LINE = 200;
/** Longest file path recorded. */
export const MAX_PATH = 4_096;

/** The range of the numeric settings (commit_after_edits, commit_after_turns). */
export const CONFIG_MAX = 10_000;

/**
 * Why a setting's value is refused, or null. A key this version does not know is no problem
 * (a later version may add one; the fold ignores it); a known key takes its default's type,
 * and numbers are whole, from 1 to CONFIG_MAX.
 */
export function configValueProblem(key: string, value: unknown): string | null {
  if (!Object.hasOwn(DEFAULT_CONFIG, key)) return null;
  const want = typeof DEFAULT_CONFIG[key as keyof Config];
  if (typeof value !== want) return `${key} takes a ${want}`;
  if (want === 'number' && (!Number.isInteger(value) || (value as number) < 1 || (value as number) > CONFIG_MAX))
    return `${key} takes a whole number from 1 to ${CONFIG_MAX}`;
  return null;
}

export const OBJECTIVE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const COMMIT_HASH = /^[0-9a-f]{7,40}$/;
export const COMMIT_LABEL = /^C\d{3,9}$/;
export const EVENT_ID = /^[0-9a-f]{22}$/;

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** Why a branch name is refused, or null when it is fine. Each rule is named in the message. */
export function branchNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return 'a branch name must be text';
  if (name.length === 0) return 'a branch name cannot be empty';
  if (name.length > 100) return 'a branch name is at most 100 characters';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'a branch name cannot be an absolute path (`/x`, `c:x`)';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a branch name cannot contain NUL or control characters';
  if (name.includes('\\')) return 'a branch name cannot contain backslashes (use / to nest)';
  for (const seg of name.split('/')) {
    if (seg === '') return 'a branch name cannot have empty segments (`//` or a trailing `/`)';
    if (seg === '.' || seg === '..') return 'a branch name cannot contain `.` or `..` segments';
    if (seg.endsWith('.') || seg.endsWith(' ')) return 'a branch name segment cannot end with a dot or a space';
    if (RESERVED.test(seg)) return `\`${seg}\` is a reserved file name on Windows`;
    if (/\.(md|yaml|lock|json)$/i.test(seg))
      return 'a branch name segment cannot end in .md, .yaml, .json or .lock (those are memory files)';
    if (!SEGMENT.test(seg))
      return 'each segment must start with a letter or digit and use only letters, digits, `.`, `_` and `-`';
  }
  return null;
}

/**
 * Why a new branch is refused its name, or null. A new name keeps every rule a name read from
 * the logs keeps (branchNameProblem), and git's own for a branch (`git check-ref-format
 * --branch`: no `..`, `@{`, `.lock` ending, leading `-` or `.`, `//`, trailing `/` or `.`,
 * space, control character or any of ``~^:?*[\``) — of which only `..` is not already refused
 * there. Only new branches are held to it: a name in logs written before still loads.
 */
export function newBranchNameProblem(name: unknown): string | null {
  const problem = branchNameProblem(name);
  if (problem) return problem;
  if ((name as string).includes('..')) return 'a branch name cannot contain `..` (git refuses it)';
  return null;
}

/**
 * A name like `name` that newBranchNameProblem accepts, for a fix to suggest (`a..b` → `a-b`);
 * null when none is near.
 */
export function branchNameLike(name: string): string | null {
  const segs = name
    .split(/[/\\]+/)
    .map((seg) =>
      seg
        .replace(/\.(md|yaml|lock|json)$/i, '-$1')
        .replace(/[^A-Za-z0-9._-]+|\.{2,}/g, '-')
        .replace(/-{2,}/g, '-')
        .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, ''),
    )
    .filter(Boolean)
    .map((seg) => (RESERVED.test(seg) ? `${seg.replaceAll('.', '-')}-x` : seg));
  const like = segs
    .join('/')
    .slice(0, 100)
    .replace(/[^A-Za-z0-9]+$/, '');
  return like && !newBranchNameProblem(like) ? like : null;
}

/** Case-folded form: branch folders must not collide on case-insensitive file systems. */
export function branchKey(name: string): string {
  return name.toLowerCase();
}
