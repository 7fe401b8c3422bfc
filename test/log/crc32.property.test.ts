/**
 * The log's CRC-32 is zlib's: the same value for any bytes at any offset in their buffer, for
 * a string's UTF-8, and when computed piecewise with the running value, split anywhere.
 */
import { randomFillSync } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/log/crc32.js';

/** Bytes seen through a view that starts `offset` bytes into a larger buffer. */
const bytesAt = fc
  .record({ bytes: fc.uint8Array({ maxLength: 600 }), offset: fc.integer({ min: 0, max: 7 }) })
  .map(({ bytes, offset }) => {
    const outer = new Uint8Array(offset + bytes.length + 3);
    outer.set(bytes, offset);
    return outer.subarray(offset, offset + bytes.length);
  });

const seed = fc.integer({ min: 0, max: 0xffffffff });

describe('crc32', () => {
  it('equals zlib.crc32 for bytes, at any alignment, from any running value', () => {
    fc.assert(
      fc.property(bytesAt, seed, (bytes, initial) => {
        expect(crc32(bytes)).toBe(zlibCrc32(bytes));
        expect(crc32(bytes, initial)).toBe(zlibCrc32(bytes, initial));
      }),
      { numRuns: 500 },
    );
  });

  it('equals zlib.crc32 for strings (their UTF-8)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.string({ unit: 'grapheme', maxLength: 100 }),
        ),
        seed,
        (s, initial) => {
          expect(crc32(s)).toBe(zlibCrc32(s));
          expect(crc32(s, initial)).toBe(zlibCrc32(s, initial));
          expect(crc32(s)).toBe(crc32(Buffer.from(s, 'utf8')));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('continues from a running value: split anywhere, the pieces give the whole', () => {
    fc.assert(
      fc.property(bytesAt, fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        let running = 0;
        let from = 0;
        for (const to of [...at, bytes.length]) {
          running = crc32(bytes.subarray(from, to), running);
          from = to;
        }
        expect(running).toBe(zlibCrc32(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('knows the check value and the empty input', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(new Uint8Array(0), 0x1234abcd)).toBe(0x1234abcd);
  });

  it('stays zlib’s over many megabytes, where a process hands large inputs to zlib itself', () => {
    const big = randomFillSync(Buffer.allocUnsafe(24 * 1024 * 1024 + 5));
    let running = 0;
    for (let p = 1; p < big.length; p += 256 * 1024 + 3) running = crc32(big.subarray(p, p + 256 * 1024 + 3), running);
    expect(running).toBe(zlibCrc32(big.subarray(1)));
  });
});
