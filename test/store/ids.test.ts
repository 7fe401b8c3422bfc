/** Event ids: they grow, past every id seen, whatever the clock says. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextId } from '../../src/store/ids.js';

const at = (ms: number) => ms.toString(16).padStart(12, '0') + '0000000000';

describe('ids', () => {
  it('sort after the newest id seen, even one a fast clock wrote (an answer never sorts before what it answers)', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    for (const ahead of [60_000, 3_600_000, 23 * 3_600_000]) {
      const seen = at(now + ahead);
      expect(nextId(seen, now) > seen).toBe(true);
    }
    const mine = nextId('', now);
    expect(Number.parseInt(mine.slice(0, 12), 16)).toBe(now);
    expect(nextId('', now, mine) > mine).toBe(true);
  });

  it("a batch made in one millisecond, with the clock stepped back behind this clone's own ids, still grows", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400_000 }), fc.integer({ min: 2, max: 6 }), (back, n) => {
        const now = Date.parse('2026-12-01T00:00:00Z');
        const own = nextId('', now + back);
        let id = own;
        const batch: string[] = [];
        for (let i = 0; i < n; i++) batch.push((id = nextId(id, now, own)));
        expect([own, ...batch]).toEqual([own, ...batch].sort());
        expect(new Set(batch).size).toBe(n);
      }),
    );
  });
});
