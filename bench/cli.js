/**
 * CLI cold start: a fresh `gctx` process per call (node start, module load, open, answer),
 * against the floor of starting node itself. `gctx status` is timed on a 10,000-event
 * memory; `gctx commit` on the same memory (it writes, with fsync). The memory is in a git
 * repository, as users run it. The bar: status within 1.3 × `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureCopy, floors, fmt, removeDir, ROOT, spread, stats } from './lib.js';

const BAR = 1.3;

export const title = 'CLI cold start (fresh process per call)';

/** The package's bin as installed. */
const GCTX = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.gctx);

function timeSpawn(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export async function run({ quick = false, long = false } = {}) {
  const size = 10_000;
  const runs = quick ? 5 : long ? 41 : 21;
  const fx = await fixtureCopy(`h${size}`, { events: size });
  const cases = [
    ['node -e 0 (floor: start node)', ['-e', '0']],
    ['gctx --version (the bootstrap alone)', [GCTX, '--version']],
    ['gctx --help (load the command table, no memory)', [GCTX, '--help']],
    [`gctx status on ${fx.events.toLocaleString('en-US')} events`, [GCTX, 'status', '--dir', fx.dir]],
    [`gctx status --json on ${fx.events.toLocaleString('en-US')} events`, [GCTX, 'status', '--json', '--dir', fx.dir]],
    [`gctx commit on ${fx.events.toLocaleString('en-US')} events`, null],
  ];
  const samples = cases.map(() => []);
  let n = 0;
  timeSpawn([GCTX, 'status', '--dir', fx.dir]); // warm the page cache
  for (let r = 0; r < runs; r++) {
    cases.forEach(([, args], i) => {
      samples[i].push(
        timeSpawn(args ?? [GCTX, 'commit', `bench commit ${++n} from a fresh CLI process`, '--dir', fx.dir]),
      );
    });
  }
  removeDir(fx.dir);
  const st = samples.map((s) => stats(s));
  const floor = st[0].median;
  const ratio = st[3].median / floor;
  const fl = await floors();
  return {
    title,
    columns: ['command', 'ms median (p10–p90)', 'over node start ms', '× node -e 0'],
    rows: cases.map(([name], i) => [
      name,
      spread(st[i], 0),
      i === 0 ? '—' : fmt(st[i].median - floor, 0),
      i === 0 ? '1.00' : fmt(st[i].median / floor),
    ]),
    summary: `gctx status cold on ${fx.events.toLocaleString('en-US')} events in a git repository: ${fmt(st[3].median, 0)} ms = ${fmt(ratio)} × node start (${fmt(floor, 0)} ms; bar ${BAR}); floors of the run: git status ${fmt(fl.gitStatus.median, 1)} ms, append+fsync ${fmt(fl.appendFsync.median)} ms`,
    pass: ratio <= BAR,
    json: { runs, events: fx.events, cases: cases.map(([name], i) => ({ name, ...st[i], samples: samples[i] })) },
  };
}
