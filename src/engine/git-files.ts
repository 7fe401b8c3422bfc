/**
 * Files touched since the branch's last memory commit, as git tells, for COMMIT's "Files
 * touched" when no hook logged the edits (a CLI or skill-only agent). At each commit the work
 * tree — tracked and untracked files, index and unstaged edits alike, `.GCC/` left out — is
 * written as a git tree through a scratch index, and kept under a local ref
 * (`refs/gcc/<project>/<branch>`, so `git gc` keeps it and it never travels); the next
 * commit diffs against it. A branch's first commit diffs against its parent's tree, else
 * HEAD's. Outside git, or when git fails or is slow, there are none (hooks and `--files`
 * still count). Git runs from PATH with an argument vector and safeGit's options; nothing in
 * the project chooses what runs (but the clean filters git itself runs, see safeGit).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { FileChange } from '../events/types.js';
import { type GitRepo, gitProgram, safeGit } from '../store/git-probe.js';
import { childProcess, crypto } from '../runtime/lazy-deps.js';

/** A file name as a reader sees it: control characters (a name can hold a line break) shown as `?`. */
const shown = (path: string): string => path.replace(/[\u0000-\u001f\u007f]/g, '?');

const TIMEOUT_MS = 15_000;

/** The environment git runs in: a hook's GIT_DIR and the like must not point it elsewhere. */
function cleanEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base = { ...process.env, ...env };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_PREFIX']) delete base[k];
  return base;
}

function git(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): string {
  return childProcess().execFileSync(gitProgram(cwd), safeGit(args), { cwd, env: cleanEnv(env), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
}

/** The local ref that keeps a branch's last tree. */
export function treeRef(repo: GitRepo, root: string, branch: string): string {
  const project = crypto().createHash('sha256').update(relative(repo.top, root)).digest('hex').slice(0, 8);
  return `refs/gcc/${project}/${branch}`;
}

/** The work tree (tracked and untracked, minus .GCC/) as a tree id, through a scratch index. */
export function workTree(repo: GitRepo, root: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'gcc-index-'));
  const index = join(dir, 'index');
  try {
    try {
      copyFileSync(join(repo.gitDir, 'index'), index); // its stat cache spares re-hashing unchanged files
    } catch {
      /* no index yet: a fresh repository */
    }
    const env = { GIT_INDEX_FILE: index };
    git(root, ['add', '-A', '--', '.', ':(exclude).GCC'], env);
    return git(root, ['write-tree'], env).trim() || null;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function resolveTree(root: string, rev: string): string | null {
  try {
    return git(root, ['rev-parse', '--verify', '-q', `${rev}^{tree}`]).trim() || null;
  } catch {
    return null;
  }
}

export interface GitFiles {
  files: FileChange[];
  /** The tree to record once the commit is appended. */
  tree: string;
}

/** What changed under the project since `branch`'s last recorded tree (or `parent`'s, or HEAD's). */
export function changedSince(repo: GitRepo, root: string, branch: string, parent: string | null): GitFiles | null {
  const tree = workTree(repo, root);
  if (!tree) return null;
  const base = resolveTree(root, treeRef(repo, root, branch)) ?? (parent ? resolveTree(root, treeRef(repo, root, parent)) : null) ?? resolveTree(root, 'HEAD');
  const files: FileChange[] = [];
  if (base && base !== tree) {
    let out: string;
    try {
      out = git(root, ['diff-tree', '-r', '-z', '--numstat', '--no-renames', base, tree, '--', relative(repo.top, root) || '.']);
    } catch {
      return { files, tree };
    }
    const prefix = relative(repo.top, root).split(sep).join('/');
    const parts = out.split('\0');
    for (const row of parts) {
      const m = /^(\d+|-)\t(\d+|-)\t(.+)$/s.exec(row);
      if (!m) continue;
      const path = prefix && m[3]!.startsWith(`${prefix}/`) ? m[3]!.slice(prefix.length + 1) : m[3]!;
      if (path === '.GCC' || path.startsWith('.GCC/')) continue;
      files.push({ path: shown(path), added: m[1] === '-' ? 0 : Number(m[1]), removed: m[2] === '-' ? 0 : Number(m[2]) });
    }
  }
  return { files, tree };
}

/** How long a read (status, the briefing) waits for git before going on without it. */
const READ_TIMEOUT_MS = 3_000;

/**
 * What git sees changed in the work tree since `branch`'s last commit (or `parent`'s, or
 * HEAD), with line counts, `.GCC/` left out — tracked and untracked files alike, as COMMIT
 * will record them, but without writing anything to git: untracked files join a scratch
 * index by their content's id only. For status and the briefing, when no hook logged the
 * work. Null outside git or when git fails or is slow.
 */
export function uncommittedSince(repo: GitRepo, root: string, branch: string, parent: string | null): FileChange[] | null {
  const base = resolveTree(root, treeRef(repo, root, branch)) ?? (parent ? resolveTree(root, treeRef(repo, root, parent)) : null) ?? resolveTree(root, 'HEAD');
  if (!base) return null;
  const dir = mkdtempSync(join(tmpdir(), 'gcc-index-'));
  const index = join(dir, 'index');
  const run = (args: readonly string[], input?: string) =>
    childProcess().execFileSync(gitProgram(root), safeGit(args), { cwd: root, env: cleanEnv({ GIT_INDEX_FILE: index }), encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'ignore'], timeout: READ_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  try {
    try {
      copyFileSync(join(repo.gitDir, 'index'), index);
    } catch {
      /* no index yet */
    }
    const untracked = run(['ls-files', '-z', '-o', '--exclude-standard', '--', '.', ':(exclude).GCC']);
    if (untracked) run(['update-index', '--add', '--info-only', '-z', '--stdin'], untracked);
    const files: FileChange[] = [];
    for (const row of run(['diff', '--numstat', '-z', '--no-renames', '--relative', base, '--', '.', ':(exclude).GCC']).split('\0')) {
      const m = /^(\d+|-)\t(\d+|-)\t(.+)$/s.exec(row);
      if (m) files.push({ path: shown(m[3]!), added: m[1] === '-' ? 0 : Number(m[1]), removed: m[2] === '-' ? 0 : Number(m[2]) });
    }
    return files;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Keep the tree under the branch's ref, for the next commit to diff against. */
export function recordTree(repo: GitRepo, root: string, branch: string, tree: string): void {
  try {
    git(root, ['update-ref', treeRef(repo, root, branch), tree]);
  } catch {
    /* the next commit diffs against HEAD instead */
  }
}
