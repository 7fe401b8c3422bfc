/**
 * What the store needs to know of git, asked cheaply: where the repository's files are (read
 * directly, no process), what HEAD points at and whether the index changed (a file read and
 * a stat), and — only when those say something moved — which segments git tracks (one
 * `git` process, from PATH outside the repository, with an argument vector and `safeGit`'s
 * options: nothing in the project chooses what runs).
 */
import { childProcess } from '../runtime/lazy-deps.js';
import { onPathOutside } from '../runtime/on-path.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { devNull } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * Put before every git command gctx runs. A repository's own config (`.git/config`, which a
 * downloaded or shared repository brings, and which gctx never reads) could otherwise name a
 * program for git to run on gctx's behalf — on every hook, unasked: an fsmonitor hook
 * (`core.fsmonitor`, run by status, diff, add), hooks (`core.hooksPath`: a
 * reference-transaction hook for gctx's own refs, post-index-change for its scratch index), a
 * pager, gpg for a signature a log would show. Config given on the command line wins over
 * every file, and reaches the git processes git starts (submodules) too.
 */
const SAFE_CONFIG = ['--no-pager', '-c', 'core.fsmonitor=false', '-c', 'log.showSignature=false'];
/** Hooks read from a path no file can be under (a file, not a folder): none runs. */
const NO_HOOKS = ['-c', `core.hooksPath=${devNull}`];
/** Commands that can diff: no external diff program (diff.external, a diff driver's command) and no textconv filter. */
const DIFFS = new Set(['diff', 'diff-tree', 'diff-index', 'diff-files', 'show', 'log']);
const DIFF_SAFE = ['--no-ext-diff', '--no-textconv'];

/**
 * `args` (a git subcommand and its arguments) with the options that keep repository config
 * from choosing what runs. `keepHooks`: for the one question about hooks gctx asks (where
 * `gctx git install` puts them), which must see the configured path.
 *
 * What this cannot reach: clean and smudge filters (`filter.<name>.clean`, named by a
 * `.gitattributes` line) run where git reads a work-tree file's content, as they do for every
 * git command the person runs there (docs/reliability.md).
 */
export function safeGit(args: readonly string[], keepHooks = false): string[] {
  const [cmd, ...rest] = args;
  return [
    ...SAFE_CONFIG,
    ...(keepHooks ? [] : NO_HOOKS),
    ...(cmd === undefined ? [] : [cmd, ...(DIFFS.has(cmd) ? DIFF_SAFE : []), ...rest]),
  ];
}

const programs = new Map<string, string>();

/**
 * The git to run for a command in `cwd`: the first on PATH in an absolute folder outside the
 * repository holding `cwd` (outside git, outside `cwd`), leading to a file outside it. A
 * relative PATH entry (`.`, an empty one) or the project's own `node_modules/.bin` (which
 * `npm run` puts first) would let a file committed to the repository run as git on every
 * hook. An error with code ENOENT, as a missing git gives, when there is none.
 */
export function gitProgram(cwd: string): string {
  const key = `${process.env.PATH ?? ''}\0${cwd}`;
  let found = programs.get(key);
  if (found === undefined) {
    found =
      onPathOutside(process.platform === 'win32' ? 'git.exe' : 'git', process.env, findRepo(cwd)?.top ?? cwd) ?? '';
    programs.set(key, found);
  }
  if (!found) throw Object.assign(new Error('no git on PATH outside the project'), { code: 'ENOENT' });
  return found;
}

export interface GitRepo {
  /** The work tree's top folder. */
  top: string;
  /** This work tree's git dir (for a linked worktree, .git/worktrees/<name>). */
  gitDir: string;
  /** Where refs and objects live (the main repository's .git). */
  commonDir: string;
}

/** The repository holding `dir`, found by walking up to a `.git`; null outside git. */
export function findRepo(dir: string): GitRepo | null {
  let cur = resolve(dir);
  for (;;) {
    const dotGit = join(cur, '.git');
    let st;
    try {
      st = statSync(dotGit);
    } catch {
      st = null;
    }
    if (st?.isDirectory()) return { top: cur, gitDir: dotGit, commonDir: dotGit };
    if (st?.isFile()) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readQuiet(dotGit) ?? '');
      if (m) {
        const gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(cur, m[1]!);
        const common = readQuiet(join(gitDir, 'commondir'))?.trim();
        return { top: cur, gitDir, commonDir: common ? resolve(gitDir, common) : gitDir };
      }
    }
    const up = dirname(cur);
    if (up === cur) return null;
    cur = up;
  }
}

function readQuiet(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The commit HEAD names (or the ref it names, when that ref has no commit yet). */
export function headOf(repo: GitRepo): string | null {
  const head = readQuiet(join(repo.gitDir, 'HEAD'))?.trim();
  if (!head) return null;
  const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
  if (!ref) return head;
  const loose = readQuiet(join(repo.commonDir, ref))?.trim() ?? readQuiet(join(repo.gitDir, ref))?.trim();
  if (loose) return loose;
  const packed = readQuiet(join(repo.commonDir, 'packed-refs')) ?? '';
  for (const line of packed.split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === ref && sha) return sha;
  }
  return `${ref} (no commit yet)`;
}

/**
 * A merge, rebase, cherry-pick or revert under way in this work tree (git's state files are
 * present): the work tree is git's until it finishes — files taken away for a while, a stash
 * git will apply at the end (`--autostash`), others' changes not committed yet. Git runs
 * post-merge and post-rewrite before it removes those files: a merge whose commit HEAD already
 * is, or a rebase with nothing left to do and no stash to apply, is done.
 */
export function midOperation(repo: GitRepo): boolean {
  const at = (f: string) => join(repo.gitDir, f);
  if (['rebase-apply', 'CHERRY_PICK_HEAD', 'REVERT_HEAD'].some((f) => existsSync(at(f)))) return true;
  if (existsSync(at('rebase-merge')) && !rebaseDone(repo)) return true;
  return existsSync(at('MERGE_HEAD')) && !mergeCommitted(repo);
}

/** A rebase's last pick made and its branch moved: nothing left to do, stopped at, or applied after (an autostash). */
function rebaseDone(repo: GitRepo): boolean {
  const dir = join(repo.gitDir, 'rebase-merge');
  const todo = readQuiet(join(dir, 'git-rebase-todo'));
  if (todo === null || todo.split('\n').some((l) => l.trim() && !l.trimStart().startsWith('#'))) return false;
  return (
    !['autostash', 'stopped-sha', 'amend'].some((f) => existsSync(join(dir, f))) &&
    !existsSync(join(repo.gitDir, 'REBASE_HEAD'))
  );
}

/** MERGE_HEAD names only parents of HEAD beside the first: the merge commit is made, git is about to clean up. */
function mergeCommitted(repo: GitRepo): boolean {
  const merging = (readQuiet(join(repo.gitDir, 'MERGE_HEAD')) ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (merging.length === 0) return false;
  try {
    const parents = runGit(repo.top, ['rev-parse', 'HEAD^@']).split('\n').filter(Boolean).slice(1);
    return merging.every((m) => parents.includes(m));
  } catch {
    return false;
  }
}

/** size:mtime:inode of the index: it changes when anything is staged or committed. */
export function indexSignature(repo: GitRepo): string | null {
  try {
    const st = statSync(join(repo.gitDir, 'index'));
    return `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return null;
  }
}

/** How long git's index lock is taken for a git command at work; an older one was left by a git that died. */
const INDEX_LOCK_FRESH_MS = 10_000;

/**
 * The index lock of a git command writing the index right now (`git add`, `git commit`, a
 * checkout), which it holds while it reads the work tree's files and writes the new index: its
 * inode and time, or null when there is none (or only one a git that died left behind).
 */
export function indexLock(repo: GitRepo): string | null {
  const st = statSync(join(repo.gitDir, 'index.lock'), { throwIfNoEntry: false });
  return st !== undefined && Date.now() - st.mtimeMs < INDEX_LOCK_FRESH_MS ? `${st.ino}:${st.mtimeMs}` : null;
}

/** Environment for a git child: hooks export GIT_DIR and friends relative to their own cwd. */
function gitEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_OBJECT_DIRECTORY']) delete env[k];
  return env;
}

export function runGit(cwd: string, args: readonly string[], input?: string): string {
  return childProcess().execFileSync(gitProgram(cwd), safeGit(args), {
    cwd,
    env: gitEnv(),
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'ignore'],
    timeout: 20_000,
    maxBuffer: 256 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
}

export function runGitBuffer(cwd: string, args: readonly string[], input?: string): Buffer {
  return childProcess().execFileSync(gitProgram(cwd), safeGit(args), {
    cwd,
    env: gitEnv(),
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'ignore'],
    timeout: 20_000,
    maxBuffer: 512 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
}

/** Paths relative to `root`, with forward slashes, of `dir`'s files that git's index holds. */
export function trackedUnder(root: string, dir: string): Set<string> | null {
  try {
    const out = runGit(root, ['ls-files', '-z', '--', relative(root, dir) || '.']);
    return new Set(out.split('\0').filter(Boolean));
  } catch {
    return null;
  }
}

/**
 * Whether the tip of any branch, remote-tracking branch or tag holds `rel` (a path relative to
 * `root`, forward slashes): a file some ref already carries, whatever the index says now (a
 * `git reset` after a push takes it out of the index, not out of `origin/main`). Null when git
 * cannot tell. Two git calls, whatever the history's length.
 */
export function heldAtRefTips(root: string, rel: string): boolean | null {
  try {
    const refs = runGit(root, ['for-each-ref', '--format=%(objectname)', 'refs/heads', 'refs/remotes', 'refs/tags'])
      .split('\n')
      .filter(Boolean);
    if (refs.length === 0) return false;
    const out = runGit(
      root,
      ['cat-file', '--batch-check'],
      [...new Set(refs)].map((sha) => `${sha}:./${rel}\n`).join(''),
    );
    return out.split('\n').some((line) => / blob \d+$/.test(line));
  } catch {
    return null;
  }
}

/** A file's bytes as git holds them at `rev` (a commit such as `HEAD` or a stash; `index` for the index), or null. */
export function blobOf(root: string, rev: string, path: string): Buffer | null {
  try {
    const rel = relative(root, path).split(sep).join('/');
    // `./` makes the path relative to the working directory rather than the repository's top.
    return runGitBuffer(root, ['show', rev === 'index' ? `:./${rel}` : `${rev}:./${rel}`]);
  } catch {
    return null;
  }
}

/** `rel` with forward slashes: what git prints. */
export function gitPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}
