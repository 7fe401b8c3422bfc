/**
 * One log file on disk — a segment under `.GCC/events/`, or the clone's local log — and what
 * is known of it (its meta, log-meta.ts): reads, the first read of a log new to this clone,
 * appends, and taking back or setting aside bytes past what is known. Events are not kept: a
 * file is read, its events handed to the caller, and read again only when a query needs them.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { parseBytes } from '../log/codec.js';
import { crc32 } from '../log/crc32.js';
import { EntryParser } from '../log/parser.js';
import { type CursorSource, type EventCursor, LogCursor } from './cursor.js';
import type { Journal } from './journal.js';
import { emptyMeta, type LogMeta, note, statSignature } from './log-meta.js';
import { assertNoSymlink, openNoFollow } from './paths.js';
import { eachWindow, type LogWindow } from './window.js';

/** A log larger than this was not written by gctx (segments roll over at ~1 MiB). */
export const MAX_LOG_BYTES = 256 * 1024 * 1024;

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

export function readRange(path: string, from: number, to: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(Math.max(0, to - from));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, from + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

export interface Read {
  events: GccEvent[];
  /** Bytes after the last complete batch: a crash mid-write, or another writer mid-append. */
  tail: number;
}

/** How much of a file is read to find its first event before the file is read whole. */
const PEEK_BYTES = 64 * 1024;

export class LogFile implements CursorSource {
  meta: LogMeta = emptyMeta();
  /**
   * Found on open but not read yet: only its first event id is known (the place it takes in a
   * replay). Its first read (a cursor) reads it whole and takes its meta from that read, so a
   * fresh clone parses each log once.
   */
  unread = false;
  /** Bytes after the last complete batch, found when an unread file was first read whole. */
  unreadTail = 0;

  constructor(
    /** The segment name (`YYYY-MM/….md`) or `local`. */
    readonly name: string,
    readonly path: string,
    /** Path relative to the project, for messages. */
    readonly rel: string,
    private readonly root: string,
  ) {}

  /**
   * The size catch-up found on disk within one locked operation (`op`: Store.operation), so the
   * append that follows in it need not ask again; any write of this process clears it.
   */
  seen: { size: number | null; op: number } | null = null;

  /** The file's current size on disk, or null when it is missing. */
  sizeOnDisk(): number | null {
    try {
      return statSync(this.path).size;
    } catch {
      return null;
    }
  }

  /** Parse the bytes past what is known; complete batches join the meta. `size`: the file's size, when just taken. */
  readNew(now?: number, size: number | null = this.sizeOnDisk()): Read {
    if (size === null || size <= this.meta.size) return { events: [], tail: 0 };
    if (size > MAX_LOG_BYTES)
      throw gccError(
        'E_CORRUPT',
        `${this.rel} is ${size} bytes, more than gctx ever writes to one log`,
        'move it out of .GCC/events/ and run `gctx doctor --repair`',
        { file: this.rel },
      );
    // Through the window: text that is not an entry is refused as soon as it is seen, never read whole.
    const events: GccEvent[] = [];
    const w = eachWindow(
      this.path,
      {
        file: this.rel,
        from: this.meta.size,
        to: size,
        startSeq: this.meta.seq,
        lastId: this.meta.lastId,
        now,
        crcSeed: this.meta.crc,
      },
      (batch) => {
        for (const e of batch) events.push(e);
      },
    );
    this.meta.crc = w.crc;
    this.meta.size = w.validEnd;
    note(this.meta, events);
    return { events, tail: w.tail };
  }

  /**
   * Every event of the file's known prefix, checked against what is known of it (a file
   * that changed under the reader is E_CORRUPT, never half read). Holds the whole file's
   * events: for small logs and tests; readers of any log go through `scan` or `cursor`.
   */
  readAll(now?: number): GccEvent[] {
    const out: GccEvent[] = [];
    this.scan((events) => {
      for (const e of events) out.push(e);
    }, now);
    return out;
  }

  /**
   * The known prefix a window at a time (window.ts), oldest first, held against what is known
   * of it: a file that changed under the reader is E_CORRUPT once the window reaching the
   * change is read, so a caller acts on what it visited only when the scan returns.
   */
  scan(visit: (events: GccEvent[]) => void, now?: number): void {
    const c = this.cursor(now);
    try {
      for (let events = c.next(); events; events = c.next()) if (events.length) visit(events);
    } finally {
      c.close();
    }
  }

  /** A reader of the known prefix, a window at a time, for readers interleaving several logs (the merge by id). */
  cursor(now?: number): EventCursor {
    return new LogCursor(this, now);
  }

  /** The error of a file whose acknowledged bytes are not what was read. */
  changedError() {
    return gccError(
      'E_CORRUPT',
      `${this.rel} changed since it was read (its acknowledged bytes differ)`,
      'run `gctx verify` to see what changed, then `gctx doctor --repair`',
      { file: this.rel },
    );
  }

  /**
   * Mark the file unread, knowing only its first event id (from its first complete batch,
   * checked like every entry). False when that cannot be known from the file's first bytes
   * (damaged, torn, or a first batch larger than the peek): the caller reads it whole.
   */
  defer(now?: number): boolean {
    const size = this.sizeOnDisk();
    if (!size || size > MAX_LOG_BYTES) return false;
    let first: string | undefined;
    try {
      const buf = readRange(this.path, 0, Math.min(size, PEEK_BYTES));
      const p = new EntryParser(this.rel, 0, 0, () => 0, now);
      p.feed(buf, 0, buf.length === size);
      p.finish();
      first = p.events[0]?.id;
    } catch {
      return false;
    }
    if (!first) return false;
    this.meta = emptyMeta();
    this.meta.firstId = first;
    this.unread = true;
    return true;
  }

  /** The end of an unread file's first read: its meta as read, its first event as peeked. */
  firstReadDone(meta: LogMeta, w: LogWindow | null): void {
    const first = this.meta.firstId;
    meta.size = w?.validEnd ?? 0;
    meta.crc = w?.crc ?? 0;
    this.meta = meta;
    this.unread = false;
    this.unreadTail = w?.tail ?? 0;
    if (meta.firstId !== first) {
      throw gccError(
        'E_CORRUPT',
        `${this.rel} changed while it was read (its first entry is not the one read before)`,
        'run the command again; if it persists, run `gctx verify`',
        { file: this.rel },
      );
    }
  }

  /**
   * Read the whole file afresh, a window at a time: the meta is rebuilt from what parses.
   * `prefix`: an acknowledged size, whose bytes' CRC-32 is returned so the caller can hold it
   * against what was acknowledged.
   */
  load(now?: number, prefix = 0): { tail: number; prefixCrc: number } {
    const size = this.sizeOnDisk() ?? 0;
    if (size > MAX_LOG_BYTES)
      throw gccError(
        'E_CORRUPT',
        `${this.rel} is ${size} bytes, more than gctx ever writes to one log`,
        'move it out of .GCC/events/ and run `gctx doctor --repair`',
        { file: this.rel },
      );
    this.unread = false;
    const meta = emptyMeta();
    if (size === 0) {
      this.meta = meta;
      return { tail: 0, prefixCrc: 0 };
    }
    const w = eachWindow(this.path, { file: this.rel, to: size, now, prefix }, (events) => note(meta, events));
    meta.size = w.validEnd;
    meta.crc = w.crc;
    this.meta = meta;
    return { tail: w.tail, prefixCrc: w.prefixCrc };
  }

  /** Events of the known prefix after `offset`, where a snapshot stopped at `seq`/`lastId`. */
  readAfter(offset: number, seq: number, lastId: string, now?: number): GccEvent[] {
    if (offset >= this.meta.size) return [];
    const buf = readRange(this.path, offset, this.meta.size);
    const p = parseBytes(buf, {
      file: this.rel,
      startSeq: seq,
      lastId,
      base: offset,
      lineAt: lineOf(this.path, offset, buf),
      now,
    });
    if (p.validLength !== buf.length) {
      throw gccError(
        'E_CORRUPT',
        `${this.rel} changed while it was read`,
        'run the command again; if it persists, run `gctx verify`',
        { file: this.rel },
      );
    }
    return p.events;
  }

  /** The file's signature as this process's last append left it (signatureOf, without asking again). */
  appendedSig: string | null = null;

  /**
   * Where this clone's own log is copied before each append (journal.ts); null for another writer's, or outside git.
   */
  journal: Journal | null = null;

  /** Write a batch with one write call and fsync it before returning (the acknowledgement). */
  append(text: string, events: readonly GccEvent[], checked?: Set<string>): void {
    const buf = Buffer.from(text, 'utf8');
    // Every append, not only the first: a link put in place of the file or a folder above it
    // while a process runs would take the batch outside the memory. (`checked`: folders found
    // real earlier in the same operation, under the lock.)
    // (The file itself: opened without following a link.)
    assertNoSymlink(this.root, this.path, checked, false);
    this.seen = null;
    const created = this.meta.size === 0 && this.sizeOnDisk() === null;
    if (created) mkdirSync(dirname(this.path), { recursive: true });
    const fd = openNoFollow(this.root, this.path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
    try {
      if (fstatSync(fd).size !== this.meta.size) {
        throw gccError(
          'E_CONFLICT',
          `${this.rel} changed since it was last read`,
          'read the memory again and retry the operation',
        );
      }
      // The copy first: what is acknowledged is durable where no work-tree command reaches.
      this.journal?.append(this.name, this.path, this.meta.size, buf);
      let off = 0;
      try {
        while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
        fsyncSync(fd);
        const st = fstatSync(fd);
        this.appendedSig = statSignature(st);
      } catch (err) {
        // Not acknowledged: take back whatever part reached the file, so an append reported as
        // failed never surfaces later (after a failed fsync the bytes still sit in the cache).
        try {
          this.journal?.truncate(this.name, this.meta.size);
          ftruncateSync(fd, this.meta.size);
          fsyncSync(fd);
        } catch {
          /* left as a torn tail: set aside before the next append or at the next open */
        }
        throw err;
      }
    } finally {
      closeSync(fd);
    }
    if (created) fsyncDir(dirname(this.path));
    this.meta.crc = crc32(buf, this.meta.crc);
    this.meta.size += buf.length;
    note(this.meta, events);
  }

  /**
   * Take back the appends made since `before` (a copy of `meta` then): the file is cut back and
   * fsynced, and what is known of it restored. For a batch written but not yet acknowledged,
   * when the rest of its operation failed; under the lock.
   */
  takeBack(before: LogMeta): void {
    this.seen = null;
    assertNoSymlink(this.root, this.path);
    const fd = openSync(this.path, 'r+');
    try {
      ftruncateSync(fd, before.size);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.journal?.truncate(this.name, before.size);
    Object.assign(this.meta, { ...before, branches: { ...before.branches } });
  }

  /**
   * Move the bytes after the known prefix aside and cut the file back to it. Only for a file
   * this clone writes, under the memory's lock, where a tail cannot be an append in flight.
   */
  quarantine(dir: string, now: Date): string | null {
    const size = this.sizeOnDisk();
    if (size === null || size <= this.meta.size) return null;
    assertNoSymlink(this.root, this.path);
    const tail = readRange(this.path, this.meta.size, size);
    const target = join(
      dir,
      `${this.name.replaceAll('/', '__')}-${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}.md`,
    );
    assertNoSymlink(this.root, target);
    mkdirSync(dir, { recursive: true });
    writeFileSync(target, tail);
    this.journal?.truncate(this.name, this.meta.size);
    const fd = openSync(this.path, 'r+');
    try {
      ftruncateSync(fd, this.meta.size);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return target;
  }
}

/** 1-based line of a file offset, for messages: counts newlines before it. */
function lineOf(path: string, base: number, tail: Buffer): (offset: number) => number {
  return (offset) => {
    const head = readRange(path, 0, Math.min(base, offset));
    let line = 1;
    for (const b of head) if (b === 0x0a) line++;
    for (let i = 0; i < offset - base && i < tail.length; i++) if (tail[i] === 0x0a) line++;
    return line;
  };
}
