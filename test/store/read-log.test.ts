import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { GccEvent } from '../../src/events/types.js';
import { GccError } from '../../src/errors.js';
import { parseBytes, serialize, serializeEvent } from '../../src/log/codec.js';
import { readLog } from '../../src/store/read-log.js';
import { eventLog } from '../support/arbitraries.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

type Outcome = { ok: true; events: unknown; validLength: number; tail: string } | { ok: false; code: string; line: number | undefined; message: string };

function outcome(fn: () => { events: GccEvent[]; validLength: number; tail: string }): Outcome {
  try {
    const r = fn();
    return { ok: true, events: JSON.parse(JSON.stringify(r.events)), validLength: r.validLength, tail: r.tail };
  } catch (err) {
    if (!(err instanceof GccError)) throw err;
    return { ok: false, code: err.code, line: err.line, message: err.message };
  }
}

/** Whole entries, then damage somewhere after `keep` bytes: a cut, a flipped byte, stray text. */
const damaged = eventLog.chain((events) => {
  const bytes = Buffer.from(serialize(events));
  return fc.record({
    bytes: fc.constant(bytes),
    events: fc.constant(events),
    damage: fc.oneof(
      fc.constant({ kind: 'none' as const, at: 0, byte: 0 }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(Math.max(0, bytes.length - 1)), byte: fc.constant(0) }),
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(Math.max(0, bytes.length - 1)), byte: fc.integer({ min: 1, max: 255 }) }),
      fc.record({ kind: fc.constant('stray' as const), at: fc.constant(0), byte: fc.integer({ min: 0, max: 255 }) }),
    ),
    window: fc.constantFrom(16, 61, 200, 4096),
  });
});

function apply(bytes: Buffer, d: { kind: string; at: number; byte: number }): Buffer {
  if (d.kind === 'cut') return bytes.subarray(0, d.at);
  if (d.kind === 'flip' && bytes.length) {
    const out = Buffer.from(bytes);
    out[d.at] = out[d.at]! ^ d.byte;
    return out;
  }
  if (d.kind === 'stray') return Buffer.concat([bytes, Buffer.from([d.byte, 0x0a, 0x41])]);
  return bytes;
}

describe('reading a log through a small window', () => {
  const dir = tempProject();
  const file = join(dir, 'log.md');

  it('gives what parsing the whole file gives: events, valid length, tail, or the same error and line', () => {
    fc.assert(
      fc.property(damaged, ({ bytes, damage, window }) => {
        const text = apply(bytes, damage);
        writeFileSync(file, text);
        const whole = outcome(() => parseBytes(text, 'log.md'));
        const windowed = outcome(() => readLog(file, 0, text.length, 'log.md', 0, window));
        expect(windowed).toEqual(whole);
      }),
      { numRuns: 400 },
    );
  });

  it('reading on from a batch boundary gives the rest of the events, and errors name lines of the whole file', () => {
    fc.assert(
      fc.property(damaged, fc.nat(), ({ bytes, events, damage, window }, pick) => {
        // Appends resume where the last whole batch ended, so reads start there.
        const ends: [number, number][] = [[0, 0]];
        let off = 0;
        events.forEach((e, i) => {
          off += Buffer.byteLength(serializeEvent(e));
          if (!e.more) ends.push([off, i + 1]);
        });
        const [from, k] = ends[pick % ends.length]!;
        if (damage.at < from) return; // damage before the split is not read
        const text = apply(bytes, damage);
        writeFileSync(file, text);
        const whole = outcome(() => parseBytes(text, 'log.md'));
        const rest = outcome(() => readLog(file, from, text.length - from, 'log.md', k, window));
        if (!whole.ok) {
          expect(rest).toEqual(whole);
          return;
        }
        expect(rest.ok).toBe(true);
        if (!rest.ok) return;
        expect(rest.validLength).toBe(whole.validLength - from);
        expect(rest.tail).toBe(whole.tail);
        expect(rest.events).toEqual((whole.events as unknown[]).slice(k));
      }),
      { numRuns: 300 },
    );
  });

  it('widens the window for an entry larger than it', () => {
    const events: GccEvent[] = [1, 2, 3].map((seq) => ({
      id: `${String(seq).padStart(12, '0')}0000000000`,
      seq,
      at: '2026-01-01T00:00:00.000Z',
      branch: 'main',
      type: 'ota.logged',
      data: { observation: 'x'.repeat(seq * 5000), thought: 'ü😀', action: 'a' },
    }));
    writeFileSync(file, serialize(events));
    const r = readLog(file, 0, 1e9, 'log.md', 0, 64);
    expect(r.events).toEqual(events);
    expect(r.tail).toBe('');
  });
});
