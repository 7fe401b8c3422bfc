/**
 * CRC-32 as zlib computes it, over bytes or a string's UTF-8, continuing from `initial`:
 * crc32(b, crc32(a)) is the CRC of a followed by b. Node's own, taken when first called, so a
 * process that checks nothing does not load zlib.
 */
import { zlib } from '../runtime/lazy-deps.js';

export const crc32 = (data: Uint8Array | string, initial = 0): number => zlib().crc32(data, initial);
