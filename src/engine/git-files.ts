/**
 * Files touched since the branch's last memory commit, as git tells, for COMMIT's "Files
 * touched" when no hook logged the edits (a CLI or skill-only agent).
 *
 * A commit keeps the branch's baseline in `.GCC/.local/cache/baseline.json` (this work tree's
 * own: it never travels, and a second git worktree keeps its own): HEAD as it stood, the time,
 * and each path that differed from HEAD then (tracked changes and untracked files, `.GCC/` left
 * out) with the git blob of its content, written to git's object store as `git hash-object -w`
 * would, so that later counts and stale checks can read it. A branch's first commit starts
 * from its parent's baseline, else from HEAD.
 *
 * A commit asks git once: `git status` (what differs from HEAD now, untracked files included,
 * with HEAD's blob of each). A path counts when its content, hashed here as git would, differs
 * from what the baseline had: the blob it kept, else HEAD's; lines are counted here between
 * the two (a blob git keeps packed is read by one `git cat-file`). Only after HEAD moved is
 * `git diff <the baseline's HEAD>` asked too. Of those paths, what git commits brought that
 * was not this clone's work is left out: when HEAD moved since (a pull, a merge, a switch of
 * git branch, a rebase), a path
 * counts only if it differs from HEAD now (work not committed to git yet) or a non-merge
 * commit since the baseline's HEAD, authored by this clone's git identity after the baseline
 * was taken, changed it. While a merge, rebase, cherry-pick or revert is under way, only those
 * authored commits count, and the baseline is not moved. Outside git, or when git fails or is
 * slow, there are none (hooks and `--files` still count). Git runs from PATH with an argument
 * vector and safeGit's options; nothing in the project chooses what runs.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { FileChange, Placed } from '../events/types.js';
import { readBlobs, gitEnv } from '../store/git-blobs.js';
import { type GitRepo, gitProgram, headOf, midOperation, safeGit } from '../store/git-probe.js';
import { assertNoSymlink } from '../store/paths.js';
import { overwriteText } from '../store/text-file.js';
import { countLines, gitHash, safePath, statOf } from '../context/stale.js';
import { childProcess, zlib } from '../runtime/lazy-deps.js';
import { randomHex } from '../runtime/random.js';

/** A file name as a reader sees it: control characters (a name can hold a line break) shown as `?`. */
const shown = (path: string): string => path.replace(/[\u0000-\u001f\u007f]/g, '?');

const TIMEOUT_MS = 15_000;
/** How long a read (status, the briefing) waits for git before going on without it. */
const READ_TIMEOUT_MS = 3_000;

const BLOB = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const NUMSTAT = /^(\d+|-)\t(\d+|-)\t(.+)$/s;
const RAW = /^:\d{6} \d{6} ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*$/;

/** Where the files since a memory commit are counted from. */
interface Baseline {
  /** HEAD when it was taken (null: no commit yet). */
  head: string | null;
  /** When (seconds): git commits of this clone's identity after it are this clone's work. */
  time: number;
  /** Each path (from the repository's top) that differed from HEAD then: its blob, null when deleted. */
  files: Record<string, string | null>;
}

interface GitFiles {
  /** With the blob each has in the work tree (none for a deleted file). */
  files: FileChange[];
  /** The baseline to keep once the commit is appended; none while git is mid-operation. */
  next: Baseline | null;
  /** The repository's hash. */
  algo: Algo;
}

interface Row {
  added: number;
  removed: number;
  /** The path's blob at the baseline's HEAD (zeros: none). */
  was: string;
}

/** `--raw --numstat -z` output: each path with its line counts and the blob it had before. */
function rawNumstat(out: string): Map<string, Row> {
  const was = new Map<string, string>();
  const rows = new Map<string, Row>();
  const toks = out.split('\0');
  for (let i = 0; i < toks.length; i++) {
    const raw = RAW.exec(toks[i]!.replace(/^\n/, ''));
    if (raw) {
      was.set(toks[++i] ?? '', raw[1]!);
      continue;
    }
    const m = NUMSTAT.exec(toks[i]!.replace(/^\n/, ''));
    if (m)
      rows.set(m[3]!, {
        added: m[1] === '-' ? 0 : Number(m[1]),
        removed: m[2] === '-' ? 0 : Number(m[2]),
        was: was.get(m[3]!) ?? '',
      });
  }
  return rows;
}

/**
 * `status --porcelain=v2 -z` output: each path that differs from HEAD, with the blob HEAD has
 * of it ('' when untracked; zeros when HEAD has none).
 */
function statusPaths(out: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const tok of out.split('\0')) {
    if (tok.startsWith('? ')) paths.set(tok.slice(2), '');
    else if (tok.startsWith('1 ') || tok.startsWith('u ')) {
      const f = tok.split(' ');
      const unmerged = tok[0] === 'u';
      // A submodule's own changes are not files of this project.
      if (f[2]?.startsWith('N')) paths.set(f.slice(unmerged ? 10 : 8).join(' '), unmerged ? '0' : f[6]!);
    }
  }
  return paths;
}

// ---------------------------------------------------------------- git's object store, in-process

type Algo = 'sha1' | 'sha256';

function algoOf(repo: GitRepo, head: string | null): Algo {
  if (head) return head.length === 64 ? 'sha256' : 'sha1';
  try {
    return /objectformat\s*=\s*sha256/i.test(readFileSync(join(repo.commonDir, 'config'), 'utf8')) ? 'sha256' : 'sha1';
  } catch {
    return 'sha1';
  }
}

const loosePath = (repo: GitRepo, id: string) => join(repo.commonDir, 'objects', id.slice(0, 2), id.slice(2));

/** A blob's bytes when git keeps it loose (as written below); null otherwise. */
function readLoose(repo: GitRepo, id: string): Buffer | null {
  try {
    const raw = zlib().inflateSync(readFileSync(loosePath(repo, id)));
    const nul = raw.indexOf(0);
    return raw.subarray(0, nul).toString('latin1').startsWith('blob ') ? raw.subarray(nul + 1) : null;
  } catch {
    return null;
  }
}

/** Store a blob as git does (a loose object, put in place by a link, never replaced); best effort. */
function writeLoose(repo: GitRepo, id: string, body: Buffer): void {
  const path = loosePath(repo, id);
  if (existsSync(path)) return;
  const tmp = join(repo.commonDir, 'objects', `tmp_obj_gctx_${randomHex(6)}`);
  try {
    mkdirSync(join(repo.commonDir, 'objects', id.slice(0, 2)), { recursive: true });
    writeFileSync(tmp, zlib().deflateSync(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body])), {
      mode: 0o444,
      flag: 'wx',
    });
    try {
      linkSync(tmp, path);
    } catch (err) {
      // A file system without hard links: moved into place, as git does there.
      if ((err as { code?: string }).code !== 'EEXIST') renameSync(tmp, path);
    }
  } catch {
    /* another writer put it there, or the store is read-only: the counts and stale checks go without */
  } finally {
    rmSync(tmp, { force: true });
  }
}

const NONE = Buffer.alloc(0);
const lines = (old: Buffer | null, now: Buffer | null) => countLines(old ?? NONE, now ?? NONE) ?? [0, 0];

// ---------------------------------------------------------------- baselines

function baselineFile(cache: string): string {
  return join(cache, 'baseline.json');
}

/** Every branch's baseline as kept; what does not have the expected shape is left out (the file is untrusted). */
function readBaselines(cache: string): Record<string, Baseline> {
  const out: Record<string, Baseline> = Object.create(null);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(baselineFile(cache), 'utf8'));
  } catch {
    return out;
  }
  if (!parsed || typeof parsed !== 'object') return out;
  for (const [branch, b] of Object.entries(parsed as Record<string, Partial<Baseline>>)) {
    if (!b || typeof b.time !== 'number' || !(b.head === null || BLOB.test(String(b.head)))) continue;
    if (!b.files || typeof b.files !== 'object') continue;
    const files: Record<string, string | null> = Object.create(null);
    for (const [p, id] of Object.entries(b.files))
      if (safePath(p) && (id === null || BLOB.test(String(id)))) files[p] = id;
    out[branch] = { head: b.head ?? null, time: b.time, files };
  }
  return out;
}

/** Keep `baseline` as `branch`'s, for its next commit to count from (under the memory's lock). */
export function keepBaseline(root: string, cache: string, branch: string, baseline: Baseline): void {
  try {
    const all = readBaselines(cache);
    all[branch] = baseline;
    assertNoSymlink(root, cache);
    mkdirSync(cache, { recursive: true });
    overwriteText(baselineFile(cache), JSON.stringify(all), root);
  } catch {
    /* a cache: the next commit counts from HEAD instead */
  }
}

// ---------------------------------------------------------------- counting

type Run = (args: readonly string[], timeout: number) => string;

/** No index refresh written back: gctx's own look must not move the index append.ts watches, nor lock it. */
const env = () => gitEnv({ GIT_OPTIONAL_LOCKS: '0' });

function runSync(cwd: string): Run {
  return (args, timeout) =>
    childProcess().execFileSync(gitProgram(cwd), safeGit(args), {
      cwd,
      env: env(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    });
}

const SPEC = ['--', '.', ':(exclude).GCC'];
const STATUS = ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames', ...SPEC];
const diffArgs = (head: string) => ['diff', '-z', '--no-abbrev', '--raw', '--numstat', '--no-renames', head, ...SPEC];

interface Asked {
  repo: GitRepo;
  root: string;
  from: Baseline;
  /** The baseline came from a commit here (false: HEAD, for want of one). */
  kept: boolean;
  head: string | null;
}

/** What to count from: `branch`'s baseline, else `parent`'s, else HEAD as it is. */
function ask(repo: GitRepo, root: string, cache: string, branch: string, parent: string | null): Asked {
  const all = readBaselines(cache);
  const h = headOf(repo);
  const head = h && BLOB.test(h) ? h : null;
  const kept = all[branch] ?? (parent ? all[parent] : undefined);
  return { repo, root, from: kept ?? { head, time: 0, files: {} }, kept: kept !== undefined, head };
}

/** A tree with nothing in it, by the repository's hash. */
const EMPTY_TREE = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};
const ZEROS = /^0+$/;

/** Blobs' bytes: loose ones read here, the others from one `git cat-file`. */
function bodies(repo: GitRepo, root: string, ids: readonly string[], timeout: number): Map<string, Buffer> {
  const got = new Map<string, Buffer>();
  for (const id of ids) {
    const b = readLoose(repo, id);
    if (b) got.set(id, b);
  }
  const packed = ids.filter((id) => !got.has(id));
  try {
    if (packed.length) for (const [id, b] of readBlobs(root, packed, timeout)) got.set(id, b);
  } catch {
    /* not counted in lines */
  }
  return got;
}

/**
 * The files that changed since the baseline, from git's answers, and the baseline to keep
 * next. `diff`: while HEAD is where the baseline left it, none is needed (what the baseline
 * had of a path is the blob it kept, else HEAD's, which status names); after HEAD moved, git's
 * rows since the baseline's HEAD.
 */
function count(a: Asked, status: string, diff: string | null, run: Run, write: boolean, timeout: number): GitFiles {
  const { repo, from } = a;
  const busy = midOperation(repo);
  const algo = algoOf(repo, a.head ?? from.head);
  const dirty = statusPaths(status);
  const rows = diff === null ? null : rawNumstat(diff);
  const prefix = relative(repo.top, a.root).split(sep).join('/');
  const within = (p: string) => !prefix || p.startsWith(`${prefix}/`);
  const now = new Map<string, { blob: string; body: Buffer } | null>();
  const hashed = (p: string) => {
    if (!now.has(p)) {
      const st = statOf(repo.top, p);
      const body = st && st !== 'unread' ? st.read() : null;
      now.set(p, body ? { blob: gitHash(algo, body), body } : null);
    }
    return now.get(p)!;
  };
  /** What the baseline had of a path: a blob ('' none) or git's row since its HEAD; null when unchanged since. */
  const baseOf = (p: string): string | Row | null => {
    if (Object.hasOwn(from.files, p)) return from.files[p] ?? '';
    const h = dirty.get(p);
    if (rows) return rows.get(p) ?? (h === '' ? '' : null);
    if (h === undefined) return null;
    return ZEROS.test(h) ? '' : h;
  };
  const paths = [...new Set([...dirty.keys(), ...(rows?.keys() ?? []), ...Object.keys(from.files)])]
    .filter(within)
    .sort();
  const found: { p: string; base: string | Row; cur: { blob: string; body: Buffer } | null }[] = [];
  for (const p of paths) {
    const base = baseOf(p);
    if (base === null) continue;
    const cur = hashed(p);
    if (typeof base === 'string' && (cur?.blob ?? '') === base) continue;
    found.push({ p, base, cur });
  }
  const ids = found.flatMap((f) => (typeof f.base === 'string' && f.base ? [f.base] : []));
  const old = bodies(repo, a.root, [...new Set(ids)], timeout);
  const changed = new Map<string, FileChange & { was: string }>();
  for (const { p, base, cur } of found) {
    const path = prefix ? p.slice(prefix.length + 1) : p;
    if (path === '.GCC' || path.startsWith('.GCC/')) continue;
    const [added, removed] =
      typeof base !== 'string'
        ? [base.added, base.removed]
        : !base || old.has(base)
          ? lines(old.get(base) ?? null, cur?.body ?? null)
          : [0, 0];
    const was = typeof base === 'string' ? base : base.was;
    changed.set(p, { path: shown(path), added, removed, ...(cur ? { blob: cur.blob } : {}), was });
  }
  const own = ownPaths(a, changed, dirty, busy, run, timeout);
  const files = [...changed].filter(([p]) => own === null || own.has(p)).map(([, { was: _, ...f }]) => f);
  if (busy) return { files, next: null, algo };
  const next: Baseline = { head: a.head, time: Math.floor(Date.now() / 1000), files: {} };
  for (const p of dirty.keys()) {
    if (!within(p)) continue;
    const cur = hashed(p);
    next.files[p] = cur?.blob ?? null;
    // A blob the baseline kept already was written then.
    if (cur && write && from.files[p] !== cur.blob) writeLoose(repo, cur.blob, cur.body);
  }
  return { files, next, algo };
}

/**
 * Of the paths that changed since the baseline, those that are this clone's work (null: all,
 * while HEAD has not moved): those HEAD does not hold as they are now (not asked while git is
 * mid-operation), and those that a commit since the baseline's HEAD, made by this clone's git
 * identity after it was taken, left other than the baseline had them (a git commit of work
 * the memory commit already saw brings nothing new).
 */
function ownPaths(
  a: Asked,
  changed: ReadonlyMap<string, { was: string }>,
  dirty: ReadonlyMap<string, string>,
  busy: boolean,
  run: Run,
  timeout: number,
): Set<string> | null {
  const { from, head } = a;
  if (!busy && head === from.head) return null;
  const own = new Set<string>(busy ? [] : [...changed.keys()].filter((p) => dirty.has(p)));
  if ([...changed.keys()].every((p) => own.has(p)) || !head || !a.kept || head === from.head) return own;
  try {
    const email = /<([^>]*)>/.exec(run(['var', 'GIT_AUTHOR_IDENT'], timeout))?.[1]?.toLowerCase();
    if (!email) return own;
    const range = from.head ? [`${from.head}..${head}`] : [head];
    let mine = false;
    const toks = run(
      ['log', '--no-merges', '-z', '--no-abbrev', '--raw', '--format=%x01%ae%x00%at', ...range, ...SPEC],
      timeout,
    ).split('\0');
    for (let i = 0; i < toks.length; i++) {
      const tok = toks[i]!.replace(/^\n/, '');
      if (tok.startsWith('\x01')) {
        mine = tok.slice(1).toLowerCase() === email && Number(toks[++i] ?? '') >= from.time;
        continue;
      }
      const raw = RAW.exec(tok);
      if (!raw) continue;
      const path = toks[++i] ?? '';
      const c = changed.get(path);
      if (mine && c && raw[2] !== c.was) own.add(path);
    }
  } catch {
    /* git failed: only the work not committed to git counts */
  }
  return own;
}

/** Git's answers (status; the diff since the baseline's HEAD only when HEAD moved), counted. */
function since(a: Asked, write: boolean, timeout: number): GitFiles {
  const run = runSync(a.root);
  const status = run(STATUS, timeout);
  const diff =
    a.head === a.from.head ? null : run(diffArgs(a.from.head ?? EMPTY_TREE[algoOf(a.repo, a.head)]), timeout);
  return count(a, status, diff, run, write, timeout);
}

/**
 * What changed under the project since `branch`'s baseline (or `parent`'s, or HEAD), and the
 * baseline to keep next, its blobs written. Null when git fails.
 */
export function changedSince(
  repo: GitRepo,
  root: string,
  cache: string,
  branch: string,
  parent: string | null,
): GitFiles | null {
  const a = ask(repo, root, cache, branch, parent);
  if (a.head === a.from.head && midOperation(repo)) return { files: [], next: null, algo: algoOf(repo, a.head) };
  try {
    return since(a, true, TIMEOUT_MS);
  } catch {
    return null;
  }
}

/**
 * What git sees changed in the work tree since `branch`'s baseline (or `parent`'s, or HEAD),
 * counted as COMMIT will count it, writing nothing to git: for status and the briefing, when
 * no hook logged the work. Null outside git or when git fails or is slow.
 */
export function uncommittedSince(
  repo: GitRepo,
  root: string,
  cache: string,
  branch: string,
  parent: string | null,
): FileChange[] | null {
  try {
    return since(ask(repo, root, cache, branch, parent), false, READ_TIMEOUT_MS).files.map(({ blob: _, ...f }) => f);
  } catch {
    return null;
  }
}

/**
 * A commit's cited files with the blob each has in the work tree as COMMIT found it (git's own
 * rows carry theirs; hook-logged and `--files` paths are hashed here as git would), so reads
 * can tell when a file changed since (context/stale.ts). A path that is no file (deleted, a
 * folder) or leaves the project gets none.
 */
export function citeBlobs(root: string, git: GitFiles, events: readonly Placed[]): Placed[] {
  const known = new Map(git.files.filter((f) => f.blob).map((f) => [f.path, f.blob!]));
  const blobOf = (path: string): string | undefined => {
    if (known.has(path) || !safePath(path)) return known.get(path);
    const st = statOf(root, path);
    const body = st && st !== 'unread' ? st.read() : null;
    if (body) known.set(path, gitHash(git.algo, body));
    return known.get(path);
  };
  return events.map((e) =>
    e.type === 'commit.recorded'
      ? {
          ...e,
          data: {
            ...e.data,
            files: e.data.files.map((f) => {
              const blob = blobOf(f.path);
              return blob ? { ...f, blob } : f;
            }),
          },
        }
      : e,
  );
}
