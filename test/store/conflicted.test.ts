/**
 * A log that failed to read is looked through for git's conflict markers a window at a time:
 * the answer is the one a look at the whole text gives, wherever the windows fall.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { hasConflictMarkers } from '../../src/log/conflict.js';
import { fileHasConflictMarkers } from '../../src/store/conflicted.js';
import { WINDOW } from '../../src/store/window.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const piece = fc.constantFrom(
  '<<<<<<< ours',
  '<<<<<<<',
  '>>>>>>> theirs',
  '>>>>>>>',
  '=======',
  '<<<<<<<x',
  '>>>>>>>>',
  ' <<<<<<< ',
  'entry text',
  '',
);

describe('conflict markers in a file', () => {
  it('are found as in the whole text, wherever a window boundary cuts them', () => {
    const dir = tempProject();
    const file = join(dir, 'log.md');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }),
        fc.integer({ min: 0, max: 12 }),
        fc.boolean(),
        (lines, shift, long) => {
          // Long files put the lines across the first window boundary, at every offset near it.
          const pad = long ? `${'a'.repeat(WINDOW - 6 + shift)}\n` : '';
          const text = pad + lines.join('\n');
          writeFileSync(file, text);
          expect(fileHasConflictMarkers(file)).toBe(hasConflictMarkers(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a missing file has none', () => {
    expect(fileHasConflictMarkers(join(tempProject(), 'nope.md'))).toBe(false);
  });
});
