/**
 * The open's check of a log new to this clone: known by its first id on open, read once by
 * the replay, and held to the same checks as a log read whole on open.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GccEvent } from '../../src/events/types.js';
import { serialize } from '../../src/log/codec.js';
import { layout } from '../../src/store/paths.js';
import { Store } from '../../src/store/store.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { fresh } from './support.js';

afterAll(cleanup);

describe('a log new to this clone', () => {
  const ev = (n: number, text: string, seq: number, more?: number): GccEvent => ({
    id: `${n.toString(16).padStart(12, '0')}0000000000`,
    seq,
    at: '2026-01-01T00:00:00.000Z',
    branch: 'main',
    type: 'ota.logged',
    data: { observation: text, thought: '', action: '' },
    ...(more ? { more } : {}),
  });
  const NAME = '2026-01/20260101T000000Z-dddddd.md';
  function withSegment(text: string): string {
    const dir = tempProject();
    const path = layout(dir).segment(NAME);
    execFileSync('mkdir', ['-p', join(path, '..')]);
    writeFileSync(path, text);
    return dir;
  }

  it('is read once, by the replay, and ends up known exactly as a log read whole on open', async () => {
    const dir = withSegment(serialize([ev(1, 'a', 1), ev(2, 'b', 2, 1), ev(3, 'c', 3)]));
    const s = await fresh(dir);
    const f = s.logs.get(NAME)!;
    expect([f.unread, f.meta.size, f.meta.firstId]).toEqual([true, 0, ev(1, '', 0).id]);
    const seen: string[] = [];
    s.stream((e) => seen.push((e.data as { observation: string }).observation));
    expect(seen).toEqual(['a', 'b', 'c']);
    const eager = new Store(layout(dir));
    eager.check(Date.now(), []); // collecting every damage reads each log on the spot
    expect(eager.logs.get(NAME)!.unread).toBe(false);
    expect(f.unread).toBe(false);
    expect(f.meta).toEqual(eager.logs.get(NAME)!.meta);
  });

  it('damaged past its first entry fails the replay as it fails a check, naming the file', async () => {
    // Past the first bytes read on open (a smaller file is checked whole then).
    const good = serialize(Array.from({ length: 100 }, (_, i) => ev(i + 1, i === 98 ? 'b' : 'x'.repeat(1000), i + 1)));
    const dir = withSegment(good.replace('"observation":"b"', '"observation":"B"'));
    const s = await fresh(dir);
    expect(s.logs.get(NAME)!.unread).toBe(true);
    expect(() => s.stream(() => undefined)).toThrow(
      expect.objectContaining({ code: 'E_CORRUPT', file: expect.stringContaining('dddddd') }),
    );
    const damage: { code: string }[] = [];
    new Store(layout(dir)).check(Date.now(), damage as never);
    expect(damage.map((d) => d.code)).toEqual(['E_CORRUPT']);
  });

  it("ending in another writer's incomplete entry is folded up to it, with a warning once read", async () => {
    const whole = serialize([ev(1, 'a', 1), ev(2, 'b', 2)]);
    const dir = withSegment(whole + serialize([ev(3, 'c', 3)]).slice(0, 40));
    const s = await fresh(dir);
    const seen: number[] = [];
    s.stream((e) => seen.push(e.seq));
    expect(seen).toEqual([1, 2]);
    expect(s.logs.get(NAME)!.meta.size).toBe(Buffer.byteLength(whole));
    expect(s.warnings.join('\n')).toMatch(/dddddd\.md ends in an incomplete entry that this clone did not write/);
  });

  it('replaced between the open and the replay is refused, never folded out of order', async () => {
    const dir = withSegment(serialize([ev(5, 'late', 1)]));
    const s = await fresh(dir);
    writeFileSync(layout(dir).segment(NAME), serialize([ev(1, 'early', 1)]));
    expect(() => s.stream(() => undefined)).toThrow(/changed while it was read/);
  });

  it('whose first batch does not fit the first bytes read is read whole on open', async () => {
    const big = 'x'.repeat(40_000);
    const dir = withSegment(serialize([ev(1, big, 1, 1), ev(2, big, 2)]));
    const s = await fresh(dir);
    const f = s.logs.get(NAME)!;
    expect([f.unread, f.meta.seq]).toEqual([false, 2]);
  });
});
