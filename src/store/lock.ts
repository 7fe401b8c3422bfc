/**
 * Cross-process lock on a memory: an O_EXCL lock file naming its holder (pid, host, the
 * process start time). A lock is stale only when its holder is provably dead on this host
 * (no such pid, or the pid was reused by a process that started later); a live holder's
 * lock is never broken, however long it is held. Breaking a stale lock goes through a
 * second short-lived lock so two breakers cannot remove each other's fresh locks.
 */
import { closeSync, fstatSync, lstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { gccError } from '../errors.js';
import { sleepSync } from '../runtime/sleep.js';

export interface LockHolder {
  pid: number;
  host: string;
  start: string | null;
  at: string;
}

export interface LockOptions {
  /** Give up after this long with E_LOCKED (the holder is alive). */
  timeoutMs?: number;
  /** Called once when a stale lock is taken over, for the caller's warnings. */
  onStale?: (holder: LockHolder) => void;
}

const HOST = hostname();

/** Kernel start time of a process (clock ticks since boot), to tell a reused pid apart. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** This process's own start time, read when it first takes a lock (a process that only reads never does). */
let selfStart: string | null | undefined;
const ownStart = (): string | null => (selfStart === undefined ? (selfStart = processStart(process.pid)) : selfStart);

function isAlive(holder: LockHolder): boolean {
  if (holder.host !== HOST) return true; // cannot see other hosts' processes: never break
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (holder.start === null) return true;
  const now = processStart(holder.pid);
  return now === null || now === holder.start;
}

function readHolder(path: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return typeof parsed.pid === 'number' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Create the lock file naming this process. Returns its descriptor, left open while the lock
 * is held (see FileLock.release), or null when the file exists.
 */
function create(path: string): { fd: number; ino: number } | null {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return null;
    // The folder holding the lock is gone: the memory was removed under an open process.
    if (code === 'ENOENT')
      throw gccError(
        'E_NOT_INITIALIZED',
        `the memory folder of ${path} no longer exists`,
        'run `gctx init` to start a new memory',
      );
    throw err;
  }
  try {
    const holder: LockHolder = { pid: process.pid, host: HOST, start: ownStart(), at: new Date().toISOString() };
    writeSync(fd, JSON.stringify(holder));
    return { fd, ino: fstatSync(fd).ino };
  } catch (err) {
    closeSync(fd);
    unlinkQuiet(path);
    throw err;
  }
}

/** A short-lived lock file (the breaker's): created and closed at once. */
function tryCreate(path: string): boolean {
  const made = create(path);
  if (made) closeSync(made.fd);
  return made !== null;
}

/**
 * How long a lock file may stay without a readable holder before its creator counts as dead (it writes one at once).
 */
const UNREADABLE_STALE_MS = 5_000;

/** Remove `path` if its holder is dead. Returns the dead holder when it did. */
function breakIfStale(path: string): LockHolder | null {
  let holder = readHolder(path);
  // A lock file with no readable holder may be mid-write by a live creator; one that stays
  // unreadable for seconds belongs to a creator that died between open and write.
  if (!holder) {
    const age = ageMs(path);
    if (age === null || age < UNREADABLE_STALE_MS) return null;
    holder = { pid: -1, host: HOST, start: null, at: 'unreadable' };
    unlinkQuiet(path);
    return holder;
  }
  if (isAlive(holder)) return null;
  const breaker = `${path}.break`;
  if (!tryCreate(breaker)) {
    // The breaker's own lock, left by a breaker that died: its holder dead, or never written
    // (killed between its create and its write) and old enough to be past any live breaker.
    const b = readHolder(breaker);
    if (b ? !isAlive(b) : (ageMs(breaker) ?? 0) >= UNREADABLE_STALE_MS) unlinkQuiet(breaker);
    return null;
  }
  try {
    const again = readHolder(path);
    if (again && again.pid === holder.pid && again.at === holder.at && !isAlive(again)) {
      unlinkQuiet(path);
      return holder;
    }
    return null;
  } finally {
    unlinkQuiet(breaker);
  }
}

function ageMs(path: string): number | null {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class FileLock {
  /** The lock file this process created and holds open, or null. */
  private mine: { fd: number; ino: number } | null = null;
  constructor(readonly path: string) {}

  /**
   * One try at the lock: true when this process now holds it; false to wait and try again;
   * E_LOCKED once the deadline has passed with a live holder.
   */
  private attempt(opts: LockOptions, deadline: number): boolean {
    // A second caller in this process while the first holds the lock waits like any other.
    const made = this.mine === null ? create(this.path) : null;
    if (made) {
      this.mine = made;
      return true;
    }
    const dead = breakIfStale(this.path);
    if (dead) {
      opts.onStale?.(dead);
      return this.attempt(opts, deadline);
    }
    if (Date.now() > deadline) {
      const h = readHolder(this.path);
      throw gccError(
        'E_LOCKED',
        `${this.path} is held by process ${h?.pid ?? '?'} on ${h?.host ?? '?'} since ${h?.at ?? '?'}, ` +
          'which is still running',
        'wait for it to finish, or stop that process',
      );
    }
    return false;
  }

  async acquire(opts: LockOptions = {}): Promise<void> {
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    for (let delay = 1; !this.attempt(opts, deadline); delay = Math.min(delay * 2, 25)) {
      await sleep(delay + Math.random() * delay);
    }
  }

  /**
   * The same, blocking the thread while it waits: for work that must stay synchronous (the
   * search cache's feeding) under a lock that is held only briefly.
   */
  acquireSync(opts: LockOptions = {}): void {
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    for (let delay = 1; !this.attempt(opts, deadline); delay = Math.min(delay * 2, 25))
      sleepSync(delay + Math.random() * delay);
  }

  /**
   * Remove the lock file if it is still the one this process created. Its descriptor stays
   * open until then, so its inode cannot be reused: a file at the path with that inode is this
   * process's own, never a lock another process took after breaking this one.
   */
  release(): void {
    const mine = this.mine;
    if (!mine) return;
    this.mine = null;
    let same = false;
    try {
      same = lstatSync(this.path).ino === mine.ino;
    } catch {
      /* gone */
    } finally {
      closeSync(mine.fd);
    }
    if (same) unlinkQuiet(this.path);
  }

  get isHeld(): boolean {
    return this.mine !== null;
  }
}
