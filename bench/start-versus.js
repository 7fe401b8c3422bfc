/**
 * Process start, this build against other builds of gctx (`--baseline <checkout>`, repeatable:
 * worktrees of earlier commits, built), counted in instructions: valgrind's cachegrind without
 * its cache simulation counts every instruction the whole process executes, all threads, and
 * does not move with the load of the machine the way times do.
 *
 * Each side gets a fresh memory of its own (`gctx init`, then `gctx commit "first"`; not in a
 * git repository, where a status with no logged work since the commit asks git what changed)
 * and runs, from that folder, in this order: `gctx --help`; `gctx status`; `gctx hook --agent
 * claude-code` fed the Claude Code payloads bench/hook.js uses (a PreToolUse Bash that decides
 * nothing; a PostToolUse Edit that is logged, so the memory grows by one event a run). Node's
 * compile cache (each bootstrap turns it on) is warmed first in a memory of its own; the median
 * of `--runs` is reported.
 *
 * stdin is what spawnSync gives a child, a socket pair, as any host that runs hooks through
 * Node's child_process gives them; `--stdin-pipe` feeds every process through a shell pipe
 * instead, as a shell pipeline or a host that makes pipes does (src/adapters/hook/stdin.ts
 * reads the two differently).
 *
 *   node bench/start-versus.js --baseline ../gcc-first-layout [--baseline ../gcc-before] [--runs 5] [--stdin-pipe]
 *
 * Not part of `npm run bench` (it needs valgrind and other builds); its table goes in
 * docs/benchmarks.md by hand.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { removeDir, ROOT } from './lib.js';

const baselines = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--baseline' ? [resolve(a)] : []));
const runsAt = process.argv.indexOf('--runs');
const runs = runsAt === -1 ? 5 : Number(process.argv[runsAt + 1]);
const viaPipe = process.argv.includes('--stdin-pipe');
const stdinFiles = new Set();
if (spawnSync('valgrind', ['--version']).status !== 0) {
  process.stderr.write('bench/start-versus.js needs valgrind\n');
  process.exit(1);
}
const FIXTURES = join(ROOT, 'test', 'fixtures', 'claude-code');
const payload = (name, dir) =>
  readFileSync(join(FIXTURES, `${name}.json`), 'utf8').replaceAll('__CWD__', JSON.stringify(dir).slice(1, -1));
const env = { ...process.env, GCC_SESSION: '' };

/** A fresh memory for `bin`, and a way to run it there. */
function memory(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'gcc-start-'));
  const gctx = (args, input = '') => {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, input, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  };
  gctx(['init']);
  gctx(['commit', 'first']);
  return { dir, gctx };
}

const sides = [{ label: 'this build', root: ROOT }, ...baselines.map((root) => ({ label: root, root }))].map((s) => {
  const bin = join(s.root, JSON.parse(readFileSync(join(s.root, 'package.json'), 'utf8')).bin.gctx);
  return { ...s, bin };
});

const PROCESSES = [
  ['gctx --help', ['--help'], null],
  ['gctx status', ['status'], null],
  ['hook PreToolUse Bash, no decision', ['hook', '--agent', 'claude-code'], 'pre-tool-use-bash'],
  ['hook PostToolUse Edit, logged', ['hook', '--agent', 'claude-code'], 'post-tool-use-edit'],
];

// The compile cache is written by the first process that compiles a file; the memory measured
// is another, fresh one.
for (const s of sides) {
  const warm = memory(s.bin);
  for (let i = 0; i < 2; i++)
    for (const [, args, fixture] of PROCESSES) warm.gctx(args, fixture ? payload(fixture, warm.dir) : '');
  removeDir(warm.dir);
  Object.assign(s, memory(s.bin));
}

function instructions(s, args, fixture) {
  const input = fixture ? payload(fixture, s.dir) : '';
  const valgrind = [
    'valgrind',
    '--tool=cachegrind',
    '--cache-sim=no',
    '--cachegrind-out-file=/dev/null',
    process.execPath,
    s.bin,
    ...args,
  ];
  let r;
  if (viaPipe) {
    const file = join(s.dir, '..', `${s.dir.split('/').pop()}.stdin`);
    writeFileSync(file, input);
    stdinFiles.add(file);
    r = spawnSync('sh', ['-c', 'f=$1; shift; cat "$f" | exec "$@"', 'sh', file, ...valgrind], {
      cwd: s.dir,
      env,
      encoding: 'utf8',
    });
  } else {
    r = spawnSync(valgrind[0], valgrind.slice(1), { cwd: s.dir, input, env, encoding: 'utf8' });
  }
  const m = /I\s+refs:\s+([\d,]+)/.exec(r.stderr);
  if (!m) throw new Error(`no instruction count for ${args.join(' ')}: ${r.stderr.slice(-500)}`);
  return Number(m[1].replaceAll(',', ''));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const M = (n) => `${(n / 1e6).toFixed(0)}M`;
const rows = [];
for (const [name, args, fixture] of PROCESSES) {
  const counts = sides.map(() => []);
  // Sides alternate run by run; counts do not drift with load, but the memories grow alike.
  for (let i = 0; i < runs; i++) sides.forEach((s, k) => counts[k].push(instructions(s, args, fixture)));
  rows.push([name, ...counts.map(median)]);
}

const line = (cells) => process.stdout.write(`| ${cells.join(' | ')} |\n`);
line(['process', ...sides.map((s) => s.label), ...baselines.map((b) => `this / ${b}`)]);
line(['---', ...sides.map(() => '---'), ...baselines.map(() => '---')]);
for (const [name, mine, ...theirs] of rows)
  line([name, M(mine), ...theirs.map(M), ...theirs.map((t) => (mine / t).toFixed(2))]);
for (const s of sides) removeDir(s.dir);
for (const f of stdinFiles) rmSync(f, { force: true });
