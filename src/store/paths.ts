/**
 * Where each file of a memory lives, and the one function every path built from data goes
 * through: `inside` resolves under `.GCC/` and refuses anything that would land elsewhere.
 *
 *   .GCC/events/YYYY-MM/<segment>.md   the truth, committed: append-only segment files
 *   .GCC/.local/                       this clone's own state, never committed
 *     local.md                         the local log (session pointers, session lifecycles)
 *     ledger.json                      what this clone acknowledged, to tell damage
 *     cache/                           snapshot, checkpoint, search index (rebuildable)
 *   .GCC/main.md, metadata.yaml, commit.md, log.md, branches/<b>/…   views, generated here
 *   .GCC/aside/, quarantine/           what gctx kept aside for a person to look at
 */
import { constants, lstatSync, openSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { branchNameProblem } from '../events/rules.js';
import { MAIN } from '../events/types.js';
import { gccError } from '../errors.js';
import { findRepo } from './git-probe.js';
import { journalHolds } from './journal.js';

export { branchNameProblem };

export const GCC_DIR = '.GCC';
export const EVENTS_DIR = 'events';

/** `.GCC/.gitignore` as gctx writes it: only events/ (and aside/) travel through git. */
export const GITIGNORE = `# Written by gctx. Only events/ travels through git: every other file here is generated
# from it on each machine, or is this clone's own state (docs/git.md).
/*
!/.gitignore
!/events/
!/aside/
`;

/** A segment's name relative to events/: `YYYY-MM/YYYYMMDDTHHMMSSZ-xxxxxx.md`. */
export const SEGMENT_NAME = /^\d{4}-\d{2}\/\d{8}T\d{6}Z-[0-9a-f]{6}\.md$/;
export const MONTH_DIR = /^\d{4}-\d{2}$/;

export function assertBranchName(name: string): void {
  const problem = branchNameProblem(name);
  if (problem) {
    throw gccError(
      'E_BRANCH_NAME',
      `invalid branch name ${JSON.stringify(name)}: ${problem}`,
      'pick a name like `try-sqlite` or `feat/parser`',
    );
  }
}

export interface Layout {
  /** Project directory (holds .GCC/). */
  root: string;
  gcc: string;
  events: string;
  local: string;
  localLog: string;
  ledger: string;
  lock: string;
  cache: string;
  quarantine: string;
  aside: string;
  /** The view files, generated from the logs. */
  mainMd: string;
  metadata: string;
  dirOf(branch: string): string;
  logOf(branch: string): string;
  commitOf(branch: string): string;
  summaryOf(branch: string): string;
  segment(name: string): string;
}

/**
 * `parts` joined under `.GCC/`, or E_PATH_ESCAPE when the result would leave it (an absolute
 * part, `..`, a NUL): the single door from data to a path.
 */
export function inside(gcc: string, ...parts: string[]): string {
  for (const p of parts) {
    if (typeof p !== 'string' || p.includes('\u0000') || isAbsolute(p)) throw escape(String(p));
  }
  const full = resolve(gcc, ...parts);
  const rel = relative(gcc, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..'))
    throw escape(parts.join('/'));
  return full;
}

function escape(what: string) {
  return gccError(
    'E_PATH_ESCAPE',
    `${JSON.stringify(what)} would lead outside .GCC/`,
    'memory files live under .GCC/ only; check the branch or file name',
  );
}

export function layout(root: string): Layout {
  const gcc = join(root, GCC_DIR);
  const local = join(gcc, '.local');
  const dirOf = (b: string): string => {
    if (b === MAIN) return gcc;
    assertBranchName(b);
    return inside(gcc, 'branches', ...b.split('/'));
  };
  return {
    root,
    gcc,
    events: join(gcc, EVENTS_DIR),
    local,
    localLog: join(local, 'local.md'),
    ledger: join(local, 'ledger.json'),
    lock: join(local, 'lock'),
    cache: join(local, 'cache'),
    quarantine: join(gcc, 'quarantine'),
    aside: join(gcc, 'aside'),
    mainMd: join(gcc, 'main.md'),
    metadata: join(gcc, 'metadata.yaml'),
    dirOf,
    logOf: (b) => join(dirOf(b), 'log.md'),
    commitOf: (b) => join(dirOf(b), 'commit.md'),
    summaryOf: (b) => join(dirOf(b), 'summary.md'),
    segment: (name) => {
      if (!SEGMENT_NAME.test(name)) throw escape(name);
      return inside(gcc, EVENTS_DIR, ...name.split('/'));
    },
  };
}

/**
 * Refuse a path under `.GCC/` if it, or any folder between it and the project root, is a
 * symbolic link: a link could lead a write outside the tree. `checked` remembers folders
 * already found to be real within one operation (a folder at the end of `path` too). Returns
 * whether the path exists (with `leaf: false`, whether its folders do). `leaf: false` looks at
 * the folders only, for a caller that opens the file itself with openNoFollow.
 */
export function assertNoSymlink(root: string, path: string, checked?: Set<string>, leaf = true): boolean {
  const rel = relative(root, path);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw gccError('E_PATH_ESCAPE', `${path} is outside the project`, 'memory files live under .GCC/ only');
  }
  const parts = rel.split(sep);
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]!);
    const folder = i < parts.length - 1;
    if (checked?.has(cur)) continue;
    if (!folder && !leaf && NOFOLLOW !== 0) return true;
    let st;
    try {
      st = lstatSync(cur);
    } catch {
      return false; // does not exist yet: nothing further down exists either
    }
    if (st.isSymbolicLink()) throw linkRefused(relative(root, cur));
    if (folder || st.isDirectory()) checked?.add(cur);
  }
  return true;
}

/** O_NOFOLLOW where the platform has it (0 elsewhere: assertNoSymlink then looks at the file itself). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Open a file under `.GCC/` whose folders assertNoSymlink(…, leaf false) found real, refusing
 * the file itself if it is a symbolic link (the open never follows it). `flags`: O_* bits.
 */
export function openNoFollow(root: string, path: string, flags: number, mode = 0o666): number {
  try {
    return openSync(path, flags | NOFOLLOW, mode);
  } catch (err) {
    if (NOFOLLOW !== 0 && (err as { code?: string }).code === 'ELOOP') throw linkRefused(relative(root, path));
    throw err;
  }
}

export function linkRefused(rel: string) {
  return gccError(
    'E_PATH_ESCAPE',
    `${rel} is a symbolic link; memory files must be real files inside .GCC/`,
    `replace the link with a real folder or file: rm ${rel}`,
  );
}

/**
 * Refuse a memory whose fixed folders or local files are symbolic links: the logs would be
 * read from, and the ledger, the lock, caches, set-aside files and views written to, wherever
 * the link leads. Checked on every open (a few lstat calls); each write checks its own path
 * again, for a link put there while a process runs.
 */
export function assertRealLayout(l: Layout): void {
  const fixed = [
    l.events,
    join(l.gcc, 'branches'),
    l.aside,
    l.quarantine,
    l.local,
    l.cache,
    join(l.cache, 'search'),
    l.localLog,
    l.ledger,
    `${l.ledger}.sealed`,
    l.lock,
  ];
  for (const path of fixed) {
    let link = false;
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      /* missing: made as a real folder or file when first needed */
    }
    if (link) throw linkRefused(relative(l.root, path));
  }
}

/** The segment name for a new segment started at `now`, with a random tail. */
export function newSegmentName(now: Date, random: string): string {
  const iso = now.toISOString();
  const day = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
  const time = `${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  const stamp = `${day}T${time}Z`;
  return `${iso.slice(0, 7)}/${stamp}-${random.slice(0, 6)}.md`;
}

/** The nearest folder upward from `start` that holds `.GCC/`, or null. */
export function findMemoryRoot(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    try {
      if (lstatSync(join(dir, GCC_DIR)).isDirectory()) return dir;
    } catch {
      /* not here */
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  // `.GCC/` removed (`rm -rf .GCC`, `git clean -fdx`): a memory whose journal survives is still there.
  const repo = findRepo(start);
  if (!repo) return null;
  for (dir = resolve(start); ; dir = dirname(dir)) {
    if (journalHolds(dir, repo)) return dir;
    if (dir === repo.top || dirname(dir) === dir) return null;
  }
}
