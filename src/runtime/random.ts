/**
 * Random hex for ids, nonces and file names, drawn from a pool filled 4 KiB at a time: every
 * event id needs a few random bytes, and asking the system's generator for each costs more
 * than the rest of building the id.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { crypto } from './lazy-deps.js';

const pool = Buffer.alloc(4096);
let used = pool.length;

/**
 * Fills the pool from the system's generator: the kernel's, read from /dev/urandom where there
 * is one (a process that logs one call would otherwise load node:crypto for it, which costs more
 * than the call), else node:crypto's.
 */
function refill(): void {
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      if (readSync(fd, pool, 0, pool.length, null) === pool.length) return;
    } finally {
      closeSync(fd);
    }
  } catch {
    // No /dev/urandom (Windows, some sandboxes).
  }
  crypto().randomFillSync(pool);
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  if (bytes > pool.length) throw new RangeError('randomHex: at most 4096 bytes');
  if (used + bytes > pool.length) {
    refill();
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}
