/**
 * Where each file of a memory lives, and the rules that keep every path inside `.GCC/`.
 */
import { lstatSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { MAIN } from '../events/types.js';
import { gccError } from '../errors.js';

export const GCC_DIR = '.GCC';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** Why a branch name is refused, or null when it is fine. Each rule is named in the message. */
export function branchNameProblem(name: string): string | null {
  if (name.length === 0) return 'a branch name cannot be empty';
  if (name.length > 100) return 'a branch name is at most 100 characters';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'a branch name cannot be an absolute path';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a branch name cannot contain NUL or control characters';
  if (name.includes('\\')) return 'a branch name cannot contain backslashes (use / to nest)';
  for (const seg of name.split('/')) {
    if (seg === '' ) return 'a branch name cannot have empty segments (`//` or a trailing `/`)';
    if (seg === '.' || seg === '..') return 'a branch name cannot contain `.` or `..` segments';
    if (seg.endsWith('.') || seg.endsWith(' ')) return 'a branch name segment cannot end with a dot or a space';
    if (RESERVED.test(seg)) return `\`${seg}\` is a reserved file name on Windows`;
    if (/\.(md|yaml|lock)$/i.test(seg)) return 'a branch name segment cannot end in .md, .yaml or .lock (those are memory files)';
    if (!SEGMENT.test(seg)) return 'each segment must start with a letter or digit and use only letters, digits, `.`, `_` and `-`';
  }
  return null;
}

export function assertBranchName(name: string): void {
  const problem = branchNameProblem(name);
  if (problem) {
    throw gccError('E_BRANCH_NAME', `invalid branch name ${JSON.stringify(name)}: ${problem}`, 'pick a name like `try-sqlite` or `feat/parser`');
  }
}

export interface Layout {
  /** Project directory (holds .GCC/). */
  root: string;
  gcc: string;
  logOf(branch: string): string;
  commitOf(branch: string): string;
  summaryOf(branch: string): string;
  dirOf(branch: string): string;
  mainMd: string;
  metadata: string;
  lock: string;
  quarantine: string;
  aside: string;
  cache: string;
}

export function layout(root: string): Layout {
  const gcc = join(root, GCC_DIR);
  const dirOf = (b: string) => (b === MAIN ? gcc : join(gcc, 'branches', ...b.split('/')));
  return {
    root,
    gcc,
    dirOf,
    logOf: (b) => join(dirOf(b), 'log.md'),
    commitOf: (b) => join(dirOf(b), 'commit.md'),
    summaryOf: (b) => join(dirOf(b), 'summary.md'),
    mainMd: join(gcc, 'main.md'),
    metadata: join(gcc, 'metadata.yaml'),
    lock: join(gcc, '.lock'),
    quarantine: join(gcc, 'quarantine'),
    aside: join(gcc, 'aside'),
    cache: join(gcc, '.cache'),
  };
}

/**
 * Refuse a path under `.GCC/` if it, or any folder between it and the project root, is a
 * symbolic link: a link could lead a write outside the tree. `checked` remembers folders
 * already found to be real within one batch of writes (a replay writes ~900 files), so
 * each is looked at once per batch rather than once per file below it.
 */
export function assertNoSymlink(root: string, path: string, checked?: Set<string>): void {
  const rel = relative(root, path);
  if (rel.startsWith('..')) {
    throw gccError('E_PATH_ESCAPE', `${path} is outside the project`, 'memory files live under .GCC/ only');
  }
  const parts = rel.split(sep);
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]!);
    const folder = i < parts.length - 1;
    if (folder && checked?.has(cur)) continue;
    let isLink = false;
    try {
      isLink = lstatSync(cur).isSymbolicLink();
    } catch {
      return; // does not exist yet: nothing further down exists either
    }
    if (isLink) {
      throw gccError('E_PATH_ESCAPE', `${relative(root, cur)} is a symbolic link; memory files must be real files inside .GCC/`, `replace the link with a real folder or file: rm ${relative(root, cur)}`);
    }
    if (folder) checked?.add(cur);
  }
}
