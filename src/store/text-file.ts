/**
 * Writing and comparing whole text files through one reused buffer. Projections run to
 * megabytes (commit.md of a long main branch), and on these machines encoding them into
 * fresh memory costs several times the write itself; the same goes for decoding a file
 * only to compare it with a string.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { readFull } from './read-log.js';

/** Characters encoded per step: at most 3 bytes each in UTF-8, so a step fits the buffer. */
const STEP = 256 * 1024;
let scratch: Buffer | null = null;
let other: Buffer | null = null;

function buffers(): [Buffer, Buffer] {
  scratch ??= Buffer.allocUnsafe(STEP * 3);
  other ??= Buffer.allocUnsafe(STEP * 3);
  return [scratch, other];
}

/**
 * A file's text, whole or as parts to be concatenated (commit.md of a long branch is ten
 * thousand entries: joining them first would build one more large string per write).
 */
export type Text = string | readonly string[];

export function joined(text: Text): string {
  return typeof text === 'string' ? text : text.join('');
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

function partsOf(text: Text): readonly string[] {
  if (typeof text === 'string') return [text];
  // A pair split across two parts must be encoded as one character: join such text.
  return text.some((p) => p.length > 0 && isHigh(p.charCodeAt(p.length - 1))) ? [text.join('')] : text;
}

/** Calls `fn` with successive UTF-8 pieces of `text`, never splitting a surrogate pair. */
function eachPiece(text: Text, fn: (bytes: Buffer) => boolean | void): boolean {
  const [buf] = buffers();
  let used = 0;
  const flush = (): boolean => {
    if (used === 0) return true;
    const ok = fn(buf.subarray(0, used)) !== false;
    used = 0;
    return ok;
  };
  for (const part of partsOf(text)) {
    for (let i = 0; i < part.length; ) {
      let end = Math.min(part.length, i + STEP);
      if (end < part.length && isHigh(part.charCodeAt(end - 1))) end--;
      if (used + (end - i) * 3 > buf.length && !flush()) return false;
      used += buf.write(i === 0 && end === part.length ? part : part.slice(i, end), used, 'utf8');
      i = end;
    }
  }
  return flush();
}

/** Encoded length of `text` in bytes. */
export function byteLength(text: Text): number {
  let n = 0;
  for (const part of partsOf(text)) n += Buffer.byteLength(part, 'utf8');
  return n;
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** Write `text` to `path` (created or truncated). */
export function writeText(path: string, text: Text): void {
  const fd = openSync(path, 'w');
  try {
    eachPiece(text, (bytes) => writeAll(fd, bytes));
  } finally {
    closeSync(fd);
  }
}

let counter = 0;
/** `text` in a new temporary file beside `path`; returns its path. */
function writeTemp(path: string, text: Text): string {
  const tmp = `${path}.tmp-${process.pid}-${++counter}`;
  writeText(tmp, text);
  return tmp;
}

/** Through a temporary file and a rename, so a reader never sees half a file. */
export function writeTextAtomic(path: string, text: Text): void {
  renameSync(writeTemp(path, text), path);
}

/**
 * Replace a file the reader can rebuild (a projection): through a temporary file, but the
 * old file is removed before the rename. Renaming over an existing file makes ext4 flush
 * the new file's data first (auto_da_alloc), ~0.25 ms a file here, several times the
 * write. The price: a reader may find the file missing for a moment, and a crash may
 * leave it missing or empty (its data never flushed) — which gctx takes as a projection
 * to rebuild, never as a person's edit.
 */
export function replaceText(path: string, text: Text): void {
  const tmp = writeTemp(path, text);
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
  }
  renameSync(tmp, path);
}

/**
 * Overwrite a small file in place, cutting it to length after: no truncation to zero first,
 * which like a rename over it would make ext4 flush it. A reader racing the write can see
 * new text followed by old; the caller's format must reject that (JSON does).
 */
export function overwriteText(path: string, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
    fd = openSync(path, 'wx');
  }
  try {
    writeAll(fd, bytes);
    if (fstatSync(fd).size > bytes.length) ftruncateSync(fd, bytes.length);
  } finally {
    closeSync(fd);
  }
}

/** Whether the file at `path` holds exactly `text` (false when it is missing). */
export function sameText(path: string, text: Text): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    if (fstatSync(fd).size !== byteLength(text)) return false;
    const [, disk] = buffers();
    let position = 0;
    return eachPiece(text, (bytes) => {
      const got = readFull(fd, disk, 0, bytes.length, position);
      position += got;
      return got === bytes.length && disk.compare(bytes, 0, bytes.length, 0, got) === 0;
    });
  } finally {
    closeSync(fd);
  }
}
