/**
 * Writing and comparing whole text files through one reused buffer. Projections run to
 * megabytes (commit.md of a long main branch), and on these machines encoding them into
 * fresh memory costs several times the write itself; the same goes for decoding a file
 * only to compare it with a string.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, writeSync } from 'node:fs';

/** Characters encoded per step: at most 3 bytes each in UTF-8, so a step fits the buffer. */
const STEP = 256 * 1024;
let scratch: Buffer | null = null;
let other: Buffer | null = null;

function buffers(): [Buffer, Buffer] {
  scratch ??= Buffer.allocUnsafe(STEP * 3);
  other ??= Buffer.allocUnsafe(STEP * 3);
  return [scratch, other];
}

/** Calls `fn` with successive UTF-8 pieces of `text`, never splitting a surrogate pair. */
function eachPiece(text: string, fn: (bytes: Buffer) => boolean | void): boolean {
  const [buf] = buffers();
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + STEP);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const n = buf.write(text.slice(i, end), 0, 'utf8');
    if (fn(buf.subarray(0, n)) === false) return false;
    i = end;
  }
  return true;
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** Write `text` to `path` (created or truncated). */
export function writeText(path: string, text: string): void {
  const fd = openSync(path, 'w');
  try {
    eachPiece(text, (bytes) => writeAll(fd, bytes));
  } finally {
    closeSync(fd);
  }
}

let counter = 0;
/** Through a temporary file and a rename, so a reader never sees half a file. */
export function writeTextAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}-${++counter}`;
  writeText(tmp, text);
  renameSync(tmp, path);
}

function readFull(fd: number, buf: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Whether the file at `path` holds exactly `text` (false when it is missing). */
export function sameText(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    if (fstatSync(fd).size !== Buffer.byteLength(text, 'utf8')) return false;
    const [, disk] = buffers();
    let position = 0;
    return eachPiece(text, (bytes) => {
      const got = readFull(fd, disk, bytes.length, position);
      position += got;
      return got === bytes.length && disk.compare(bytes, 0, bytes.length, 0, got) === 0;
    });
  } finally {
    closeSync(fd);
  }
}
