/** Writing whole text files the ways the store and the views need. */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { openNoFollow } from './paths.js';

let counter = 0;

/**
 * A new file opened for writing, never through whatever stands at its path (O_EXCL does not
 * follow a link): a temporary name a dead process left (its pid since reused), or a link
 * someone committed there, is removed — the link itself, not what it points at — and the
 * file created again.
 */
export function openFresh(path: string): number {
  try {
    return openSync(path, 'wx');
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
    unlinkSync(path);
    return openSync(path, 'wx');
  }
}

/** A text, or its pieces in order (a large file written without joining it first). */
export type Text = string | readonly string[];

const endsHigh = (p: string) => p.length > 0 && (p.charCodeAt(p.length - 1) & 0xfc00) === 0xd800;

function writeTemp(path: string, text: Text): string {
  const tmp = `${path}.tmp-${process.pid}-${++counter}`;
  const fd = openFresh(tmp);
  try {
    // A surrogate pair split between two pieces must be encoded whole: join such a text.
    if (typeof text === 'string' || text.some(endsHigh)) {
      writeFileSync(fd, typeof text === 'string' ? text : text.join(''));
      return tmp;
    }
    for (const piece of text) {
      const bytes = Buffer.from(piece, 'utf8');
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    }
  } finally {
    closeSync(fd);
  }
  return tmp;
}

/** How much text `writePieces` gathers before it writes. */
const CHUNK = 64 * 1024;

/**
 * A file written from text handed over piece by piece (a large file never held whole), a chunk
 * at a time into a temporary file put in place by a rename; with `replace`, the old file is
 * removed first, as replaceText does. Each chunk is encoded on its own: pieces end on whole
 * characters.
 */
export function writePieces(
  path: string,
  produce: (put: (text: string) => void) => void,
  encode: (text: string) => Buffer = (t) => Buffer.from(t, 'utf8'),
  replace = false,
): void {
  const tmp = `${path}.tmp-${process.pid}-${++counter}`;
  const fd = openFresh(tmp);
  let pending = '';
  const flush = () => {
    const bytes = encode(pending);
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    pending = '';
  };
  try {
    produce((text) => {
      pending += text;
      if (pending.length >= CHUNK) flush();
    });
    flush();
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  if (replace) rmSync(path, { force: true });
  renameSync(tmp, path);
}

/** Through a temporary file and a rename, so a reader never sees half a file. */
export function writeTextAtomic(path: string, text: Text): void {
  renameSync(writeTemp(path, text), path);
}

/**
 * Replace a file the reader can rebuild (a view): through a temporary file, but the old file
 * is removed before the rename, because renaming over a file makes ext4 flush the new data
 * first. The price: a reader may find the file missing for a moment, and a crash may leave it
 * missing or empty — which gctx takes as a view to rebuild, never as a person's edit.
 */
export function replaceText(path: string, text: string): void {
  const tmp = writeTemp(path, text);
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
  }
  renameSync(tmp, path);
}

/**
 * Write a file a reader can rebuild, as a new file: the old one is removed first (no rename,
 * no truncation, neither of which makes ext4 flush). A reader racing it may find the file
 * missing or short — views are caches, and gctx writes them under its lock.
 */
export function freshText(path: string, text: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
  }
  writeFileSync(path, text, { flag: 'wx' });
}

/**
 * Overwrite a small file in place, cutting it to length after (no truncation to zero first,
 * which would make ext4 flush it). A reader racing the write can see new text followed by
 * old; the caller's format must reject that (JSON does). Returns the file's status as written
 * (and cut to length). `root`: the file is
 * refused if it is a symbolic link (openNoFollow; its folders are the caller's to check).
 */
export function overwriteText(path: string, text: string, root?: string): Stats {
  const bytes = Buffer.from(text, 'utf8');
  let fd: number;
  try {
    fd = root === undefined ? openSync(path, 'r+') : openNoFollow(root, path, constants.O_RDWR);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
    fd = openSync(path, 'wx'); // O_EXCL: never through a link
  }
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    const st = fstatSync(fd);
    if (st.size <= bytes.length) return st;
    ftruncateSync(fd, bytes.length);
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file's text, or null when it cannot be read. */
export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Whether the file at `path` holds exactly `text` (false when it is missing). */
export function sameText(path: string, text: string): boolean {
  try {
    if (statSync(path).size !== Buffer.byteLength(text, 'utf8')) return false;
  } catch {
    return false;
  }
  return readText(path) === text;
}
