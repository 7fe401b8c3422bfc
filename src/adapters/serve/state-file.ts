/**
 * What `gctx serve` keeps on disk, under `.GCC/.local/` (this clone's own folder, which git
 * never sees: `.GCC/.gitignore` ignores everything but events/):
 *
 *   serve.token   the token every request must carry. Made once and kept, so the
 *                 GCC_SERVE_TOKEN a person exported for Claude Code's HTTP hooks stays
 *                 good across restarts.
 *   serve.json    the running daemon: { pid, port, url, token, startedAt }. Written once it
 *                 listens, removed when it stops; a second start reads it to say where the
 *                 first runs.
 *
 * Both are readable by their owner only (mode 0600), written whole (a temporary file renamed
 * into place), and re-checked for their mode each time they are written.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { layout } from '../../store/paths.js';
import { makeFolders } from '../../store/project-folder.js';

export interface ServeState {
  pid: number;
  port: number;
  /** The daemon's origin with a trailing slash: `http://127.0.0.1:PORT/`. */
  url: string;
  token: string;
  startedAt: string;
}

const OWNER_ONLY = 0o600;

export function serveFiles(root: string): { dir: string; token: string; state: string } {
  const local = layout(root).local;
  return { dir: local, token: join(local, 'serve.token'), state: join(local, 'serve.json') };
}

/** Replaces `path` with `text` in one step, readable by its owner only. */
function writePrivate(path: string, text: string): void {
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

/** The memory's serve token, made (256 random bits) on first use. */
export function ensureToken(root: string): string {
  const f = serveFiles(root);
  try {
    const token = readFileSync(f.token, 'utf8').trim();
    if (TOKEN.test(token)) {
      chmodSync(f.token, OWNER_ONLY);
      return token;
    }
  } catch {
    // Missing: made below. Unreadable or malformed: replaced below.
  }
  makeFolders(f.dir);
  const token = randomBytes(32).toString('hex');
  writePrivate(f.token, `${token}\n`);
  return token;
}

export function readState(root: string): ServeState | null {
  try {
    const s = JSON.parse(readFileSync(serveFiles(root).state, 'utf8')) as Partial<ServeState>;
    if (typeof s.pid !== 'number' || typeof s.port !== 'number' || typeof s.url !== 'string' || typeof s.token !== 'string' || typeof s.startedAt !== 'string') return null;
    return s as ServeState;
  } catch {
    return null;
  }
}

export function writeState(root: string, state: ServeState): void {
  const f = serveFiles(root);
  makeFolders(f.dir);
  writePrivate(f.state, `${JSON.stringify(state, null, 2)}\n`);
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
