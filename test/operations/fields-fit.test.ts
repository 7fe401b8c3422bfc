/**
 * A command line whose arguments fit their declaration runs without zod (fields.ts validAsGiven):
 * what that check lets through, zod must accept as it stands, for every operation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validAsGiven } from '../../src/operations/fields.js';
import { CATALOGUE } from '../../src/operations/index.js';
import { argsOf } from '../../src/operations/schema.js';

const value = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom('', 'add', 'check', 'status', 'branch', 'log'),
  fc.integer({ min: -2, max: 3 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(undefined),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 2 }),
);

describe('validAsGiven', () => {
  it('passes only what zod accepts unchanged, for every operation (property)', () => {
    for (const op of CATALOGUE) {
      const names = [...Object.keys(op.args), 'unknown'];
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 4 }), (args) => {
          if (!validAsGiven(op, args)) return;
          const r = argsOf(op).safeParse(args);
          expect(r.success, `${op.name} ${JSON.stringify(args)}`).toBe(true);
          const defined = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
          expect(Object.fromEntries(Object.entries(r.data ?? {}).filter(([, v]) => v !== undefined))).toEqual(defined);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('passes a search with its words and a limit, and not one with a limit of 0 or no words', () => {
    const search = CATALOGUE.find((o) => o.name === 'search')!;
    expect(validAsGiven(search, { text: 'retry logic', limit: 5 })).toBe(true);
    expect(validAsGiven(search, { text: 'retry', limit: 0 })).toBe(false);
    expect(validAsGiven(search, { limit: 5 })).toBe(false);
    expect(validAsGiven(search, { text: '' })).toBe(false);
  });
});
