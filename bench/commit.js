/**
 * COMMIT in-process (Memory.execute, fsync included) as users run it: the memory in a git
 * repository whose work tree the agent edits between commits, so each COMMIT asks git which
 * files changed. Beside it, in the same rounds, its floor: appending an entry's worth of bytes
 * with fsync, plus one `git status` process in the same repository. Several history sizes,
 * interleaved — one commit on each memory per round — so drift of a noisy machine hits every
 * figure alike; ratios are also taken per round.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from '../dist/index.js';
import { fixtureCopy, fmt, removeDir, spread, stats, timeMs } from './lib.js';

export const title = 'COMMIT in a git repository vs its floor (append+fsync + one `git status`)';

const git = (cwd, ...args) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });

/** The fixture's folder made a project in git: 200 source files committed, .GCC/ as gctx leaves it. */
function inGit(dir) {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'bench@example.invalid');
  git(dir, 'config', 'user.name', 'bench');
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (let i = 0; i < 200; i++) writeFileSync(join(dir, 'src', `m${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'project');
}

export async function run({ quick = false, long = false } = {}) {
  const sizes = quick ? [100, 10_000] : [100, 10_000, 100_000];
  const rounds = quick ? 15 : long ? 200 : 60;
  const warmup = 5;
  const mems = [];
  for (const size of sizes) {
    const fx = await fixtureCopy(`h${size}`, { events: size });
    inGit(fx.dir);
    const m = await Memory.open(fx.dir);
    mems.push({ size, fx, m, first: 0, samples: [], floor: [], fsync: [], status: [] });
  }
  let n = 0;
  const commit = (x) => {
    n++;
    // What an agent does between milestones: edits a tracked file and adds one.
    writeFileSync(join(x.fx.dir, 'src', `m${n % 200}.ts`), `export const changed = ${n};\n`);
    writeFileSync(join(x.fx.dir, 'src', `new${n}.ts`), `export const n = ${n};\n`);
    return x.m.execute({
      type: 'commit',
      contribution: `Bench commit ${n}: measured the latency of one COMMIT with fsync in a git repository.`,
    });
  };
  const floor = (x) => {
    const t0 = process.hrtime.bigint();
    const fd = openSync(join(x.fx.dir, '.GCC', '.local', 'bench-floor'), 'a');
    writeSync(fd, 'x'.repeat(700));
    fsyncSync(fd);
    closeSync(fd);
    const t1 = process.hrtime.bigint();
    git(x.fx.dir, 'status', '--porcelain');
    const t2 = process.hrtime.bigint();
    x.fsync.push(Number(t1 - t0) / 1e6);
    x.status.push(Number(t2 - t1) / 1e6);
    x.floor.push(Number(t2 - t0) / 1e6);
  };
  for (const x of mems) x.first = await timeMs(() => commit(x));
  for (let i = 0; i < warmup; i++) for (const x of mems) await commit(x);
  const perRound = mems.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...mems].reverse() : mems;
    for (const x of order) {
      if ((r + mems.indexOf(x)) % 2) floor(x);
      x.samples.push(await timeMs(() => commit(x)));
      if ((r + mems.indexOf(x)) % 2 === 0) floor(x);
    }
    mems.forEach((x, i) => perRound[i].push(x.samples[r] / x.floor[r]));
  }
  for (const x of mems) x.m.close();
  const base = stats(mems[0].samples).median;
  const ratioOf = (x) => stats(x.samples).median / stats(x.floor).median;
  const rows = mems.map((x, i) => [
    x.size.toLocaleString('en-US'),
    spread(stats(x.samples)),
    fmt(stats(x.fsync).median),
    fmt(stats(x.status).median),
    `${fmt(ratioOf(x))}× (per round ${spread(stats(perRound[i]))})`,
    fmt(x.first),
    fmt(stats(x.samples).median / base),
  ]);
  const worst = Math.max(...mems.map(ratioOf));
  const big = mems[mems.length - 1];
  const growth = stats(big.samples).median / base;
  const at = (x) => `${fmt(ratioOf(x))}× at ${x.size.toLocaleString('en-US')}`;
  const summary =
    `COMMIT in git / its floor: ${mems.map(at).join(', ')} (target ≤ 2); ` +
    `at ${big.size.toLocaleString('en-US')} events / at ${sizes[0]}: ${fmt(growth)}× (target ≤ 1.3)`;
  for (const x of mems) removeDir(x.fx.dir);
  return {
    title,
    columns: [
      'history (events)',
      'COMMIT ms median (p10–p90)',
      'append+fsync ms',
      '`git status` ms',
      'COMMIT / floor',
      'first after open ms',
      'ratio to smallest',
    ],
    rows,
    summary,
    pass: worst <= 2 && growth <= 1.3,
    json: {
      rounds,
      warmup,
      sizes: mems.map((x, i) => ({
        size: x.size,
        events: x.fx.events,
        firstAfterOpenMs: x.first,
        commit: { ...stats(x.samples), samples: x.samples },
        fsync: stats(x.fsync),
        status: stats(x.status),
        floor: stats(x.floor),
        ratio: ratioOf(x),
        ratioPerRound: stats(perRound[i]),
      })),
      targetFloorRatio: 2,
      targetGrowth: 1.3,
    },
  };
}
