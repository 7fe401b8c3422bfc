/** Event ids: they grow, past what was seen, but are not dragged along by a clock far ahead. */
import { describe, expect, it } from 'vitest';
import { nextId } from '../../src/store/ids.js';

describe('ids', () => {
  it('grow past the newest id seen, unless that id runs far ahead of the clock', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    const near = (now + 60_000).toString(16).padStart(12, '0') + '0000000000';
    const far = (now + 86_400_000).toString(16).padStart(12, '0') + '0000000000';
    expect(nextId(near, now) > near).toBe(true);
    const mine = nextId(far, now);
    expect(Number.parseInt(mine.slice(0, 12), 16)).toBe(now);
    // This clone's own ids always grow.
    expect(nextId('', now, mine) > mine).toBe(true);
  });
});
