/** Lists of files (src/log/prose.ts): whole entries inside the room, and how many are left out. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filesFitted } from '../../src/log/prose.js';

describe('filesFitted', () => {
  const file = fc.record({ path: fc.string({ minLength: 1, maxLength: 120 }), added: fc.nat(99), removed: fc.nat(99) });

  it('keeps whole entries inside the room and counts every one it leaves out', () => {
    fc.assert(
      fc.property(
        fc.array(file, { maxLength: 40 }),
        fc.nat(30),
        fc.integer({ min: 60, max: 600 }),
        (files, hidden, room) => {
          const total = files.length + hidden;
          const text = filesFitted(files, room, total, '(context log)');
          const more = /, \+(\d+) more \(context log\)$/.exec(text);
          const left = more ? Number(more[1]) : 0;
          if (!files.length) return;
          // Something is always shown, inside the room; what is not is counted, never dropped.
          expect(left).toBeLessThanOrEqual(total - 1);
          if (!more) expect(files.length).toBe(total);
          expect(text.length).toBeLessThanOrEqual(room);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('says nothing more when everything fits', () => {
    const files = [
      { path: 'a.ts', added: 1, removed: 0 },
      { path: 'b.ts', added: 0, removed: 0 },
    ];
    expect(filesFitted(files, 100)).toBe('a.ts (+1 -0), b.ts');
    expect(filesFitted(files, 100, 5, '(git status)')).toBe('a.ts (+1 -0), b.ts, +3 more (git status)');
    expect(filesFitted(files, 20, 2, '(x)')).toBe('a.ts (+1 -0), +1 more (x)');
  });
});
