/**
 * CRC-32 as zlib computes it (IEEE 802.3: polynomial 0xedb88320, reflected, inverted on entry
 * and exit), over bytes or a string's UTF-8, continuing from `initial` as `zlib.crc32(data,
 * initial)` does: crc32(b, crc32(a)) is the CRC of a followed by b.
 *
 * Computed here rather than imported from node:zlib: loading zlib loads Node's streams, which a
 * process otherwise need not load at all (a hook, a status, a --version). Table-driven, sixteen
 * bytes a step. zlib's native one is still faster over bulk data, so once a process has checked
 * more than NATIVE_AFTER bytes here (verify, a replay, a large merge), it hands large inputs to
 * zlib: by then loading it costs less than what it saves on the rest.
 */
import { zlib } from '../runtime/lazy-deps.js';

const NATIVE_AFTER = 16 * 1024 * 1024;
const NATIVE_MIN = 16 * 1024;

/** Sixteen tables of 256: table k maps a byte to its CRC followed by k zero bytes. */
let table: Int32Array | undefined;
/** Whether the words of an Int32Array view read the bytes in file order (little-endian). */
let littleEndian = false;
let checked = 0;

function makeTable(): Int32Array {
  const t = new Int32Array(16 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 16; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  return t;
}

function bytewise(t: Int32Array, c: number, b: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) c = t[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return c;
}

export function crc32(data: Uint8Array | string, initial = 0): number {
  const b = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const n = b.length;
  if (checked > NATIVE_AFTER && n >= NATIVE_MIN) return zlib().crc32(b, initial);
  checked += n;
  const t = (table ??= makeTable());
  let c = ~initial;
  // Bytes up to a 4-byte boundary, then 16 at a time as four words, then the rest.
  let i = Math.min(n, -b.byteOffset & 3);
  c = bytewise(t, c, b, 0, i);
  const words = littleEndian ? ((n - i) >>> 4) << 2 : 0;
  if (words > 0) {
    const w = new Int32Array(b.buffer, b.byteOffset + i, words);
    for (let j = 0; j < words; j += 4) {
      const a = c ^ w[j]!;
      const d = w[j + 1]!;
      const e = w[j + 2]!;
      const f = w[j + 3]!;
      c =
        t[3840 + (a & 0xff)]! ^
        t[3584 + ((a >>> 8) & 0xff)]! ^
        t[3328 + ((a >>> 16) & 0xff)]! ^
        t[3072 + (a >>> 24)]! ^
        t[2816 + (d & 0xff)]! ^
        t[2560 + ((d >>> 8) & 0xff)]! ^
        t[2304 + ((d >>> 16) & 0xff)]! ^
        t[2048 + (d >>> 24)]! ^
        t[1792 + (e & 0xff)]! ^
        t[1536 + ((e >>> 8) & 0xff)]! ^
        t[1280 + ((e >>> 16) & 0xff)]! ^
        t[1024 + (e >>> 24)]! ^
        t[768 + (f & 0xff)]! ^
        t[512 + ((f >>> 8) & 0xff)]! ^
        t[256 + ((f >>> 16) & 0xff)]! ^
        t[f >>> 24]!;
    }
    i += words * 4;
  }
  return ~bytewise(t, c, b, i, n) >>> 0;
}
