/**
 * This build against another build of gctx (`--baseline <checkout>`: a worktree of an earlier
 * commit, built), in one process and interleaved — each round measures each side once, the
 * order alternating — so a noisy machine's drift hits both alike and the ratio is taken per
 * round too. Each side builds its history with its own bench/lib.js (its own layout).
 *
 *   node bench/versus.js --baseline ../gcc-old [--mode commit|append|replay] [--rounds N]
 *
 * - commit (default): one COMMIT on each memory per round, at each of `--sizes` (100,10000).
 * - append: `--per` (100) OTA log entries (fsync each) per side per round, each side in a fresh
 *   memory warmed with 300 events; wall and CPU (user + system) per event.
 * - replay: `Memory.open`, in a fresh process each time, of a `--events` (100,000) history
 *   whose views and caches were removed (the first layout's branch views were committed files and stay, as its own bench
 *   left them); wall and CPU. `--fixtures <dir>` keeps the built histories between runs.
 *
 * Not part of `npm run bench` (it needs a second build); its table goes in a commit message or
 * docs/benchmarks.md by hand.
 */
import { resolve, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, removeDir, spread, stats, tempDir } from './lib.js';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
}

// The replay's child: one Memory.open in a fresh process, as a command or a session starts.
if (process.argv[2] === '--open-child') {
  const { Memory } = await import(pathToFileURL(join(process.argv[3], 'dist', 'index.js')).href);
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  (await Memory.open(process.argv[4])).close();
  const c = process.cpuUsage(c0);
  process.stdout.write(
    JSON.stringify({ wall: Number(process.hrtime.bigint() - t0) / 1e6, cpu: (c.user + c.system) / 1000 }),
  );
  process.exit(0);
}

const baseline = arg('baseline');
if (!baseline) {
  process.stderr.write(
    'usage: node bench/versus.js --baseline <checkout of an earlier gctx, built> [--sizes 100,10000] [--rounds 60]\n',
  );
  process.exit(1);
}
const mode = arg('mode', 'commit');
const sizes = arg('sizes', '100,10000').split(',').map(Number);
const rounds = Number(arg('rounds', mode === 'replay' ? '9' : mode === 'append' ? '15' : '60'));
const warmup = 5;
const here = resolve(import.meta.dirname, '..');
const load = async (root) => ({
  lib: await import(pathToFileURL(join(root, 'bench', 'lib.js')).href),
  Memory: (await import(pathToFileURL(join(root, 'dist', 'index.js')).href)).Memory,
});
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
/** Wall and CPU (user + system) ms of `fn`. */
async function measure(fn) {
  const c0 = cpuMs();
  const t0 = process.hrtime.bigint();
  await fn();
  return { wall: Number(process.hrtime.bigint() - t0) / 1e6, cpu: cpuMs() - c0 };
}
/** Rows of wall and CPU for both sides, with the medians' ratio and the per-round ratios. */
function report(title, unit, before, after) {
  const row = (k) => {
    const b = stats(before.map((x) => x[k]));
    const a = stats(after.map((x) => x[k]));
    return [
      `${k === 'wall' ? 'wall' : 'CPU (user + system)'} ${unit}`,
      spread(b),
      spread(a),
      fmt(a.median / b.median),
      spread(stats(after.map((x, i) => x[k] / before[i][k]))),
    ];
  };
  const head = ['measure', `before ${baseline}`, 'after', 'after / before (medians)', 'per-round ratio (p10–p90)'];
  process.stdout.write(
    `${title}, ${rounds} interleaved rounds\n\n| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|\n${[
      'wall',
      'cpu',
    ]
      .map(row)
      .map((r) => `| ${r.join(' | ')} |`)
      .join('\n')}\n`,
  );
}

if (mode === 'append') {
  const per = Number(arg('per', '100'));
  const sides = [];
  for (const [root, label] of [
    [resolve(baseline), 'before'],
    [here, 'after'],
  ]) {
    const { lib, Memory } = await load(root);
    const dir = tempDir(`gcc-versus-${label}-`);
    await lib.buildHistory(dir, { events: 300 });
    sides.push({ dir, m: await Memory.open(dir), samples: [] });
  }
  let k = 0;
  const entry = (m) =>
    m.execute({
      type: 'log',
      observation: `observation ${++k}: the test suite printed 3 failures in parser.test.ts`,
      thought: `thought ${k}: the tokenizer drops the last byte on a split`,
      action: `action ${k}: read src/log/codec.ts around the tail handling`,
    });
  for (const s of sides) for (let i = 0; i < 20; i++) await entry(s.m);
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const x = await measure(async () => {
        for (let i = 0; i < per; i++) await entry(s.m);
      });
      s.samples.push({ wall: x.wall / per, cpu: x.cpu / per });
    }
  }
  for (const s of sides) {
    s.m.close();
    removeDir(s.dir);
  }
  report(`Append (OTA entry, fsync each), ${per} entries a round`, 'ms per event', sides[0].samples, sides[1].samples);
  process.exit(0);
}

if (mode === 'replay') {
  const { cpSync, rmSync, readdirSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  const events = Number(arg('events', '100000'));
  const fixtures = arg('fixtures');
  const sides = [];
  for (const [root, label] of [
    [resolve(baseline), 'before'],
    [here, 'after'],
  ]) {
    const { lib } = await load(root);
    process.env.GCC_BENCH_FIXTURES = fixtures ? join(resolve(fixtures), label) : tempDir(`gcc-versus-fx-${label}-`);
    const info = await lib.fixture(`h${events}`, { events });
    const dir = tempDir(`gcc-versus-${label}-`);
    cpSync(join(info.dir, '.GCC'), join(dir, '.GCC'), { recursive: true });
    sides.push({ label, root, dir, samples: [], fixtures: fixtures ? null : process.env.GCC_BENCH_FIXTURES });
  }
  /** Views and caches gone, as each side's own replay bench removes them. */
  const clear = (s) => {
    const gcc = join(s.dir, '.GCC');
    const first = readdirSync(gcc).includes('.cache');
    if (first) rmSync(join(gcc, '.cache'), { recursive: true, force: true });
    else rmSync(join(gcc, '.local', 'cache'), { recursive: true, force: true });
    for (const f of first
      ? ['main.md', 'metadata.yaml', 'commit.md']
      : ['main.md', 'metadata.yaml', 'commit.md', 'log.md', 'branches'])
      rmSync(join(gcc, f), { recursive: true, force: true });
  };
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      clear(s);
      s.samples.push(
        JSON.parse(
          execFileSync(process.execPath, [import.meta.filename, '--open-child', s.root, s.dir], { encoding: 'utf8' }),
        ),
      );
    }
  }
  for (const s of sides) {
    removeDir(s.dir);
    if (s.fixtures) removeDir(s.fixtures);
  }
  report(
    `Replay of ${events.toLocaleString('en-US')} events into every view at Memory.open`,
    'ms',
    sides[0].samples,
    sides[1].samples,
  );
  process.exit(0);
}

async function side(root, label) {
  const lib = await import(pathToFileURL(join(root, 'bench', 'lib.js')).href);
  const { Memory } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href);
  const mems = [];
  for (const size of sizes) {
    const dir = tempDir(`gcc-versus-${label}-`);
    const info = await lib.buildHistory(dir, { events: size });
    mems.push({ label, size, dir, events: info.events, m: await Memory.open(dir), samples: [] });
  }
  return mems;
}

const before = await side(resolve(baseline), 'before');
const after = await side(here, 'after');
let n = 0;
const commit = (m) =>
  m.execute({
    type: 'commit',
    contribution: `Bench commit ${++n}: measured the latency of one COMMIT with fsync at this history size.`,
    files: [{ path: `src/bench/${n % 50}.ts`, added: 3, removed: 1 }],
  });
const all = [...before, ...after];
for (let i = 0; i < warmup; i++) for (const x of all) await commit(x.m);
const perRound = sizes.map(() => []);
const cpuPerRound = sizes.map(() => []);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [...all].reverse() : all;
  const t = new Map();
  for (const x of order) t.set(x, await measure(() => commit(x.m)));
  for (const x of all) x.samples.push(t.get(x));
  sizes.forEach((_, i) => {
    perRound[i].push(t.get(after[i]).wall / t.get(before[i]).wall);
    cpuPerRound[i].push(t.get(after[i]).cpu / t.get(before[i]).cpu);
  });
}
for (const x of all) {
  x.m.close();
  removeDir(x.dir);
}
const rows = sizes.flatMap((size, i) =>
  ['wall', 'cpu'].map((k) => {
    const b = stats(before[i].samples.map((x) => x[k]));
    const a = stats(after[i].samples.map((x) => x[k]));
    return [
      `${size.toLocaleString('en-US')}, ${k === 'wall' ? 'wall' : 'CPU (user + system)'}`,
      spread(b),
      spread(a),
      fmt(a.median / b.median),
      spread(stats(k === 'wall' ? perRound[i] : cpuPerRound[i])),
    ];
  }),
);
const head = [
  'history (events)',
  `before ${baseline} ms`,
  'after ms',
  'after / before (medians)',
  'per-round ratio (p10–p90)',
];
process.stdout.write(
  `COMMIT in-process, ${rounds} interleaved rounds\n\n| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`,
);
