/**
 * COMMIT, this build against another build of gctx (`--baseline <checkout>`: a worktree of an
 * earlier commit, built), in one process and interleaved — one commit on each memory per round,
 * the order alternating — so a noisy machine's drift hits both alike and the ratio is taken per
 * round too. Each side builds its history with its own bench/lib.js (its own layout).
 *
 *   node bench/versus.js --baseline ../gcc-old [--sizes 100,10000] [--rounds 60]
 *
 * Not part of `npm run bench` (it needs a second build); its table goes in a commit message or
 * docs/benchmarks.md by hand.
 */
import { resolve, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, removeDir, spread, stats, timeMs, tempDir } from './lib.js';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
}

const baseline = arg('baseline');
if (!baseline) {
  process.stderr.write('usage: node bench/versus.js --baseline <checkout of an earlier gctx, built> [--sizes 100,10000] [--rounds 60]\n');
  process.exit(1);
}
const sizes = arg('sizes', '100,10000').split(',').map(Number);
const rounds = Number(arg('rounds', '60'));
const warmup = 5;

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

const here = resolve(import.meta.dirname, '..');
const before = await side(resolve(baseline), 'before');
const after = await side(here, 'after');
let n = 0;
const commit = (m) => m.execute({ type: 'commit', contribution: `Bench commit ${++n}: measured the latency of one COMMIT with fsync at this history size.`, files: [{ path: `src/bench/${n % 50}.ts`, added: 3, removed: 1 }] });
const all = [...before, ...after];
for (let i = 0; i < warmup; i++) for (const x of all) await commit(x.m);
const perRound = sizes.map(() => []);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [...all].reverse() : all;
  const t = new Map();
  for (const x of order) t.set(x, await timeMs(() => commit(x.m)));
  for (const x of all) x.samples.push(t.get(x));
  sizes.forEach((_, i) => perRound[i].push(t.get(after[i]) / t.get(before[i])));
}
for (const x of all) {
  x.m.close();
  removeDir(x.dir);
}
const rows = sizes.map((size, i) => {
  const b = stats(before[i].samples);
  const a = stats(after[i].samples);
  return [size.toLocaleString('en-US'), spread(b), spread(a), fmt(a.median / b.median), spread(stats(perRound[i]))];
});
const head = ['history (events)', `before ${baseline} ms`, 'after ms', 'after / before (medians)', 'per-round ratio (p10–p90)'];
process.stdout.write(`COMMIT in-process, ${rounds} interleaved rounds\n\n| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
