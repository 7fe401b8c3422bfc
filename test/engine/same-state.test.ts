/**
 * Two states compared as data: key order, prototypes and undefined members do not count (a
 * state read back from a snapshot differs from a replayed one in all three), any other
 * difference does, and the digest agrees with the comparison.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestOf, firstDifference } from '../../src/engine/same-state.js';

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

describe('firstDifference and digestOf', () => {
  it('find none between a value and its reshaped copy', () => {
    fc.assert(
      fc.property(data, (v) => {
        expect(firstDifference(v, reshaped(v))).toBeNull();
        expect(digestOf(reshaped(v))).toBe(digestOf(v));
      }),
      { numRuns: 300 },
    );
  });

  it('agree with each other on any two values, and with deep equality', () => {
    fc.assert(
      fc.property(data, data, (a, b) => {
        const same = firstDifference(a, b) === null;
        expect(digestOf(a) === digestOf(b)).toBe(same);
        // -0 and 0 are one number in JSON, as in a snapshot.
        expect(same).toBe(isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))));
      }),
      { numRuns: 300 },
    );
  });

  it('name where a state differs', () => {
    const a = { branches: { feat: { purpose: 'real', life: 'active' } }, events: 3 };
    expect(firstDifference(a, { branches: { feat: { purpose: 'forged', life: 'active' } }, events: 3 })).toBe(
      'state.branches.feat.purpose',
    );
    expect(firstDifference(a, { branches: { feat: { purpose: 'real', life: 'active' }, x: {} }, events: 3 })).toBe(
      'state.branches.x',
    );
    expect(firstDifference({ list: [1, 2] }, { list: [1, 2, 3] })).toBe('state.list');
  });
});
