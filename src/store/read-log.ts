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
 * Parse the bytes of `path` from `offset` for `length` bytes (fewer if the file is shorter),
 * as `parse` would parse them read whole: `validLength` counts from `offset`, and error
 * lines count from the start of the file.
 */
export function readLog(path: string, offset: number, length: number, rel: string, startSeq: number, window = WINDOW): ParsedLog {
  const fd = openSync(path, 'r');
  let buf = window === WINDOW && spare ? spare : Buffer.allocUnsafe(window);
  if (window === WINDOW) spare = null;
  try {
    const end = offset + length;
    const parser = new EntryParser(rel, startSeq, offset, (at) => lineInFile(path, at));
    let base = offset; // file offset of buf[0]
    let filled = 0;
    for (;;) {
      const want = Math.min(buf.length - filled, end - base - filled);
      const got = want > 0 ? readFull(fd, buf, filled, want, base + filled) : 0;
      filled += got;
      const eof = base + filled >= end || got < want;
      parser.feed(buf.subarray(0, filled), base, eof);
      if (eof) break;
      const keep = base + filled - parser.consumed;
      if (keep === filled) {
        // One entry larger than the window: widen it.
        const wider = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(wider, 0, 0, filled);
        buf = wider;
      } else {
        buf.copy(buf, 0, filled - keep, filled);
        base = parser.consumed;
        filled = keep;
      }
    }
    const validEnd = parser.finish();
    return { events: parser.events, validLength: validEnd - offset, tail: readText(fd, validEnd, base + filled) };
  } finally {
    closeSync(fd);
    if (buf.length === WINDOW) spare = buf;
  }
}
