/**
 * Append throughput: OTA entries through Memory.execute (lock, decide, one write, fsync,
 * projections) against the floor of a bare loop that appends the very same bytes with
 * open + write + fsync + close and nothing else. Runs alternate so both see the same disk.
 */
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from '../dist/index.js';
import { fixtureCopy, fmt, removeDir, spread, stats } from './lib.js';

export const title = 'Append throughput (OTA entries, fsync each) vs a bare append+fsync floor';

/** Every log's size: the event segments and the local log. */
function logSizes(gcc) {
  const sizes = new Map();
  const events = join(gcc, 'events');
  for (const month of existsSync(events) ? readdirSync(events) : []) {
    for (const name of readdirSync(join(events, month))) {
      if (name.endsWith('.md')) sizes.set(join(events, month, name), statSync(join(events, month, name)).size);
    }
  }
  const local = join(gcc, '.local', 'local.md');
  if (existsSync(local)) sizes.set(local, statSync(local).size);
  return sizes;
}

export async function run({ quick = false, long = false } = {}) {
  const perRun = quick ? 100 : 300;
  const runs = quick ? 3 : long ? 11 : 7;
  const fx = await fixtureCopy('h1000', { events: 1_000 });
  const m = await Memory.open(fx.dir);
  const gcc = join(fx.dir, '.GCC');
  const floorPath = join(fx.dir, 'floor.log');
  const engine = [];
  const floor = [];
  const ratios = [];
  let k = 0;
  for (let r = 0; r < runs; r++) {
    const before = logSizes(gcc);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < perRun; i++) {
      k++;
      await m.execute({
        type: 'log',
        observation: `observation ${k}: the test suite printed 3 failures in parser.test.ts`,
        thought: `thought ${k}: the tokenizer drops the last byte on a split`,
        action: `action ${k}: read src/log/codec.ts around the tail handling`,
      });
    }
    const engineS = Number(process.hrtime.bigint() - t0) / 1e9;
    // The exact bytes this run appended, entry by entry, in whichever logs took them (the
    // clone's open segment, a new one if it rotated, the local log).
    const entries = [];
    for (const [path, size] of logSizes(gcc)) {
      const from = before.get(path) ?? 0;
      if (size <= from) continue;
      const text = readFileSync(path).subarray(from).toString('utf8');
      for (const e of text.split('\n---\n')) if (e.trim()) entries.push(Buffer.from(`${e.replace(/^\n+/, '')}\n---\n`));
    }
    const t1 = process.hrtime.bigint();
    for (const buf of entries) {
      const fd = openSync(floorPath, 'a');
      writeSync(fd, buf);
      fsyncSync(fd);
      closeSync(fd);
    }
    const floorS = Number(process.hrtime.bigint() - t1) / 1e9;
    engine.push(perRun / engineS);
    floor.push(entries.length / floorS);
    ratios.push(perRun / engineS / (entries.length / floorS));
  }
  m.close();
  const bytesPerEntry = statSync(floorPath).size / (perRun * runs);
  removeDir(fx.dir);
  const e = stats(engine);
  const f = stats(floor);
  const q = stats(ratios);
  return {
    title,
    columns: ['path', 'events/s median (p10–p90)', 'ms/event', 'share of floor'],
    rows: [
      [
        'gctx execute(log) on a 1,000-event memory',
        spread(e, 0),
        fmt(1000 / e.median),
        `${fmt(q.median * 100, 0)}% (${fmt(q.p10 * 100, 0)}–${fmt(q.p90 * 100, 0)}%)`,
      ],
      ['floor: open+write+fsync+close of the same bytes', spread(f, 0), fmt(1000 / f.median), '100%'],
    ],
    summary: `Appends run at ${fmt(q.median * 100, 0)}% of the bare fsync floor (${fmt(e.median, 0)} vs ${fmt(f.median, 0)} events/s, ${fmt(bytesPerEntry, 0)} bytes/entry, ${runs} runs × ${perRun})`,
    json: {
      perRun,
      runs,
      bytesPerEntry,
      engine: e,
      floor: f,
      shareOfFloor: q,
      engineSamples: engine,
      floorSamples: floor,
    },
  };
}
