#!/usr/bin/env node
/**
 * The benchmark harness: `npm run bench` (builds, then runs every benchmark).
 *
 *   node bench/run.js [name ...] [--quick] [--long] [--keep]
 *
 * Each benchmark runs in its own node process (so one's heap does not slow the next, and
 * peak-memory figures are the process's own), prints a table with medians and spreads,
 * and writes bench/results/<name>.json. Big histories are built once per run and shared.
 * At the end, bench/results/latest.md holds every table with the command that made it.
 * `--quick` is a smoke test: its results go to a temporary folder, never over bench/results/.
 *
 * A benchmark is a module bench/<name>.js exporting `title` and `async run({ quick, long })`
 * that returns `{ title, columns, rows, summary, json, pass?, more? }` (see bench/commit.js);
 * `more` holds further tables, `{ title, columns, rows }`, printed after the first.
 * `mcp` and `hook` are picked up when bench/mcp.js and bench/hook.js exist.
 *
 * First the floors are measured (bench/lib.js measureFloors: node start, append + fsync, a `git
 * status` process, read + JSON.parse of the logs) and handed to every benchmark, which prints its
 * figures beside them; the floors table heads the output and latest.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BENCH_DIR,
  FLOOR_NAMES,
  fmt,
  machine,
  measureFloors,
  removeDir,
  resultsDir,
  spread,
  table,
  tempDir,
  writeResult,
} from './lib.js';

const CORE = [
  'commit',
  'append',
  'cli',
  'hook',
  'http-hook',
  'mcp',
  'briefing',
  'resume',
  'replay',
  'rss',
  'growth',
  'search',
];
const OPTIONAL = new Set(['hook', 'mcp']);

const argv = process.argv.slice(2);
const flags = new Set(argv.filter((a) => a.startsWith('--')));
const quick = flags.has('--quick');
const long = flags.has('--long') || process.env.GCC_LONG === '1';
// A quick run never overwrites the recorded results (bench/lib.js resultsDir).
if (quick) process.env.GCC_BENCH_QUICK = '1';

async function child(name) {
  const mod = await import(pathToFileURL(join(BENCH_DIR, `${name}.js`)).href);
  const r = await mod.run({ quick, long });
  if (!r) return; // the module printed and saved its own results
  const more = (r.more ?? []).map((t) => `\n### ${t.title}\n\n${table(t.columns, t.rows)}\n`).join('');
  process.stdout.write(
    `\n## ${r.title}\n\n${table(r.columns, r.rows)}\n${more}\n${r.summary}${r.pass === undefined ? '' : r.pass ? '  [meets target]' : '  [MISSES target]'}\n`,
  );
  writeResult(name, {
    title: r.title,
    summary: r.summary,
    pass: r.pass ?? null,
    quick,
    long,
    columns: r.columns,
    rows: r.rows,
    more: r.more ?? [],
    ...r.json,
  });
}

async function main() {
  const i = argv.indexOf('--child');
  if (i !== -1) return child(argv[i + 1]);
  const asked = argv.filter((a) => !a.startsWith('--'));
  for (const n of asked) if (!CORE.includes(n)) throw new Error(`unknown benchmark ${n}; known: ${CORE.join(', ')}`);
  const names = (asked.length ? asked : CORE).filter((n) => existsSync(join(BENCH_DIR, `${n}.js`)) || !OPTIONAL.has(n));
  const skipped = CORE.filter((n) => OPTIONAL.has(n) && !existsSync(join(BENCH_DIR, `${n}.js`)));
  const ownFixtures = !process.env.GCC_BENCH_FIXTURES;
  const fixtures = process.env.GCC_BENCH_FIXTURES ?? tempDir('gcc-bench-fixtures-');
  const command = `node bench/run.js${argv.length ? ` ${argv.join(' ')}` : ''}`;
  const m = machine();
  process.stdout.write(
    `GCC benchmarks — ${command}\nnode ${m.node}, ${m.cpus} × ${m.cpu}, ${m.memGiB} GiB${quick ? ', quick mode' : ''}${long ? ', long mode' : ''}\n`,
  );
  if (skipped.length)
    process.stdout.write(`(not present yet, skipped: ${skipped.map((n) => `bench/${n}.js`).join(', ')})\n`);
  const started = Date.now();
  process.env.GCC_BENCH_FIXTURES = fixtures;
  const fl = await measureFloors({ runs: quick ? 5 : 21 });
  const floorRows = Object.entries(FLOOR_NAMES).map(([k, name]) => [name, spread(fl[k], 2)]);
  const floorTable = table(['floor (same run)', 'ms median (p10–p90)'], floorRows);
  process.stdout.write(`\n## Floors\n\n${floorTable}\n`);
  writeResult('floors', { floors: fl });
  const failed = [];
  for (const name of names) {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, ['--expose-gc', join(BENCH_DIR, 'run.js'), '--child', name, ...flags], {
      stdio: 'inherit',
      env: { ...process.env, GCC_BENCH_FIXTURES: fixtures, GCC_BENCH_FLOORS: JSON.stringify(fl) },
    });
    process.stdout.write(`(${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
    if (r.status !== 0) failed.push(name);
  }
  if (!flags.has('--keep') && ownFixtures) removeDir(fixtures);
  // Gather what this run wrote into one summary and one markdown page.
  const results = [];
  for (const name of names) {
    const path = join(resultsDir(), `${name}.json`);
    if (!existsSync(path)) continue;
    const r = JSON.parse(readFileSync(path, 'utf8'));
    if (Date.parse(r.at) >= started) results.push({ name, ...r });
  }
  const md = [
    `Command: \`npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}\` (${command} after a build), ${new Date().toISOString().slice(0, 10)}`,
    `Machine: node ${m.node}, ${m.cpus} × ${m.cpu}, ${m.memGiB} GiB`,
    '',
    '### Floors, measured in the same run',
    '',
    floorTable,
    '',
    ...results.flatMap((r) => [
      `### ${r.title}`,
      '',
      table(r.columns, r.rows),
      '',
      ...(r.more ?? []).flatMap((t) => [`#### ${t.title}`, '', table(t.columns, t.rows), '']),
      `${r.summary}${r.pass === null || r.pass === undefined ? '' : r.pass ? ' — meets target' : ' — **misses target**'}`,
      '',
    ]),
  ].join('\n');
  writeFileSync(join(resultsDir(), 'latest.md'), md);
  writeResult('summary', {
    command,
    quick,
    long,
    failed,
    floors: Object.fromEntries(Object.entries(fl).map(([k, v]) => [k, v.median])),
    results: results.map((r) => ({ name: r.name, summary: r.summary, pass: r.pass })),
  });
  if (quick) process.stdout.write(`\n(quick run: results written to ${resultsDir()}, not bench/results/)\n`);
  process.stdout.write(
    `\nSummary (${((Date.now() - started) / 1000).toFixed(0)} s; floors: node start ${fmt(fl.nodeStart.median, 0)} ms, append+fsync ${fmt(fl.appendFsync.median)} ms, git status ${fmt(fl.gitStatus.median, 1)} ms, read+parse ${fmt(fl.readParse.median, 0)} ms):\n${results.map((r) => `- ${r.summary}${r.pass === null || r.pass === undefined ? '' : r.pass ? ' — meets target' : ' — MISSES target'}`).join('\n')}\n`,
  );
  if (failed.length) {
    process.stdout.write(`Benchmarks that crashed: ${failed.join(', ')}\n`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
