import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { byteLength, sameText, writeText, writeTextAtomic } from '../../src/store/text-file.js';
import { hostileText } from '../support/arbitraries.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

/** Pieces that end and start inside surrogate pairs, plus long runs that cross the encoder's steps. */
const piece = fc.oneof(hostileText, fc.constantFrom('\ud83d', '\ude00', '😀', 'é'), fc.tuple(fc.constantFrom('a', 'ü', '😀'), fc.integer({ min: 1, max: 200_000 })).map(([c, n]) => c.repeat(n)));

describe('text files written and compared through one buffer', () => {
  const dir = tempProject();
  const file = join(dir, 'f.md');

  it('writes exactly what writing the joined string writes, whole or in parts', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.boolean(), (parts, whole) => {
        const text = whole ? parts.join('') : parts;
        writeText(file, text);
        const want = Buffer.from(parts.join(''), 'utf8');
        expect(readFileSync(file).equals(want)).toBe(true);
        expect(byteLength(text)).toBe(want.length);
        expect(sameText(file, text)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('tells a file that differs anywhere, or is missing, from the text', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (parts, at, flip) => {
        const bytes = Buffer.from(parts.join(''), 'utf8');
        fc.pre(bytes.length > 0);
        const other = Buffer.from(bytes);
        other[at % other.length] = other[at % other.length]! ^ flip;
        writeFileSync(file, other);
        expect(sameText(file, parts)).toBe(false);
      }),
      { numRuns: 150 },
    );
    expect(sameText(join(dir, 'missing.md'), 'x')).toBe(false);
  });

  it('replaces a file through a temporary one', () => {
    writeFileSync(file, 'old');
    writeTextAtomic(file, ['new ', 'text']);
    expect(readFileSync(file, 'utf8')).toBe('new text');
  });
});
