/**
 * What `gctx serve` keeps in `.GCC/.local/` (which git never sees): `serve.token`, made once and
 * kept so an exported GCC_SERVE_TOKEN stays good; `serve.json`, the running daemon, written once
 * it listens and removed when it stops; `serve.lock`, held for the daemon's life. Written whole,
 * mode 0600, and trusted only as files this clone made (`notOwn`, `tracked`): git checks out a
 * file someone force-added, so a token that came with a clone is one its author knows, and a
 * state file could name any pid to signal. Such a token is made anew; such a state file counts
 * as absent.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, lstatSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { findRepo, gitPath, runGit } from '../../store/git-probe.js';
import { assertNoSymlink, layout } from '../../store/paths.js';
import { makeFolders } from '../../store/project-folder.js';

/** The running daemon, as `serve.json` holds it. */
const ServeState = z.object({
  pid: z.number(),
  port: z.number(),
  /** The daemon's origin with a trailing slash: `http://127.0.0.1:PORT/`. */
  url: z.string(),
  token: z.string(),
  startedAt: z.string(),
});
export type ServeState = z.infer<typeof ServeState>;

const OWNER_ONLY = 0o600;

export function serveFiles(root: string): { dir: string; token: string; state: string; lock: string } {
  const local = layout(root).local;
  const at = (name: string) => join(local, name);
  return { dir: local, token: at('serve.token'), state: at('serve.json'), lock: at('serve.lock') };
}

/**
 * Why the file at `path` is not one this clone made for itself, or null when it is: a real
 * file (not a link), this user's, readable and writable by them only, with no other name.
 * (Git writes files with the mode its umask gives, 0600 under umask 077: `tracked` is the
 * question only git answers.)
 */
function notOwn(path: string): string | null {
  const st = lstatSync(path);
  if (!st.isFile()) return st.isSymbolicLink() ? 'it is a symbolic link' : 'it is not a regular file';
  if (st.nlink !== 1) return 'it has other names (hard links)';
  // Owners and modes as POSIX has them (Windows reports neither).
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  if (st.uid !== uid) return `it belongs to user ${st.uid}`;
  if ((st.mode & 0o777) !== OWNER_ONLY)
    return `its mode is ${(st.mode & 0o777).toString(8).padStart(4, '0')}, not 0600`;
  return null;
}

/** Whether git's index holds `path` (false outside git, or when git cannot say). */
function tracked(root: string, path: string): boolean {
  const repo = findRepo(root);
  if (!repo) return false;
  try {
    return runGit(root, ['ls-files', '-z', '--', gitPath(root, path)]).length > 0;
  } catch {
    return false;
  }
}

/** Replaces `path` with `text` in one step, readable by its owner only. */
function writePrivate(root: string, path: string, text: string): void {
  // A link in place of .local/ would take the file wherever it leads (one at the file's own
  // name is replaced by the rename, never written through).
  assertNoSymlink(root, path, undefined, false);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`;
  const fd = openSync(tmp, 'wx', OWNER_ONLY);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  // A umask cannot widen a mode given at creation, but an inherited file could be wider.
  chmodSync(tmp, OWNER_ONLY);
  renameSync(tmp, path);
}

const TOKEN = /^[0-9a-f]{64}$/;

/**
 * The memory's serve token, made (256 random bits) on first use, and made again when the file
 * there is not one this clone made (`notOwn`, or git tracks it: it came with the clone, so
 * others know it). `replaced` hears why, for the person to export the new one.
 */
export function ensureToken(root: string, replaced?: (why: string) => void): string {
  const f = serveFiles(root);
  let why: string | null = null;
  try {
    why =
      notOwn(f.token) ??
      (tracked(root, f.token) ? 'git tracks it (it came with the repository, so others know it)' : null);
    const token = readFileSync(f.token, 'utf8').trim();
    if (!why && TOKEN.test(token)) return token;
    why ??= 'it does not hold a token';
  } catch {
    // Missing: made below. Unreadable: replaced below.
  }
  makeFolders(f.dir);
  const token = randomBytes(32).toString('hex');
  writePrivate(root, f.token, `${token}\n`);
  if (why)
    replaced?.(
      `${f.token} was not used as the token (${why}): a new one was made; set GCC_SERVE_TOKEN from it ` +
        'again, and untrack the file if git tracks it (git rm --cached)',
    );
  return token;
}

export function readState(root: string): ServeState | null {
  const path = serveFiles(root).state;
  try {
    // A state file this clone did not write names no daemon of its own.
    if (notOwn(path)) return null;
    return ServeState.safeParse(JSON.parse(readFileSync(path, 'utf8'))).data ?? null;
  } catch {
    return null;
  }
}

export function writeState(root: string, state: ServeState): void {
  const f = serveFiles(root);
  makeFolders(f.dir);
  writePrivate(root, f.state, `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes the state file if it still names `pid` (a daemon that took over keeps its own). */
export function removeState(root: string, pid: number): void {
  const s = readState(root);
  if (s && s.pid !== pid) return;
  try {
    unlinkSync(serveFiles(root).state);
  } catch {
    /* already gone */
  }
}

/** The process runs (a zombie, exited but not yet reaped by its parent, does not). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): the signal test is all there is
  }
}

/**
 * The port a memory's daemon takes when none is named: the same every time for the same
 * project folder (so installed HTTP hook settings keep working across restarts), spread over
 * 20000–29999 so that daemons of different projects rarely meet.
 */
export function defaultPort(root: string): number {
  // FNV-1a over the folder's path.
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(root, 'utf8')) {
    h ^= ch;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 20000 + (h % 10000);
}

export const originOf = (port: number): string => `http://127.0.0.1:${port}`;

/** The address a person opens: it carries the token once; the daemon trades it for a cookie. */
export const pageUrl = (port: number, token: string): string => `${originOf(port)}/?token=${token}`;
