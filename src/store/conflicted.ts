/**
 * Whether a log file holds the conflict markers git leaves (`<<<<<<<` and `>>>>>>>` lines), read
 * a window at a time: a file of any size is looked through without being held whole, since the
 * file being asked about is one that failed to read as a log and may be anything.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { WINDOW } from './window.js';

const OPEN = Buffer.from('\n<<<<<<<', 'latin1');
const CLOSE = Buffer.from('\n>>>>>>>', 'latin1');

/** A marker at a line start, then a space or the line's end (at the window's end: only at the file's). */
function found(view: Buffer, marker: Buffer, eof: boolean): boolean {
  for (let at = view.indexOf(marker); at !== -1; at = view.indexOf(marker, at + 1)) {
    const after = view[at + marker.length];
    if (after === undefined ? eof : after === 0x20 || after === 0x0a) return true;
  }
  return false;
}

export function fileHasConflictMarkers(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  // Each window starts with the last bytes of the one before (a marker and the byte after it),
  // so a marker cut between two is seen whole; a newline stands before the file's first byte.
  const keep = OPEN.length + 1;
  const buf = Buffer.alloc(keep + WINDOW);
  buf[0] = 0x0a;
  let have = 1;
  let opened = false;
  let closed = false;
  try {
    for (let pos = 0; ; ) {
      const n = readSync(fd, buf, have, WINDOW, pos);
      const eof = n === 0;
      const view = buf.subarray(0, have + n);
      opened ||= found(view, OPEN, eof);
      closed ||= found(view, CLOSE, eof);
      if (opened && closed) return true;
      if (eof) return false;
      pos += n;
      const carry = Math.min(keep, view.length);
      buf.copyWithin(0, view.length - carry, view.length);
      have = carry;
    }
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
