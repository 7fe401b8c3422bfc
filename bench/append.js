/**
 * Append throughput: OTA entries through Memory.execute (lock, decide, one write, fsync,
 * projections) against the floor of a bare loop that appends the very same bytes with
 * open + write + fsync + close and nothing else. Runs alternate so both see the same disk.
 */
import { closeSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from '../dist/index.js';
import { fixtureCopy, fmt, removeDir, spread, stats } from './lib.js';

export const title = 'Append throughput (OTA entries, fsync each) vs a bare append+fsync floor';

export async function run({ quick = false, long = false } = {}) {
  const perRun = quick ? 100 : 300;
  const runs = quick ? 3 : long ? 11 : 7;
  const fx = await fixtureCopy('h1000', { events: 1_000 });
  const m = await Memory.open(fx.dir);
  const logPath = join(fx.dir, '.GCC', 'log.md');
  const floorPath = join(fx.dir, 'floor.log');
  const engine = [];
  const floor = [];
  const ratios = [];
  let k = 0;
  for (let r = 0; r < runs; r++) {
    const before = statSync(logPath).size;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < perRun; i++) {
      k++;
      await m.execute({ type: 'log', observation: `observation ${k}: the test suite printed 3 failures in parser.test.ts`, thought: `thought ${k}: the tokenizer drops the last byte on a split`, action: `action ${k}: read src/log/codec.ts around the tail handling` });
    }
    const engineS = Number(process.hrtime.bigint() - t0) / 1e9;
    // The exact bytes this run appended, entry by entry.
    const text = readFileSync(logPath).subarray(before).toString('utf8');
    const entries = text.split('\n\n---\n\n').filter(Boolean).map((e) => Buffer.from(`${e}\n\n---\n\n`));
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
      ['gctx execute(log) on a 1,000-event memory', spread(e, 0), fmt(1000 / e.median), `${fmt(q.median * 100, 0)}% (${fmt(q.p10 * 100, 0)}–${fmt(q.p90 * 100, 0)}%)`],
      ['floor: open+write+fsync+close of the same bytes', spread(f, 0), fmt(1000 / f.median), '100%'],
    ],
    summary: `Appends run at ${fmt(q.median * 100, 0)}% of the bare fsync floor (${fmt(e.median, 0)} vs ${fmt(f.median, 0)} events/s, ${fmt(bytesPerEntry, 0)} bytes/entry, ${runs} runs × ${perRun})`,
    json: { perRun, runs, bytesPerEntry, engine: e, floor: f, shareOfFloor: q, engineSamples: engine, floorSamples: floor },
  };
}
