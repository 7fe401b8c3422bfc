/**
 * Files touched since the branch's last memory commit, as git tells, for COMMIT's "Files
 * touched" when no hook logged the edits (a CLI or skill-only agent). At each commit the work
 * tree — tracked and untracked files, index and unstaged edits alike, `.GCC/` left out — is
 * written as a git tree through a scratch index, wrapped in a baseline commit whose parent is
 * HEAD as it stood and whose author is this clone's git identity, and kept under a ref of this
 * git worktree (`refs/worktree/gcc/<project>/<branch>`: `git gc` keeps it, it never travels,
 * and a second worktree of the repository keeps its own). A branch's first commit starts from
 * its parent's baseline, else from HEAD.
 *
 * The files are the paths that differ between the baseline's tree and the work tree, less
 * what git commits brought that were not this clone's work: when HEAD moved since the
 * baseline (a pull, a merge, a switch of git branch, a rebase), a path counts only if it
 * differs between HEAD and the work tree (work not committed to git yet) or a non-merge commit
 * since the baseline's HEAD, authored by the same email after the baseline was taken, changed
 * it. While a merge, rebase, cherry-pick or revert is under way, the work tree holds others'
 * changes not committed yet: only those authored commits count, and the baseline is not moved. Outside git, or when git
 * fails or is slow, there are none (hooks and `--files` still count). Git runs from PATH with
 * an argument vector and safeGit's options; nothing in the project chooses what runs (but the
 * clean filters git itself runs, see safeGit).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { FileChange, Placed } from '../events/types.js';
import { gitEnv, readObjects } from '../store/git-blobs.js';
import { type GitRepo, gitProgram, midOperation, safeGit } from '../store/git-probe.js';
import { childProcess, crypto } from '../runtime/lazy-deps.js';

/** A file name as a reader sees it: control characters (a name can hold a line break) shown as `?`. */
const shown = (path: string): string => path.replace(/[\u0000-\u001f\u007f]/g, '?');

const TIMEOUT_MS = 15_000;
/** How long a read (status, the briefing) waits for git before going on without it. */
const READ_TIMEOUT_MS = 3_000;

type Run = (args: readonly string[], input?: string) => string;

function runner(cwd: string, timeout: number, env?: NodeJS.ProcessEnv): Run {
  return (args, input) =>
    childProcess().execFileSync(gitProgram(cwd), safeGit(args), {
      cwd,
      env: gitEnv(env),
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'ignore'],
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    });
}

/** The first 8 hex digits of the SHA-256 of nothing. */
const EMPTY_SHA256 = 'e3b0c442';

/** The ref of this git worktree that keeps a memory branch's baseline. */
export function treeRef(repo: GitRepo, root: string, branch: string): string {
  const rel = relative(repo.top, root);
  // A memory at the top of its repository, the common case, needs no hashing: loading crypto costs a status process.
  const project = rel === '' ? EMPTY_SHA256 : crypto().createHash('sha256').update(rel).digest('hex').slice(0, 8);
  return `refs/worktree/gcc/${project}/${branch}`;
}

/** Where the files since a memory commit are counted from. */
interface Baseline {
  tree: string;
  /** HEAD when it was taken (null: no commit yet). */
  head: string | null;
  /** Its author's email and time (seconds): whose git commits since then are this clone's work. */
  email: string;
  time: number;
}

interface Raw {
  id: string;
  tree: string;
  parents: string[];
  email: string;
  time: number;
}

/** A commit's header, or null when missing or not a commit. */
function readCommits(root: string, revs: readonly string[], timeout: number): (Raw | null)[] {
  return readObjects(root, revs, timeout).map((o) => {
    if (o?.type !== 'commit') return null;
    const body = o.body.toString('utf8');
    const raw: Raw = { id: o.id, tree: '', parents: [], email: '', time: 0 };
    for (const line of body.slice(0, body.indexOf('\n\n') >>> 0).split('\n')) {
      if (line.startsWith('tree ')) raw.tree = line.slice(5);
      else if (line.startsWith('parent ')) raw.parents.push(line.slice(7));
      else if (line.startsWith('author ')) {
        const m = /<([^>]*)>\s+(\d+)\s+[-+]\d+$/.exec(line);
        if (m) [raw.email, raw.time] = [m[1]!.toLowerCase(), Number(m[2])];
      }
    }
    return raw.tree ? raw : null;
  });
}

/** HEAD, and the baseline `branch` (or `parent`, or HEAD) counts from; null when git cannot tell. */
function baselineOf(
  repo: GitRepo,
  root: string,
  branch: string,
  parent: string | null,
  timeout: number,
): { head: Raw | null; base: Baseline } | null {
  let got: (Raw | null)[];
  try {
    got = readCommits(
      root,
      ['HEAD', treeRef(repo, root, branch), ...(parent ? [treeRef(repo, root, parent)] : [])],
      timeout,
    );
  } catch {
    return null;
  }
  const head = got[0] ?? null;
  const kept = got[1] ?? got[2] ?? null;
  if (kept)
    return { head, base: { tree: kept.tree, head: kept.parents[0] ?? null, email: kept.email, time: kept.time } };
  if (!head) return null;
  return { head, base: { tree: head.tree, head: head.id, email: '', time: 0 } };
}

const BLOB = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const NUMSTAT = /^(\d+|-)\t(\d+|-)\t(.+)$/s;
const RAW = /^:\d{6} \d{6} ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*$/;

interface Row {
  path: string;
  added: number;
  removed: number;
  /** The path's blob in the baseline (zeros: none). */
  was: string;
  /** Its blob now (zeros: deleted). */
  now: string;
}

/** `--raw --numstat -z` output: each path with its line counts and the blob it had before. */
function rawNumstat(out: string): Row[] {
  const was = new Map<string, [string, string]>();
  const rows: Row[] = [];
  const toks = out.split('\0');
  for (let i = 0; i < toks.length; i++) {
    const raw = RAW.exec(toks[i]!);
    if (raw) {
      was.set(toks[++i] ?? '', [raw[1]!, raw[2]!]);
      continue;
    }
    const m = NUMSTAT.exec(toks[i]!);
    if (m)
      rows.push({
        path: m[3]!,
        added: m[1] === '-' ? 0 : Number(m[1]),
        removed: m[2] === '-' ? 0 : Number(m[2]),
        was: was.get(m[3]!)?.[0] ?? '',
        now: was.get(m[3]!)?.[1] ?? '',
      });
  }
  return rows;
}

/**
 * Of the paths that changed since the baseline, those that are this clone's work: all of them
 * while HEAD has not moved; else those HEAD does not hold as they are now (`uncommitted`, not
 * asked while git is mid-operation), and those that a commit since the baseline's HEAD, made
 * by its author after it was taken, left other than the baseline had them (a git commit of
 * work the memory commit already saw brings nothing new). `log`: the pathspec, as the rows'.
 */
function ownPaths(
  run: Run,
  rows: readonly Row[],
  head: Raw | null,
  base: Baseline,
  busy: boolean,
  uncommitted: () => string[],
  log: readonly string[],
): Set<string> {
  if (!busy && (head?.id ?? null) === base.head) return new Set(rows.map((r) => r.path));
  const own = new Set<string>(busy ? [] : uncommitted());
  if (rows.every((r) => own.has(r.path))) return own;
  if (head && base.email && head.id !== base.head) {
    const was = new Map(rows.map((r) => [r.path, r.was]));
    const range = base.head ? [`${base.head}..${head.id}`] : [head.id];
    let mine = false;
    let time = '';
    const toks = run([
      'log',
      '--no-merges',
      '-z',
      '--no-abbrev',
      '--raw',
      '--format=%x01%ae%x00%at',
      ...range,
      ...log,
    ]).split('\0');
    for (let i = 0; i < toks.length; i++) {
      const tok = toks[i]!.replace(/^\n/, '');
      if (tok.startsWith('\x01')) {
        time = toks[++i] ?? '';
        mine = tok.slice(1).toLowerCase() === base.email && Number(time) >= base.time;
        continue;
      }
      const raw = RAW.exec(tok);
      if (!raw) continue;
      const path = toks[++i] ?? '';
      if (mine && was.has(path) && raw[2] !== was.get(path)) own.add(path);
    }
  }
  return own;
}

export interface GitFiles {
  /** With the blob each had in the work tree's tree (none for a deleted file). */
  files: FileChange[];
  /** The baseline commit to keep once the commit is appended; none while git is mid-operation. */
  tree: string | null;
  /** The work tree's tree, as taken. */
  work: string;
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
    const run = runner(root, TIMEOUT_MS, { GIT_INDEX_FILE: index });
    run(['add', '-A', '--', '.', ':(exclude).GCC']);
    return run(['write-tree']).trim() || null;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The baseline commit for `tree`: HEAD as its parent, this clone's git identity as its author. */
function baselineCommit(root: string, tree: string, head: Raw | null): string | null {
  const args = [
    'commit-tree',
    '--no-gpg-sign',
    tree,
    ...(head ? ['-p', head.id] : []),
    '-m',
    'gctx: work tree at a memory commit',
  ];
  try {
    return runner(root, TIMEOUT_MS)(args).trim() || null;
  } catch {
    /* no git identity here: a baseline all the same, whose author owns no commit */
  }
  try {
    const anon = {
      GIT_AUTHOR_NAME: 'gctx',
      GIT_AUTHOR_EMAIL: 'gctx@invalid',
      GIT_COMMITTER_NAME: 'gctx',
      GIT_COMMITTER_EMAIL: 'gctx@invalid',
    };
    return runner(root, TIMEOUT_MS, anon)(args).trim() || null;
  } catch {
    return null;
  }
}

/** What changed under the project since `branch`'s baseline (or `parent`'s, or HEAD), and the baseline to keep next. */
export function changedSince(repo: GitRepo, root: string, branch: string, parent: string | null): GitFiles | null {
  const tree = workTree(repo, root);
  if (!tree) return null;
  const run = runner(root, TIMEOUT_MS);
  const from = baselineOf(repo, root, branch, parent, TIMEOUT_MS);
  // Mid-operation the work tree is git's, not this clone's: the baseline stays where it was,
  // and the work done meanwhile is counted by the next commit.
  const busy = midOperation(repo);
  const keep = busy ? null : baselineCommit(root, tree, from?.head ?? null);
  if (!keep && !busy) return null;
  const files: FileChange[] = [];
  if (!from || from.base.tree === tree) return { files, tree: keep, work: tree };
  const prefix = relative(repo.top, root).split(sep).join('/');
  const spec = ['--', '.']; // relative to the project, where git runs; paths come back from the top
  try {
    const rows = rawNumstat(
      run([
        'diff-tree',
        '-r',
        '-z',
        '--no-abbrev',
        '--raw',
        '--numstat',
        '--no-renames',
        from.base.tree,
        tree,
        ...spec,
      ]),
    );
    const uncommitted = () =>
      from.head
        ? run(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from.head.tree, tree, ...spec]).split('\0')
        : [];
    const own = ownPaths(run, rows, from.head, from.base, busy, uncommitted, spec);
    for (const r of rows) {
      if (!own.has(r.path)) continue;
      const path = prefix && r.path.startsWith(`${prefix}/`) ? r.path.slice(prefix.length + 1) : r.path;
      if (path === '.GCC' || path.startsWith('.GCC/')) continue;
      files.push({
        path: shown(path),
        added: r.added,
        removed: r.removed,
        ...(BLOB.test(r.now) ? { blob: r.now } : {}),
      });
    }
  } catch {
    /* git failed: none from git this time */
  }
  return { files, tree: keep, work: tree };
}

/**
 * A commit's cited files with the blob each has in the work tree's tree as COMMIT took it
 * (git's own rows carry theirs; hook-logged and `--files` paths are asked of git in one
 * `ls-tree`), so reads can tell when a file changed since (context/stale.ts). A path git does
 * not hold (ignored, deleted, a folder) gets none.
 */
export function citeBlobs(root: string, git: GitFiles, events: readonly Placed[]): Placed[] {
  const known = new Map(git.files.filter((f) => f.blob).map((f) => [f.path, f.blob!]));
  const cited = events.flatMap((e) => (e.type === 'commit.recorded' ? e.data.files.map((f) => f.path) : []));
  const ask = cited.filter((p) => !known.has(p) && p !== '.GCC' && !p.startsWith('.GCC/'));
  if (ask.length) {
    try {
      const out = runner(
        root,
        TIMEOUT_MS,
      )(['ls-tree', '-z', '--no-abbrev', git.work, '--', ...ask.map((p) => `:(literal)${p}`)]);
      for (const line of out.split('\0')) {
        const m = /^\d{6} blob ([0-9a-f]+)\t(.+)$/s.exec(line);
        if (m && BLOB.test(m[1]!)) known.set(m[2]!, m[1]!);
      }
    } catch {
      /* git failed: those files are not checked for staleness */
    }
  }
  if (!known.size) return [...events];
  return events.map((e) =>
    e.type === 'commit.recorded'
      ? {
          ...e,
          data: {
            ...e.data,
            files: e.data.files.map((f) => (known.has(f.path) ? { ...f, blob: known.get(f.path)! } : f)),
          },
        }
      : e,
  );
}

/**
 * What git sees changed in the work tree since `branch`'s baseline (or `parent`'s, or HEAD),
 * with line counts, `.GCC/` left out, counted as COMMIT will count it — but without writing
 * anything to git: untracked files join a scratch index by their content's id only. For status
 * and the briefing, when no hook logged the work. Null outside git or when git fails or is slow.
 */
export function uncommittedSince(
  repo: GitRepo,
  root: string,
  branch: string,
  parent: string | null,
): FileChange[] | null {
  const from = baselineOf(repo, root, branch, parent, READ_TIMEOUT_MS);
  if (!from) return null;
  const dir = mkdtempSync(join(tmpdir(), 'gcc-index-'));
  const index = join(dir, 'index');
  const run = runner(root, READ_TIMEOUT_MS, { GIT_INDEX_FILE: index });
  const spec = ['--', '.', ':(exclude).GCC'];
  try {
    try {
      copyFileSync(join(repo.gitDir, 'index'), index);
    } catch {
      /* no index yet */
    }
    const untracked = run(['ls-files', '-z', '-o', '--exclude-standard', ...spec]);
    if (untracked) run(['update-index', '--add', '--info-only', '-z', '--stdin'], untracked);
    const rows = rawNumstat(
      run(['diff', '-z', '--no-abbrev', '--raw', '--numstat', '--no-renames', '--relative', from.base.tree, ...spec]),
    );
    if (!rows.length) return [];
    const uncommitted = () =>
      from.head
        ? run(['diff', '--name-only', '-z', '--no-renames', '--relative', from.head.tree, ...spec]).split('\0')
        : [];
    const own = ownPaths(run, rows, from.head, from.base, midOperation(repo), uncommitted, ['--relative', ...spec]);
    return rows
      .filter((r) => own.has(r.path))
      .map((r) => ({ path: shown(r.path), added: r.added, removed: r.removed }));
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Keep the baseline under the branch's ref, for the next commit to count from. */
export function recordTree(repo: GitRepo, root: string, branch: string, baseline: string): void {
  try {
    runner(root, TIMEOUT_MS)(['update-ref', treeRef(repo, root, branch), baseline]);
  } catch {
    /* the next commit counts from HEAD instead */
  }
}
