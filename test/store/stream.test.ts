import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { GccError } from '../../src/errors.js';
import { Memory } from '../../src/engine/memory.js';
import type { GccEvent } from '../../src/events/types.js';
import { parse, parseBytes, serialize } from '../../src/log/codec.js';
import { replay } from '../../src/projections/evolve.js';
import { layout } from '../../src/store/paths.js';
import { byId, Store } from '../../src/store/store.js';
import { hostileText } from '../support/arbitraries.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

async function history(): Promise<string> {
  const dir = tempProject();
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'ship it' });
  await m.execute({ type: 'branch', name: 'x', purpose: 'try x' });
  await m.execute({ type: 'log', observation: 'o', thought: 't', action: 'a' });
  await m.execute({ type: 'commit', contribution: 'x works' });
  await m.execute({ type: 'merge', branch: 'x', synthesis: 'x is in' });
  await m.execute({ type: 'commit', contribution: 'main again' });
  m.close();
  return dir;
}

function allOnDisk(dir: string): GccEvent[] {
  const l = layout(dir);
  return [l.logOf('main'), l.logOf('x')].flatMap((f) => parse(readFileSync(f)).events).sort(byId);
}

describe('streaming every log from scratch', () => {
  it('visits every event once, in id order, and leaves each log to be read again on demand', async () => {
    const dir = await history();
    const store = new Store(layout(dir));
    const seen: GccEvent[] = [];
    expect(store.stream((e) => seen.push(e))).toBe(true);
    expect(seen).toEqual(allOnDisk(dir));
    expect(store.logs.get('x')!.seq).toBe(allOnDisk(dir).filter((e) => e.branch === 'x').length);
    expect(store.allEvents()).toEqual(seen);
    expect(store.catchUp().added).toEqual([]);
  });

  it('refuses logs out of id order, and opening then reads them the usual way', async () => {
    const dir = await history();
    const l = layout(dir);
    // A branch log whose first event predates the branch's creation: possible after
    // merging two clones by hand, impossible through gctx.
    const xs = parse(readFileSync(l.logOf('x'))).events;
    xs[0] = { ...xs[0]!, id: `000000000001${xs[0]!.id.slice(12)}` };
    writeFileSync(l.logOf('x'), serialize(xs));
    rmSync(l.cache, { recursive: true, force: true });

    expect(new Store(l).stream(() => {})).toBe(false);
    const m = await Memory.open(dir);
    try {
      expect(m.state).toEqual(replay(allOnDisk(dir)));
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('streams a refusal to read a damaged log as the same error and line as a whole read', async () => {
    const dir = await history();
    const l = layout(dir);
    const text = readFileSync(l.logOf('main'), 'utf8');
    writeFileSync(l.logOf('main'), text.replace('ship it', 'ship It'));
    rmSync(l.cache, { recursive: true, force: true });
    let whole: unknown;
    try {
      parse(readFileSync(l.logOf('main')), '.GCC/log.md');
    } catch (err) {
      whole = err;
    }
    await expect(Memory.open(dir)).rejects.toMatchObject({ code: 'E_CORRUPT', line: (whole as { line: number }).line });
  });

  it('with CRCs checked on a second thread, judges every damage exactly as a whole read on one thread', () => {
    const dir = tempProject();
    const l = layout(dir);
    mkdirSync(l.gcc, { recursive: true });
    // OTA entries in batches of one to three, then a cut, a flipped byte or stray bytes.
    const log = fc
      .array(fc.tuple(hostileText, fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 8 })
      .map((batches) => {
        const events: GccEvent[] = [];
        for (const [text, size] of batches) {
          for (let i = 0; i < size; i++) {
            const seq = events.length + 1;
            const e: GccEvent = { id: `${String(seq).padStart(12, '0')}0000000000`, seq, at: '2026-01-01T00:00:00.000Z', branch: 'main', type: 'ota.logged', data: { observation: text, thought: 't', action: 'a' } };
            if (size - 1 - i > 0) e.more = size - 1 - i;
            events.push(e);
          }
        }
        return Buffer.from(serialize(events));
      });
    const damage = fc.record({ kind: fc.constantFrom('none', 'cut', 'flip', 'stray'), at: fc.nat(), byte: fc.integer({ min: 1, max: 255 }) });
    fc.assert(
      fc.property(log, damage, (bytes, d) => {
        let text = bytes;
        if (d.kind === 'cut') text = bytes.subarray(0, d.at % bytes.length);
        if (d.kind === 'flip') {
          text = Buffer.from(bytes);
          text[d.at % text.length] = text[d.at % text.length]! ^ d.byte;
        }
        if (d.kind === 'stray') text = Buffer.concat([bytes, Buffer.from([d.byte, 0x0a])]);
        writeFileSync(l.logOf('main'), text);
        const outcome = (fn: () => unknown) => {
          try {
            return { ok: JSON.parse(JSON.stringify(fn())) as unknown };
          } catch (err) {
            if (!(err instanceof GccError)) throw err;
            return { code: err.code, line: err.line, message: err.message };
          }
        };
        const whole = outcome(() => parseBytes(text, '.GCC/log.md').events);
        const streamed = outcome(() => {
          const seen: GccEvent[] = [];
          const store = new Store(l);
          if (store.stream((e) => seen.push(e), { crcWorkerAbove: 0 })) return seen;
          store.catchUp(); // out of id order (a flipped id): read as an open then would
          return store.allEvents();
        });
        expect(streamed).toEqual(whole);
      }),
      { numRuns: 40 },
    );
  });
});
