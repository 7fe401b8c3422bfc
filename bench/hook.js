/**
 * Hook invocation time: a fresh `gctx hook --agent claude-code` process per event, fed a
 * Claude Code payload on stdin, timed from spawn to exit, against the floor of starting node.
 *
 * Three start-up variants, interleaved so load drift hits all alike:
 * - as shipped: the package bin (the bundle in dist/bin), whose bootstrap turns on Node's
 *   compile cache and sends `hook` straight to the hook's own file;
 * - the same without the compile cache (NODE_DISABLE_COMPILE_CACHE=1);
 * - through tsc's main.js, the CLI unbundled and without the bootstrap (every command's
 *   modules load first, each from its own file).
 *
 * Target (issue 5): under 80 ms per invocation. Public alternatives measured on this kind of
 * machine spend 60–75 ms (open-gcc, Node) and 450–800 ms (gcc-memory, Python) per hook
 * process (the project brief's survey of public implementations).
 *
 *   node bench/hook.js [--quick]          (after `npm run build`)
 *   node bench/run.js hook                (through the harness)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureCopy, fmt, removeDir, ROOT, spread, stats } from './lib.js';

export const title = 'Hook invocation (gctx hook --agent claude-code, fresh process per event)';

/** The package's bin, as hosts run it (a bootstrap that takes the fast path for hooks). */
const GCTX = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.gctx);
const MAIN = join(ROOT, 'dist', 'adapters', 'cli', 'main.js');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'claude-code');
const TARGET_MS = 80;

function payload(name, dir) {
  return readFileSync(join(FIXTURES, `${name}.json`), 'utf8').replaceAll('__CWD__', JSON.stringify(dir).slice(1, -1));
}

function timeSpawn(args, input, cwd, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { input, cwd, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 || r.stderr) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

export async function run({ quick = false, long = false } = {}) {
  const runs = quick ? 5 : long ? 41 : 21;
  const { Memory } = await import('../dist/index.js');
  const small = mkdtempSync(join(tmpdir(), 'gcc-bench-hook-'));
  (await Memory.open(small, { create: true })).close();
  const big = await fixtureCopy('h10000', { events: 10_000 });
  const base = { ...process.env };
  delete base.NODE_COMPILE_CACHE;
  delete base.NODE_DISABLE_COMPILE_CACHE;
  const variants = [
    ['as shipped (bin)', GCTX, { ...base }],
    ['bin, no compile cache', GCTX, { ...base, NODE_DISABLE_COMPILE_CACHE: '1' }],
    ['unbundled main.js, no bootstrap', MAIN, { ...base, NODE_DISABLE_COMPILE_CACHE: '1' }],
  ];
  const hook = ['hook', '--agent', 'claude-code'];
  const cases = [
    ['node -e 0 (floor)', ['-e', '0'], () => '', small, 'none'],
    ['PreToolUse Bash → no decision', hook, (d) => payload('pre-tool-use-bash', d), small, ''],
    ['PreToolUse Write .GCC/ → deny + log', hook, (d) => payload('pre-tool-use-write-gcc', d), small, 'deny'],
    // A PostToolUse answers nothing, or a commit suggestion when a threshold is crossed.
    ['PostToolUse Edit → log', hook, (d) => payload('post-tool-use-edit', d), small, 'none'],
    [`PostToolUse Edit → log, ${big.events.toLocaleString('en-US')} events`, hook, (d) => payload('post-tool-use-edit', d), big.dir, 'none'],
    ['SessionStart → briefing', hook, (d) => payload('session-start', d), small, 'additionalContext'],
  ];
  const samples = cases.map(() => variants.map(() => []));
  // Warm the page cache and the compile caches (the shipped one lives in the OS temp folder).
  const argsOf = (args, entry) => (args === hook ? [entry, ...hook] : args);
  for (const [, entry, env] of variants) for (const [, args, input, dir] of cases) timeSpawn(argsOf(args, entry), input(dir), dir, env);
  for (let r = 0; r < runs; r++) {
    cases.forEach(([, args, input, dir, expect], i) => {
      variants.forEach(([, entry, env], v) => {
        if (i === 0 && v > 0) return; // one floor is enough
        const out = timeSpawn(argsOf(args, entry), input(dir), dir, env);
        if (expect === '' && out.stdout !== '') throw new Error(`expected no decision, got ${out.stdout}`);
        if (expect && expect !== 'none' && !out.stdout.includes(expect)) throw new Error(`expected ${expect}, got ${out.stdout}`);
        samples[i][v].push(out.ms);
      });
    });
  }
  removeDir(big.dir);
  rmSync(small, { recursive: true, force: true });

  const st = samples.map((row) => row.map((s) => (s.length ? stats(s) : null)));
  const floor = st[0][0].median;
  const rows = cases.map(([name], i) => [
    name,
    ...variants.map((_, v) => (st[i][v] ? spread(st[i][v], 0) : '—')),
    i === 0 ? '—' : fmt(st[i][0].median - floor, 0),
  ]);
  const hookRows = st.slice(1).map((r) => r[0].median);
  const worst = Math.max(...hookRows);
  const post = st[3][0].median;
  return {
    title,
    columns: ['event', ...variants.map(([v]) => `${v} ms median (p10–p90)`), 'as shipped, over node start ms'],
    rows,
    summary:
      `gctx hook: PreToolUse ${fmt(st[1][0].median, 0)} ms, PostToolUse ${fmt(post, 0)} ms, SessionStart ${fmt(st[5][0].median, 0)} ms per fresh process ` +
      `(node itself starts in ${fmt(floor, 0)} ms; PreToolUse through the unbundled main.js without the bootstrap ${fmt(st[1][2].median, 0)} ms); target < ${TARGET_MS} ms; open-gcc 60–75 ms, gcc-memory 450–800 ms per hook`,
    json: { runs, floor, variants: variants.map(([v]) => v), cases: cases.map(([name], i) => ({ name, variants: st[i] })) },
    pass: worst < TARGET_MS,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { table } = await import('./lib.js');
  const r = await run({ quick: process.argv.includes('--quick'), long: process.argv.includes('--long') });
  process.stdout.write(`## ${r.title}\n\n${table(r.columns, r.rows)}\n\n${r.summary}${r.pass ? '  [meets target]' : '  [MISSES target]'}\n`);
}
