/**
 * Two states compared as data by their digest: key order, prototypes and undefined members do
 * not count (a state read back from a snapshot differs from a replayed one in all three), any
 * other difference does.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../src/engine/snapshot-state.js';

/** The same data with every object's keys reversed, prototype-free, and an undefined member added. */
function reshaped(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(reshaped);
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(v).reverse()) out[k] = reshaped((v as Record<string, unknown>)[k]);
  out.__absent = undefined;
  return out;
}

const data = fc.jsonValue({ maxDepth: 4 });

describe('digestOf', () => {
  it('is the same for a value and its reshaped copy', () => {
    fc.assert(
      fc.property(data, (v) => {
        expect(digestOf(reshaped(v))).toBe(digestOf(v));
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with deep equality on any two values', () => {
    fc.assert(
      fc.property(data, data, (a, b) => {
        // -0 and 0 are one number in JSON, as in a snapshot.
        expect(digestOf(a) === digestOf(b)).toBe(
          isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))),
        );
      }),
      { numRuns: 300 },
    );
  });
});
