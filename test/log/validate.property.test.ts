/** The written-out checks for the bulk event types give the SHAPES table's answer, always. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAST, tableProblem } from '../../src/log/validate.js';
import { eventLog } from '../support/arbitraries.js';

const odd = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant([{ path: 'a', added: 1 }]), fc.constant([{ path: 'a', added: 1, removed: 2 }]), fc.constant(Number.NaN));

describe('event data checks', () => {
  it('the fast checks accept exactly what the table accepts', () => {
    const types = Object.keys(FAST);
    const data = eventLog
      .filter((events) => events.some((e) => types.includes(e.type)))
      .chain((events) => {
        const e = events.find((x) => types.includes(x.type))!;
        const keys = [...Object.keys(e.data), 'host', 'merge', 'extra'];
        // Each field kept, dropped or replaced by a value of another kind.
        return fc.record({ type: fc.constant(e.type), data: fc.constant(e.data as Record<string, unknown>), changes: fc.array(fc.tuple(fc.constantFrom(...keys), odd), { maxLength: 3 }) });
      });
    fc.assert(
      fc.property(data, ({ type, data: base, changes }) => {
        const d: Record<string, unknown> = { ...base };
        for (const [k, v] of changes) {
          if (v === undefined) delete d[k];
          else d[k] = v;
        }
        expect(FAST[type]!(d)).toBe(tableProblem(type, d) === null);
      }),
      { numRuns: 1000 },
    );
  });
});
