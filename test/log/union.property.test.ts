/**
 * Properties of the log union the legacy git merge driver computes (for clones of the first
 * layout, whose .gitattributes still name it; docs/git.md): two sides grown from a common
 * history (each in its own id order, batches with `more` markers, hostile text) merge into
 * a log that parses, holds every event exactly once with batches intact, and does not
 * depend on which side is "ours" or on merging twice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unionLogs } from '../../src/log/union.js';
import type { GccEvent } from '../../src/events/types.js';
import { parse, serialize } from '../../src/log/codec.js';
import { hostileText } from '../support/arbitraries.js';

/** Which clones hold a batch, as bits: 1 ours, 2 theirs, 4 a third clone. */
type Side = number;
interface Batch {
  side: Side;
  events: GccEvent[];
}

const batchShape = fc.record({
  side: fc.integer({ min: 1, max: 7 }),
  texts: fc.array(hostileText, { minLength: 1, maxLength: 3 }),
});

/** Batches with distinct ids; ids rise within a batch, and batches' ranges may interleave. */
const history = fc
  .array(batchShape, { maxLength: 12 })
  .chain((shapes) => {
    const n = shapes.reduce((s, b) => s + b.texts.length, 0);
    return fc.tuple(fc.constant(shapes), fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 40 }), { minLength: n, maxLength: n }));
  })
  .map(([shapes, nums]) => {
    let k = 0;
    return shapes.map((s): Batch => {
      const ids = nums.slice(k, k + s.texts.length).sort((a, b) => a - b);
      k += s.texts.length;
      const events = s.texts.map((t, i): GccEvent => {
        const e: GccEvent = {
          id: ids[i]!.toString(16).padStart(12, '0') + 'ab12cd34ef',
          seq: 0,
          at: new Date(ids[i]!).toISOString(),
          branch: 'main',
          type: 'ota.logged',
          data: { observation: t, thought: `t${i}`, action: t.slice(0, 3) },
        };
        const more = s.texts.length - 1 - i;
        if (more > 0) e.more = more;
        return e;
      });
      return { side: s.side, events };
    });
  });

/** One clone's log.md: its batches in first-id order (what appends and earlier unions give). */
function logOf(batches: readonly Batch[], keep: (s: Side) => boolean): string {
  const mine = batches.filter((b) => keep(b.side)).sort((a, b) => (a.events[0]!.id < b.events[0]!.id ? -1 : 1));
  const events = mine.flatMap((b) => b.events).map((e, i) => ({ ...e, seq: i + 1 }));
  return serialize(events);
}

const ours = (h: Batch[]) => logOf(h, (s) => (s & 1) !== 0);
const theirs = (h: Batch[]) => logOf(h, (s) => (s & 2) !== 0);
const third = (h: Batch[]) => logOf(h, (s) => (s & 4) !== 0);
const sideOf = (h: Batch[], bits: number) => h.filter((b) => (b.side & bits) !== 0);

describe('log union', () => {
  it('parses, holds every event of both sides exactly once, and keeps batches contiguous', () => {
    fc.assert(
      fc.property(history, (h) => {
        const u = unionLogs(ours(h), theirs(h));
        const parsed = parse(u.text, 'log.md', 0, false);
        expect(parsed.tail).toBe('');
        const ids = parsed.events.map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set(sideOf(h, 3).flatMap((b) => b.events.map((e) => e.id))));
        expect(u.added).toBe(h.filter((b) => (b.side & 3) === 2).reduce((s, b) => s + b.events.length, 0));
        for (const b of sideOf(h, 3)) {
          const at = ids.indexOf(b.events[0]!.id);
          const got = parsed.events.slice(at, at + b.events.length);
          expect(got.map((e) => ({ ...e, seq: 0 }))).toEqual(b.events);
        }
      }),
    );
  });

  it('is commutative, byte for byte', () => {
    fc.assert(
      fc.property(history, (h) => {
        expect(unionLogs(ours(h), theirs(h)).text).toBe(unionLogs(theirs(h), ours(h)).text);
      }),
    );
  });

  it('is idempotent: a side unioned with itself, or the result with either side, changes nothing', () => {
    fc.assert(
      fc.property(history, (h) => {
        const a = ours(h);
        const u = unionLogs(a, theirs(h)).text;
        expect(unionLogs(a, a).text).toBe(a);
        expect(unionLogs(u, a).text).toBe(u);
        expect(unionLogs(theirs(h), u).text).toBe(u);
        expect(unionLogs(u, '').text).toBe(u);
      }),
    );
  });

  it('is associative: three clones merge to the same log in any grouping', () => {
    fc.assert(
      fc.property(history, (h) => {
        const [a, b, c] = [ours(h), theirs(h), third(h)];
        expect(unionLogs(unionLogs(a, b).text, c).text).toBe(unionLogs(a, unionLogs(b, c).text).text);
      }),
    );
  });

  it('refuses, rather than guesses, when one id carries two different events', () => {
    const e: GccEvent = { id: '000000000001ab12cd34ef', seq: 1, at: '2026-01-01T00:00:00.000Z', branch: 'main', type: 'ota.logged', data: { observation: 'a', thought: 'b', action: 'c' } };
    const forged = { ...e, data: { ...e.data, observation: 'changed' } };
    expect(() => unionLogs(serialize([e]), serialize([forged]))).toThrow(/different content/);
  });

  it('refuses a side that ends in a torn entry', () => {
    const e: GccEvent = { id: '000000000001ab12cd34ef', seq: 1, at: '2026-01-01T00:00:00.000Z', branch: 'main', type: 'ota.logged', data: { observation: 'a', thought: 'b', action: 'c' } };
    const whole = serialize([e]);
    expect(() => unionLogs(whole, whole.slice(0, -7))).toThrow(/incomplete entry/);
  });
});
