/**
 * Reading a log through a bounded window. A log is parsed a window of bytes at a time and
 * its events handed out one window's worth at a time, so what a reader holds is one window
 * of bytes and that window's events, whatever the log's length: a replay or `verify` of a
 * long history, the local log of a clone that ran for years, a fresh clone's first check.
 *
 * Only complete batches are handed out. The window grows past WINDOW only when one entry is
 * larger than it. All readers share one buffer: bytes a reader has read but not yet parsed (an
 * entry cut by the window's end) are copied out before another reader uses it, so readers can
 * be interleaved, as the k-way merge of the logs does.
 *
 * A reader also computes the CRC-32 of the complete batches (what the ledger compares) and,
 * when asked, of the file's first `prefix` bytes (an acknowledged size held against the file).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { MAX_ENTRY_READ } from '../events/rules.js';
import type { GccEvent } from '../events/types.js';
import { crc32 } from '../log/crc32.js';
import { EntryParser } from '../log/parser.js';

/** Bytes read at once; a window holds this much of a log plus an entry cut at its end. */
export const WINDOW = 256 * 1024;

/** The buffer every reader reads into; grown (for one huge entry) only for that read. */
let shared: Buffer | null = null;

/**
 * The most any reader held at once since the last reset: for tests that hold the bound
 * (bytes in one window, events of one window, readers open together).
 */
export const windowPeaks = { bytes: 0, events: 0, open: 0, maxOpen: 0, reads: 0 };
export function resetWindowPeaks(): void {
  Object.assign(windowPeaks, { bytes: 0, events: 0, maxOpen: windowPeaks.open, reads: 0 });
}

export interface WindowOptions {
  /** Name for messages. */
  file: string;
  /** File offset to start at (an entry boundary), and the end of what is read. */
  from?: number;
  to: number;
  /** Sequence and id of the entry before `from`. */
  startSeq?: number;
  lastId?: string;
  now?: number;
  /** Also compute the CRC-32 of the file's first `prefix` bytes (`from` must be 0). */
  prefix?: number;
  /** CRC-32 of the bytes before `from`, which `crc` continues. */
  crcSeed?: number;
}

/** 1-based line of a file offset, counted a window at a time (for messages only). */
export function lineInFile(path: string, offset: number): number {
  let line = 1;
  const buf = Buffer.allocUnsafe(Math.min(WINDOW, Math.max(1, offset)));
  const fd = openSync(path, 'r');
  try {
    for (let pos = 0; pos < offset; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, offset - pos), pos);
      if (n === 0) break;
      for (let i = 0; i < n; i++) if (buf[i] === 0x0a) line++;
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
  return line;
}

/** CRC-32 of bytes [from, to) of a file, a window at a time. */
export function crcOfRange(path: string, from: number, to: number, seed = 0): number {
  let crc = seed;
  const buf = Buffer.allocUnsafe(Math.min(WINDOW, Math.max(1, to - from)));
  const fd = openSync(path, 'r');
  try {
    for (let pos = from; pos < to; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
      if (n === 0) break;
      crc = crc32(buf.subarray(0, n), crc);
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
  return crc;
}

/**
 * One pass over bytes [from, to) of a log. `next()` returns the next window's complete
 * batches (possibly empty while a batch spans windows) until it returns null at the end;
 * then `validEnd`, `tail`, `crc` and `prefixCrc` say what was read. A damaged entry throws as
 * the parser does (E_CORRUPT naming file and line). The file is opened for each window, not
 * held open between them: a merge may have many logs under way at once.
 */
export class LogWindow {
  /** File offset where the complete batches end (known at the end). */
  validEnd: number;
  /** Bytes after the complete batches, up to `to` (known at the end). */
  tail = 0;
  /** CRC-32 of bytes [from, validEnd), continuing `crcSeed`. */
  crc = 0;
  /** CRC-32 of the file's first `prefix` bytes, or of all it has when it is shorter. */
  prefixCrc = 0;
  private open = true;
  private readonly parser: EntryParser;
  private readonly from: number;
  private readonly to: number;
  private readonly prefix: number;
  /** Next file offset to read; bytes [parser.consumed, pos) wait in `carry`. */
  private pos: number;
  private carry: Buffer | null = null;
  /** CRC-32 of [from, parser.consumed). */
  private crcConsumed: number;
  private readonly crcSeed: number;
  private done = false;

  constructor(
    private readonly path: string,
    o: WindowOptions,
  ) {
    this.from = o.from ?? 0;
    this.to = o.to;
    this.prefix = o.prefix ?? 0;
    this.pos = this.from;
    this.validEnd = this.from;
    this.crcSeed = o.crcSeed ?? 0;
    this.crcConsumed = this.crcSeed;
    this.parser = new EntryParser(
      o.file,
      o.startSeq ?? 0,
      this.from,
      (offset) => lineInFile(path, offset),
      o.now,
      o.lastId ?? '',
    );
    windowPeaks.open++;
    windowPeaks.maxOpen = Math.max(windowPeaks.maxOpen, windowPeaks.open);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.carry = null;
    windowPeaks.open--;
  }

  /** The next window's complete batches, oldest first; null once the end was reached. */
  next(): GccEvent[] | null {
    if (this.done) return null;
    try {
      return this.step();
    } catch (err) {
      this.close();
      throw err;
    }
  }

  private step(): GccEvent[] {
    const base = this.parser.consumed;
    const kept = this.carry?.length ?? 0;
    let size = WINDOW;
    // An entry larger than a window: read it whole (the window grows for this read only), up to
    // just past the largest entry a reader takes, where the parser refuses it.
    if (kept >= WINDOW) size = Math.min(kept * 2, MAX_ENTRY_READ + WINDOW);
    const want = Math.min(size - kept, this.to - this.pos);
    let buf: Buffer;
    if (size <= WINDOW) {
      if (!shared) shared = Buffer.allocUnsafe(WINDOW);
      buf = shared;
    } else buf = Buffer.allocUnsafe(size);
    if (kept) this.carry!.copy(buf, 0);
    let got = 0;
    const fd = openSync(this.path, 'r');
    try {
      while (got < want) {
        const n = readSync(fd, buf, kept + got, want - got, this.pos + got);
        if (n === 0) break;
        got += n;
      }
    } finally {
      closeSync(fd);
    }
    if (this.prefix > 0 && this.pos < this.prefix) {
      const upto = Math.min(got, this.prefix - this.pos);
      this.prefixCrc = crc32(buf.subarray(kept, kept + upto), this.prefixCrc);
    }
    this.pos += got;
    windowPeaks.reads++;
    windowPeaks.bytes = Math.max(windowPeaks.bytes, kept + got);
    const view = buf.subarray(0, kept + got);
    const eof = this.pos >= this.to || got < want;
    this.parser.feed(view, base, eof);
    this.crcConsumed = crc32(view.subarray(0, this.parser.consumed - base), this.crcConsumed);
    const events = this.parser.take();
    if (eof) this.end();
    else this.carry = Buffer.from(view.subarray(this.parser.consumed - base));
    windowPeaks.events = Math.max(windowPeaks.events, events.length);
    return events;
  }

  private end(): void {
    const consumed = this.parser.consumed;
    this.validEnd = this.parser.finish();
    // An incomplete batch at the end was consumed but is not part of the log's complete batches.
    this.crc =
      this.validEnd === consumed ? this.crcConsumed : crcOfRange(this.path, this.from, this.validEnd, this.crcSeed);
    this.tail = this.pos - this.validEnd;
    this.done = true;
    this.close();
  }
}

/** Every complete batch of bytes [from, to), a window's worth per call of `visit`. */
export function eachWindow(path: string, o: WindowOptions, visit: (events: GccEvent[]) => void): LogWindow {
  const w = new LogWindow(path, o);
  try {
    for (let events = w.next(); events; events = w.next()) if (events.length) visit(events);
  } finally {
    w.close();
  }
  return w;
}
