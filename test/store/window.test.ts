/**
 * Logs read through a bounded window (src/store/window.ts): what a window reads is what parsing
 * the whole file gives; a replay's merge and verify hold one window of each log under way —
 * never a whole log, never every log — and the local log, which spans the whole history, is no
 * exception; verify reads each log once. Held by structure (the window's peaks), not by timing or RSS.
 */
import { appendFileSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyMemory } from '../../src/engine/integrity.js';
import { Memory } from '../../src/engine/memory.js';
import { DEFAULT_CONFIG, FORMAT_VERSION, type GccEvent, MAIN } from '../../src/events/types.js';
import { MAX_ENTRY_READ } from '../../src/events/rules.js';
import { parseBytes, serialize } from '../../src/log/codec.js';
import { EntryParser } from '../../src/log/parser.js';
import { layout, newSegmentName } from '../../src/store/paths.js';
import { LOCAL, Store } from '../../src/store/store.js';
import { LogWindow, resetWindowPeaks, WINDOW, windowPeaks } from '../../src/store/window.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);
beforeEach(resetWindowPeaks);

const T0 = Date.now() - 10 * 86_400_000;
const idAt = (ms: number, n: number) => ms.toString(16).padStart(12, '0') + n.toString(16).padStart(10, '0');
const filler = (n: number, size: number) => `${n} `.padEnd(size, 'lorem ipsum dolor ');

function ota(n: number, seq: number, size = 400): GccEvent {
  const ms = T0 + n * 10;
  return {
    id: idAt(ms, n),
    seq,
    at: new Date(ms).toISOString(),
    branch: MAIN,
    type: 'ota.logged',
    data: { observation: filler(n, size), thought: '', action: '' },
  } as GccEvent;
}

/**
 * A history written as a writer would leave it: `segments` segments of `per` events one after
 * the other in time, and a local log whose events fall between them all (one every `localEvery`).
 */
function history(
  segments: number,
  per: number,
  localEvery = 7,
  size = 400,
): { dir: string; all: GccEvent[]; local: GccEvent[] } {
  const dir = tempProject();
  const l = layout(dir);
  const all: GccEvent[] = [];
  const local: GccEvent[] = [];
  let n = 0;
  for (let s = 0; s < segments; s++) {
    const events: GccEvent[] = [];
    for (let i = 0; i < per; i++) {
      n++;
      if (n % localEvery === 0) {
        const e = { ...ota(n, local.length + 1, size), type: 'branch.switched', data: { to: MAIN } } as GccEvent;
        local.push(e);
        continue;
      }
      events.push(
        n === 1
          ? ({
              ...ota(n, 1),
              type: 'memory.initialized',
              data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } },
            } as GccEvent)
          : ota(n, events.length + 1, size),
      );
    }
    const path = l.segment(newSegmentName(new Date(Date.parse(events[0]!.at)), (s + 1).toString(16).padStart(6, '0')));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, serialize(events));
    all.push(...events);
  }
  mkdirSync(l.local, { recursive: true });
  writeFileSync(l.localLog, serialize(local));
  all.push(...local);
  all.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { dir, all, local };
}

describe('a window', () => {
  it('reads what parsing the whole file reads: events, complete length, CRC, the prefix CRC and a torn tail', () => {
    const dir = tempProject();
    const path = `${dir}/log.md`;
    const events = Array.from({ length: 2_000 }, (_, i) => ota(i + 1, i + 1));
    const torn = serialize([ota(5_000, 2_001)]);
    writeFileSync(path, serialize(events) + torn.slice(0, 100));
    const bytes = readFileSync(path);
    expect(bytes.length).toBeGreaterThan(3 * WINDOW);
    const whole = parseBytes(bytes);
    const w = new LogWindow(path, { file: 'log.md', to: bytes.length, prefix: 12_345 });
    const read: GccEvent[] = [];
    let windows = 0;
    for (let got = w.next(); got; got = w.next()) {
      windows++;
      read.push(...got);
    }
    expect(read).toEqual(whole.events);
    expect(w.validEnd).toBe(whole.validLength);
    expect(w.tail).toBe(bytes.length - whole.validLength);
    expect(w.crc).toBe(crc32(bytes.subarray(0, whole.validLength)));
    expect(w.prefixCrc).toBe(crc32(bytes.subarray(0, 12_345)));
    expect(windows).toBeGreaterThan(3);
    expect(windowPeaks.bytes).toBeLessThanOrEqual(WINDOW);
    expect(windowPeaks.events).toBeLessThan(events.length / 3);
  });

  it('grows for one entry larger than itself, for that read only', () => {
    const dir = tempProject();
    const path = `${dir}/log.md`;
    const big = ota(3, 3, 3 * WINDOW);
    writeFileSync(path, serialize([ota(1, 1), ota(2, 2), big, ota(4, 4)]));
    const w = new LogWindow(path, { file: 'log.md', to: readFileSync(path).length });
    const read: GccEvent[] = [];
    for (let got = w.next(); got; got = w.next()) read.push(...got);
    expect(read.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(read[2]).toEqual(big);
    expect(windowPeaks.bytes).toBeGreaterThan(3 * WINDOW);
  });

  it('refuses text that is not an entry as soon as it sees it, and an entry with no end past the largest gctx writes, without holding either whole', () => {
    const dir = tempProject();
    const path = `${dir}/log.md`;
    const head = serialize([ota(1, 1), ota(2, 2)]);
    writeFileSync(path, head + 'a'.repeat(8 * WINDOW));
    const w = new LogWindow(path, { file: 'log.md', to: readFileSync(path).length });
    const read = () => {
      for (let got = w.next(); got; got = w.next());
    };
    expect(read).toThrow(/E_CORRUPT|not an entry/);
    expect(windowPeaks.bytes).toBeLessThanOrEqual(WINDOW);
    // An entry's start followed by more than a reader takes: refused at the cap, not at the end of the file.
    const p = new EntryParser('log.md', 0, 0, () => 1);
    const view = Buffer.alloc(MAX_ENTRY_READ + 16, 0x61);
    view.write('**[OTA-001]** ', 0, 'latin1');
    expect(() => p.feed(view, 0, false)).toThrow(/runs past 32 MiB without its end/);
    p.feed(view.subarray(0, 4 * WINDOW), 0, false);
  });

  it('holds a log against what was acknowledged: a change under the reader is reported as such', () => {
    const h = history(2, 600);
    const s = new Store(layout(h.dir));
    // Read on the spot (a check collecting damage does), so what the reader holds it against is known.
    s.check(Date.now(), []);
    const f = [...s.logs.values()].find((x) => x.name !== LOCAL)!;
    expect(f.unread).toBe(false);
    const text = readFileSync(f.path, 'latin1');
    const at = text.indexOf('lorem', Math.floor(text.length / 2));
    writeFileSync(f.path, `${text.slice(0, at)}LOREM${text.slice(at + 5)}`, 'latin1');
    expect(() => f.readAll()).toThrow(/changed since it was read/);
  });
});

describe('the merge of every log', () => {
  it('holds one window of each log under way: one segment at a time beside the local log, never a whole log', () => {
    const h = history(12, 900, 3);
    const s = new Store(layout(h.dir));
    s.check(Date.now());
    resetWindowPeaks();
    const seen: string[] = [];
    s.stream((e) => seen.push(e.id));
    expect(seen).toEqual(h.all.map((e) => e.id));
    // The segments follow one another in time; the local log spans them all.
    expect(windowPeaks.maxOpen).toBe(2);
    expect(windowPeaks.open).toBe(0);
    // Every log is several windows long; no read held more than one window of bytes, nor more
    // events than the smallest entries fill a window with.
    for (const f of s.logs.values()) expect(f.meta.size).toBeGreaterThan(2 * WINDOW);
    expect(windowPeaks.bytes).toBeLessThanOrEqual(WINDOW);
    const smallest = Math.min(...h.all.map((e) => Buffer.byteLength(serialize([e]))));
    expect(windowPeaks.events).toBeLessThanOrEqual(Math.ceil(WINDOW / smallest));
    expect(windowPeaks.events).toBeLessThan(h.local.length);
  });

  it('closes every log it opened when the visitor stops it', () => {
    const h = history(4, 300);
    const s = new Store(layout(h.dir));
    s.check(Date.now());
    let n = 0;
    expect(() =>
      s.stream(() => {
        if (++n === 500) throw new Error('enough');
      }),
    ).toThrow('enough');
    expect(windowPeaks.open).toBe(0);
  });
});

describe('verify', () => {
  it('reads every log through the window, one segment at a time beside the local log, and finds them whole', async () => {
    const h = history(10, 900);
    (await Memory.open(h.dir)).close();
    resetWindowPeaks();
    expect(verifyMemory(layout(h.dir), Date.now())).toEqual([]);
    expect(windowPeaks.reads).toBeGreaterThan(2 * 10);
    expect(windowPeaks.maxOpen).toBe(2);
    expect(windowPeaks.open).toBe(0);
    expect(windowPeaks.bytes).toBeLessThanOrEqual(WINDOW);
  });

  it('reads each log once: as many windows as one merge of every log', async () => {
    const h = history(6, 900);
    (await Memory.open(h.dir)).close();
    const s = new Store(layout(h.dir));
    s.check(Date.now());
    resetWindowPeaks();
    s.stream(() => undefined);
    const once = windowPeaks.reads;
    resetWindowPeaks();
    expect(verifyMemory(layout(h.dir), Date.now())).toEqual([]);
    expect(once).toBeGreaterThan(6);
    expect(windowPeaks.reads).toBe(once);
  });

  it('names every log whose bytes changed though its size, times and inode did not, alone or beside a torn tail', async () => {
    const h = history(3, 600);
    (await Memory.open(h.dir)).close();
    const s = new Store(layout(h.dir));
    s.check(Date.now());
    const [first, , last] = [...s.logs.values()].filter((x) => x.name !== LOCAL);
    const { atime, mtime } = statSync(first!.path);
    writeFileSync(first!.path, readFileSync(first!.path, 'latin1').replace('lorem', 'LOREM'), 'latin1');
    utimesSync(first!.path, atime, mtime);
    const alone = verifyMemory(layout(h.dir), Date.now());
    expect(alone.map((p) => p.file)).toEqual([first!.rel]);
    appendFileSync(last!.path, serialize([ota(99_999, 99_999)]).slice(0, 50));
    const both = verifyMemory(layout(h.dir), Date.now());
    expect(both.map((p) => p.file).sort()).toEqual([first!.rel, last!.rel].sort());
  });

  it('still finds a log whose acknowledged bytes changed, and a torn tail, naming the file', async () => {
    const h = history(3, 600);
    (await Memory.open(h.dir)).close();
    const s = new Store(layout(h.dir));
    s.check(Date.now());
    const [first, , last] = [...s.logs.values()].filter((x) => x.name !== LOCAL);
    const text = readFileSync(first!.path, 'latin1');
    writeFileSync(first!.path, text.replace('lorem', 'LOREM'), 'latin1');
    appendFileSync(last!.path, serialize([ota(99_999, 99_999)]).slice(0, 50));
    const problems = verifyMemory(layout(h.dir), Date.now());
    expect(problems.some((p) => p.file === first!.rel)).toBe(true);
    expect(problems.some((p) => p.file === last!.rel && /incomplete entry/.test(p.message))).toBe(true);
  });
});
