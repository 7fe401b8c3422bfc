/**
 * One log.md on disk and the events read from it. Reading is incremental (only bytes past
 * what was already parsed); a file that shrank or was replaced (a git checkout, a merge) is
 * read again from the start and reported as a reset so the caller replays.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, statSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { crc32 } from 'node:zlib';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { assertNoSymlink } from './paths.js';
import { readFull, readLog } from './read-log.js';

export interface RefreshResult {
  added: GccEvent[];
  reset: boolean;
  /** Bytes after the last complete batch: a torn write, or a writer mid-append. */
  tail: string;
}

function readFrom(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    return buf.subarray(0, readFull(fd, buf, 0, length, offset));
  } finally {
    closeSync(fd);
  }
}

export function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* some filesystems refuse directory fsync; the file fsync still stands */
  }
}

/** What a snapshot remembers of a log, to trust its prefix without reading it. */
export interface LogIdentity {
  branch: string;
  size: number;
  ino: number;
  seq: number;
  /** CRC-32 of the (up to) 64 bytes before `size`: catches a file rewritten in place. */
  check: number;
}

export class LogFile {
  private loaded: GccEvent[] = [];
  /** Bytes before this offset were not parsed in this process (trusted from a snapshot). */
  private prefix = 0;
  private prefixSeq = 0;
  private lastSeq = 0;
  size = 0;
  private ino = -1;

  constructor(
    readonly branch: string,
    readonly path: string,
    readonly root: string,
  ) {}

  /** Every event of the log; reads a snapshot-trusted prefix on first use. */
  get events(): GccEvent[] {
    if (this.prefix > 0) {
      const head = readLog(this.path, 0, this.prefix, this.rel, 0);
      if (head.validLength !== this.prefix || head.events.length !== this.prefixSeq) {
        throw gccError('E_CORRUPT', `${this.rel} changed while it was open`, 'run the command again');
      }
      this.loaded = [...head.events, ...this.loaded];
      this.prefix = 0;
    }
    return this.loaded;
  }

  get seq(): number {
    return this.lastSeq;
  }

  /**
   * The CRC of the 64 bytes before `size` when this process already knows it (it checked or
   * wrote them): a snapshot names every log, and reading each one's tail again on every
   * snapshot write cost a file open per branch.
   */
  private knownTail: { size: number; check: number } | null = null;

  private tailCheck(size: number): number {
    if (this.knownTail?.size === size) return this.knownTail.check;
    const n = Math.min(64, size);
    const check = n === 0 ? 0 : crc32(readFrom(this.path, size - n, n));
    this.knownTail = { size, check };
    return check;
  }

  identity(): LogIdentity {
    return { branch: this.branch, size: this.size, ino: this.ino, seq: this.lastSeq, check: this.size > 0 ? this.tailCheck(this.size) : 0 };
  }

  /** Trust a snapshot's view of this log if the file still starts with what it saw. */
  restore(id: LogIdentity): boolean {
    let st;
    try {
      st = statSync(this.path);
    } catch {
      return id.size === 0;
    }
    this.knownTail = null;
    if (st.ino !== id.ino || st.size < id.size || this.tailCheck(id.size) !== id.check) return false;
    this.loaded = [];
    this.prefix = id.size;
    this.prefixSeq = id.seq;
    this.lastSeq = id.seq;
    this.size = id.size;
    this.ino = id.ino;
    return true;
  }

  /**
   * Take the outcome of reading the file elsewhere (a streamed replay) without keeping its
   * events: they are read again on first use, as after a snapshot.
   */
  markRead(validLength: number, lastSeq: number, ino: number): void {
    this.knownTail = null;
    this.loaded = [];
    this.prefix = validLength;
    this.prefixSeq = lastSeq;
    this.lastSeq = lastSeq;
    this.size = validLength;
    this.ino = ino;
  }

  get rel(): string {
    return relative(this.root, this.path);
  }

  /** Whether the file is no longer what was last read of it (by size and inode). */
  changedOnDisk(): boolean {
    try {
      const st = statSync(this.path);
      return st.size !== this.size || (this.ino !== -1 && st.ino !== this.ino);
    } catch {
      return this.size > 0;
    }
  }

  refresh(): RefreshResult {
    let st;
    try {
      st = statSync(this.path);
    } catch {
      const reset = this.size > 0;
      this.knownTail = null;
      this.loaded = [];
      this.prefix = 0;
      this.lastSeq = 0;
      this.size = 0;
      this.ino = -1;
      return { added: [], reset, tail: '' };
    }
    if ((this.ino !== -1 && st.ino !== this.ino) || st.size < this.size) {
      this.knownTail = null;
      this.prefix = 0;
      this.ino = st.ino;
      const whole = readLog(this.path, 0, st.size, this.rel, 0);
      this.loaded = whole.events;
      this.lastSeq = whole.events.length ? whole.events[whole.events.length - 1]!.seq : 0;
      this.size = whole.validLength;
      return { added: [], reset: true, tail: whole.tail };
    }
    this.ino = st.ino;
    if (st.size === this.size) return { added: [], reset: false, tail: '' };
    const chunk = readLog(this.path, this.size, st.size - this.size, this.rel, this.lastSeq);
    if (chunk.validLength > 0) this.knownTail = null;
    for (const e of chunk.events) this.loaded.push(e);
    if (chunk.events.length) this.lastSeq = chunk.events[chunk.events.length - 1]!.seq;
    this.size += chunk.validLength;
    return { added: chunk.events, reset: false, tail: chunk.tail };
  }

  /**
   * Move a torn tail aside and cut the log back to its last complete batch. Only called
   * under the memory's lock, where a tail cannot be another writer's append in flight.
   */
  quarantine(dir: string, now: Date): string | null {
    const st = statSync(this.path);
    if (st.size <= this.size) return null;
    const tail = readFrom(this.path, this.size, st.size - this.size);

    const name = `${this.branch.replaceAll('/', '__')}-${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}.md`;
    const target = join(dir, name);
    assertNoSymlink(this.root, target);
    mkdirSync(dir, { recursive: true });
    writeFileSync(target, tail);
    const fd = openSync(this.path, 'r+');
    try {
      ftruncateSync(fd, this.size);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return target;
  }

  /** Create the file empty if missing: a new branch gets its log.md at once, as the skill lays out. */
  touch(): void {
    if (existsSync(this.path)) return;
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, '', { flag: 'a' });
  }

  /** Write a batch with one write call and fsync it before returning (the acknowledgement). */
  append(text: string, events: readonly GccEvent[]): void {
    const buf = Buffer.from(text, 'utf8');
    const created = this.size === 0;
    if (created) mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, 'a');
    try {
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      fsyncSync(fd);
      this.ino = fstatSync(fd).ino;
    } catch (err) {
      // Not acknowledged: take back whatever part reached the file, so an append reported as
      // failed never surfaces later (after a failed fsync the bytes still sit in the cache).
      try {
        ftruncateSync(fd, this.size);
        fsyncSync(fd);
      } catch {
        /* left as a torn tail: quarantined before the next append or at the next open */
      }
      throw err;
    } finally {
      closeSync(fd);
    }
    if (created) fsyncDir(dirname(this.path));
    this.size += buf.length;
    this.knownTail = buf.length >= 64 ? { size: this.size, check: crc32(buf.subarray(buf.length - 64)) } : null;
    for (const e of events) this.loaded.push(e);
    if (events.length) this.lastSeq = events[events.length - 1]!.seq;
  }
}
