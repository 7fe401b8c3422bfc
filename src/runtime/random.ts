/**
 * Random hex for ids, nonces and file names, drawn from a pool filled 4 KiB at a time: every
 * event id needs a few random bytes, and asking the system's generator for each costs more
 * than the rest of building the id.
 */
import { crypto } from './lazy-deps.js';

const pool = Buffer.alloc(4096);
let used = pool.length;

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  if (bytes > pool.length) throw new RangeError('randomHex: at most 4096 bytes');
  if (used + bytes > pool.length) {
    crypto().randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}
