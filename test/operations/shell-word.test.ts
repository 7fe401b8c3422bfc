/**
 * The "more:" hints the command line prints are pasted into a shell: the search words must come
 * back from the shell exactly as they were, whatever they hold.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../src/operations/context.js';

describe('search words in a hint', () => {
  it('pass through a POSIX shell unchanged', () => {
    const text = fc
      .string({
        unit: fc.oneof(fc.constantFrom(...'$`"\\\'! \n\t*?~#;&|<>(){}[]'), fc.string({ minLength: 1, maxLength: 1 })),
        maxLength: 24,
      })
      .filter((t) => !t.includes('\0'));
    fc.assert(
      fc.property(text, (t) => {
        expect(execFileSync('sh', ['-c', `printf %s ${shellWord(t)}`], { encoding: 'utf8' })).toBe(t);
      }),
      { numRuns: 120 },
    );
  });
});
