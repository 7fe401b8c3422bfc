import { diffLines } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countLines } from '../../src/observer/file-changes.js';

/** What the `diff` package counts, which countLines answers without it where it can. */
function byDiff(before: string, after: string) {
  let added = 0;
  let removed = 0;
  for (const c of diffLines(before, after)) {
    if (c.added) added += c.count ?? 0;
    else if (c.removed) removed += c.count ?? 0;
  }
  return { added, removed };
}

const line = fc.constantFrom('a', 'b', 'c', '', '  x', 'a\r');
const text = fc
  .array(line, { maxLength: 8 })
  .chain((lines) => fc.boolean().map((end) => lines.join('\n') + (end && lines.length ? '\n' : '')));

describe('countLines', () => {
  it('counts what a line diff counts', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        expect(countLines(before, after)).toEqual(byDiff(before, after));
      }),
      { numRuns: 2000 },
    );
  });
});
