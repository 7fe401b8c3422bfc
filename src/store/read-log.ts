/**
 * Reading a region of a log.md through one reused buffer. Fresh memory is what makes a
 * large read slow here (page faults, not the copying), so the bytes pass through a window
 * of 1 MiB that grows only for an entry larger than it; only the parsed events stay.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { ParsedLog } from '../log/codec.js';
import { EntryParser } from '../log/parser.js';

const WINDOW = 1 << 20;
/** Kept between reads; a window grown for a huge entry is not kept. */
let spare: Buffer | null = null;

/** Read `length` bytes at `position` into `buf` at `at`, looping over short reads; fewer only at the end of the file. */
export function readFull(fd: number, buf: Buffer, at: number, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, at + got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** 1-based line of a file offset: only for error messages, so it reads the file again. */
export function lineInFile(path: string, offset: number): number {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(Math.min(WINDOW, Math.max(offset, 1)));
    let line = 1;
    for (let pos = 0; pos < offset; ) {
      const n = readFull(fd, buf, 0, Math.min(buf.length, offset - pos), pos);
      if (n === 0) break;
      for (let i = 0; i < n; i++) if (buf[i] === 0x0a) line++;
      pos += n;
    }
    return line;
  } finally {
    closeSync(fd);
  }
}

function readText(fd: number, from: number, to: number): string {
  if (to <= from) return '';
  const buf = Buffer.allocUnsafe(to - from);
  return buf.toString('utf8', 0, readFull(fd, buf, 0, buf.length, from));
}

/**
 * A file fed to a parser a window at a time: what the parser has not taken yet is kept at the
 * front of the window, which widens only for an entry larger than it.
 */
export class LogWindow {
  private base: number;
  private filled = 0;
  done = false;

  /** @param start file offset of the first byte to read; @param end where to stop */
  constructor(
    private buf: Buffer,
    readonly parser: EntryParser,
    start: number,
    readonly end: number,
  ) {
    this.base = start;
  }

  get buffer(): Buffer {
    return this.buf;
  }

  /** File offset just past the bytes read so far. */
  get held(): number {
    return this.base + this.filled;
  }

  /** Read the next window from `fd` and feed it; `done` once the end was fed. */
  step(fd: number): void {
    const keep = this.held - this.parser.consumed;
    if (keep === this.filled && this.filled === this.buf.length) {
      const wider = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(wider, 0, 0, this.filled);
      this.buf = wider;
    } else if (keep < this.filled) {
      this.buf.copy(this.buf, 0, this.filled - keep, this.filled);
      this.base = this.parser.consumed;
      this.filled = keep;
    }
    const want = Math.min(this.buf.length - this.filled, this.end - this.held);
    const got = readFull(fd, this.buf, this.filled, want, this.held);
    this.filled += got;
    this.done = this.held >= this.end || got < want;
    this.parser.feed(this.buf.subarray(0, this.filled), this.base, this.done);
  }
}

/**
 * Parse the bytes of `path` from `offset` for `length` bytes (fewer if the file is shorter),
 * as `parse` would parse them read whole: `validLength` counts from `offset`, and error
 * lines count from the start of the file.
 */
export function readLog(path: string, offset: number, length: number, rel: string, startSeq: number, window = WINDOW): ParsedLog {
  const fd = openSync(path, 'r');
  const parser = new EntryParser(rel, startSeq, offset, (at) => lineInFile(path, at));
  const w = new LogWindow(window === WINDOW && spare ? spare : Buffer.allocUnsafe(window), parser, offset, offset + length);
  if (window === WINDOW) spare = null;
  try {
    while (!w.done) w.step(fd);
    const validEnd = parser.finish();
    return { events: parser.events, validLength: validEnd - offset, tail: readText(fd, validEnd, w.held) };
  } finally {
    closeSync(fd);
    if (w.buffer.length === WINDOW) spare = w.buffer;
  }
}
