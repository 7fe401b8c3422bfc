/**
 * Replay of a whole history into every view, against the floor of merely reading the same
 * logs and JSON-parsing their machine lines.
 *
 * - replay (end to end): a fresh Memory.open of a memory whose views and caches are gone:
 *   read every segment, check every entry (CRC, schema, sequence), fold every event in id
 *   order, and write every view; and the same in a fresh clone, where no ledger vouches for
 *   any log.
 * - stages: the engine's streamed read in id order, with and without the fold, timed apart.
 * - floor A: read the same log files, find the machine lines, JSON.parse each.
 * - floor B: JSON.parse alone, over the machine lines already in memory.
 * Runs alternate (floor, replay, floor, …) so both see the same machine.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from '../dist/index.js';
import { replayer } from '../dist/decider/evolve.js';
import { layout } from '../dist/store/paths.js';
import { Store } from '../dist/store/store.js';
import { fixtureCopy, fmt, gc, removeDir, spread, stats } from './lib.js';

export const title = 'Replay into every view vs JSON-parsing the machine lines';

const PREFIX = '\n<!-- gcc:e ';

/** Every log of the memory: its segments and the local log. */
function logFiles(dir) {
  const l = layout(dir);
  const out = [];
  for (const month of readdirSync(l.events).sort())
    for (const n of readdirSync(join(l.events, month)).sort()) out.push(join(l.events, month, n));
  try {
    statSync(l.localLog);
    out.push(l.localLog);
  } catch {
    /* no local events */
  }
  return out;
}

function machineLines(text, out) {
  for (let i = text.indexOf(PREFIX); i !== -1; i = text.indexOf(PREFIX, i + 1)) {
    const end = text.indexOf('\n', i + 1);
    const line = text.slice(i + PREFIX.length, end);
    out.push(line.slice(0, line.lastIndexOf(' ', line.length - 5)));
  }
  return out;
}

function floorA(files) {
  let n = 0;
  for (const f of files) for (const json of machineLines(readFileSync(f, 'utf8'), [])) JSON.parse(json), n++;
  return n;
}

function floorB(lines) {
  let n = 0;
  for (const json of lines) JSON.parse(json), n++;
  return n;
}

/** The engine's own stages, timed apart: the logs streamed in id order (read, CRC, decode, schema and sequence checks) with nothing kept, and the same with the fold. */
function stages(dir) {
  const t = [process.hrtime.bigint()];
  let n = 0;
  const open = (d) => {
    const store = new Store(layout(d));
    store.check(Date.now());
    return store;
  };
  open(dir).stream(() => n++);
  t.push(process.hrtime.bigint());
  const fold = replayer();
  open(dir).stream((e) => fold.add(e));
  fold.state();
  t.push(process.hrtime.bigint());
  const ms = (a, b) => Number(t[b] - t[a]) / 1e6;
  return { events: n, read: ms(0, 1), fold: ms(1, 2) };
}

/**
 * `fresh`: as a fresh clone finds it — the segments and no ledger, so every segment is new and
 * read (the local log stays, so the event count is the same). Otherwise the ledger stays and
 * only the views and caches are gone.
 */
async function endToEnd(dir, fresh) {
  const gcc = join(dir, '.GCC');
  const local = join(gcc, '.local');
  for (const n of fresh ? readdirSync(local).filter((n) => n !== 'local.md') : ['cache'])
    rmSync(join(local, n), { recursive: true, force: true });
  for (const f of ['main.md', 'metadata.yaml', 'commit.md', 'log.md', 'branches'])
    rmSync(join(gcc, f), { recursive: true, force: true });
  const t0 = process.hrtime.bigint();
  const m = await Memory.open(dir);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const n = m.state.events;
  m.close();
  return { ms, events: n };
}

/** `gctx replay` as a person runs it: every view rebuilt from the logs over views that are current. */
async function replayCommand(dir) {
  const m = await Memory.open(dir);
  const t0 = process.hrtime.bigint();
  await m.replay();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  m.close();
  return ms;
}

export async function run({ quick = false, long = false } = {}) {
  const size = quick ? 10_000 : 100_000;
  const runs = quick ? 3 : long ? 9 : 5;
  const fx = await fixtureCopy(`h${size}`, { events: size });
  const files = logFiles(fx.dir);
  const lines = [];
  for (const f of files) machineLines(readFileSync(f, 'utf8'), lines);
  const s = {
    floorA: [],
    floorB: [],
    e2e: [],
    clone: [],
    command: [],
    read: [],
    fold: [],
    ratioA: [],
    ratioB: [],
    ratioCmd: [],
  };
  let events = 0;
  for (let r = 0; r < runs; r++) {
    gc();
    let t0 = process.hrtime.bigint();
    const n = floorA(files);
    const a = Number(process.hrtime.bigint() - t0) / 1e6;
    gc();
    t0 = process.hrtime.bigint();
    floorB(lines);
    const b = Number(process.hrtime.bigint() - t0) / 1e6;
    gc();
    const im = stages(fx.dir);
    gc();
    const e2e = await endToEnd(fx.dir, false);
    gc();
    const clone = await endToEnd(fx.dir, true);
    gc();
    const command = await replayCommand(fx.dir);
    events = e2e.events;
    if (n !== im.events || n !== e2e.events || n !== clone.events)
      throw new Error(`event counts differ: floor ${n}, replay ${im.events}, open ${e2e.events}`);
    s.floorA.push(a);
    s.floorB.push(b);
    s.e2e.push(e2e.ms);
    s.clone.push(clone.ms);
    s.command.push(command);
    s.ratioCmd.push(command / a);
    for (const k of ['read', 'fold']) s[k].push(im[k]);
    s.ratioA.push(e2e.ms / a);
    s.ratioB.push(e2e.ms / b);
  }
  const bytes = files.reduce((acc, f) => acc + statSync(f).size, 0);
  removeDir(fx.dir);
  const st = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, stats(v)]));
  const A = st.floorA.median;
  const row = (name, x) => [name, spread(x, 0), fmt(x.median / A)];
  const ratio = st.e2e.median / A;
  return {
    title,
    columns: [
      `${events.toLocaleString('en-US')} events, ${fmt(bytes / 2 ** 20, 1)} MiB of logs in ${files.length} files`,
      'ms median (p10–p90)',
      '× floor A',
    ],
    rows: [
      row('replay end to end: open, check, fold, and write every view', st.e2e),
      row('  · the same in a fresh clone (no ledger: every log is new to it)', st.clone),
      row('`gctx replay` over current views (writes only views that differ)', st.command),
      row('  · stream every log in id order: read, CRC, decode, schema and sequence checks', st.read),
      row('  · the same, folding every event', st.fold),
      row('floor A: read the files and JSON.parse each machine line', st.floorA),
      row('floor B: JSON.parse the machine lines alone (already in memory)', st.floorB),
    ],
    summary: `Replay of ${events.toLocaleString('en-US')} events: ${fmt(st.e2e.median, 0)} ms end to end = ${fmt(st.e2e.median / st.floorB.median, 1)}× floor B (JSON.parse of the machine lines alone; per-round ${spread(st.ratioB, 1)}), ${fmt(ratio)}× floor A (read + JSON.parse); a fresh clone ${fmt(st.clone.median, 0)} ms; \`gctx replay\` ${fmt(st.command.median, 0)} ms = ${fmt(st.command.median / A)}× floor A (per round ${spread(st.ratioCmd)}); targets ≤ 2× floor A, ≤ 4× floor B`,
    pass: st.e2e.median / st.floorB.median <= 4 && st.e2e.median / A <= 2 && st.command.median / A <= 2,
    json: { events, bytes, logFiles: files.length, runs, ...st, samples: s },
  };
}
