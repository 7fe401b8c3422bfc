/**
 * Hook invocation time: a fresh `gctx hook --agent claude-code` process per event, fed a
 * Claude Code payload on stdin, timed from spawn to exit, against the floor of starting node;
 * and beside it, in the same run, the same payload as Claude Code's HTTP hook posts it to
 * `gctx serve` (POST /hooks/claude-code), timed from request to the end of the answer.
 *
 * Four variants, interleaved so load drift hits all alike:
 * - as shipped: the package bin (the bundle in dist/bin), whose bootstrap turns on Node's
 *   compile cache and sends `hook` straight to the hook's own file;
 * - the same without the compile cache (NODE_DISABLE_COMPILE_CACHE=1);
 * - through tsc's main.js, the CLI unbundled and without the bootstrap (every command's
 *   modules load first, each from its own file);
 * - HTTP to a running `gctx serve` over a kept-alive connection, as a long-running host
 *   sends them; the daemon serves its own copy of each memory, so the process variants'
 *   writes do not land in it.
 *
 * Every memory is a git repository's, as users run it (the journal, git's index and HEAD are
 * looked at). Each process figure is given beside `node -e 0` measured in the same rounds.
 * Targets: a logged PostToolUse at 10,000 events and a PreToolUse that decides nothing within
 * 1.5× `node -e 0`, and a median of at most 2 ms per HTTP round trip for each.
 *
 *   node bench/hook.js [--quick]          (after `npm run build`)
 *   node bench/run.js hook                (through the harness)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureCopy, fmt, removeDir, ROOT, spread, stats } from './lib.js';

export const title =
  'Hook invocation (gctx hook --agent claude-code, fresh process per event; HTTP to gctx serve beside it)';

/** The package's bin, as hosts run it (a bootstrap that takes the fast path for hooks). */
const GCTX = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.gctx);
const MAIN = join(ROOT, 'dist', 'adapters', 'cli', 'main.js');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'claude-code');
const TARGET_RATIO = 1.5;
const HTTP_TARGET_MS = 2;

/** `dir` made a git repository with its memory committed, as a user's project is. */
function gitRepo(dir) {
  const git = (...a) => execFileSync('git', a, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'memory');
}

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

/** `gctx serve` on `dir` (any free port), once it has written its state file. */
async function serve(dir) {
  const child = spawn(process.execPath, [GCTX, 'serve', '--dir', dir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const state = JSON.parse(readFileSync(join(dir, '.GCC', '.local', 'serve.json'), 'utf8'));
      if (state.pid === child.pid && out.includes('listening'))
        return { state, stop: () => (child.kill('SIGTERM'), exited) };
    } catch {
      // not written yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`gctx serve did not start in ${dir}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One hook posted over a kept-alive connection, timed from the request to the end of the answer. */
function timePost(agent, state, body) {
  return new Promise((resolve, reject) => {
    const headers = {
      Host: `127.0.0.1:${state.port}`,
      Authorization: `Bearer ${state.token}`,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    };
    const t0 = process.hrtime.bigint();
    const req = request(
      { host: '127.0.0.1', port: state.port, method: 'POST', path: '/hooks/claude-code', agent, headers },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          if (res.statusCode !== 200) reject(new Error(`POST /hooks/claude-code: ${res.statusCode}`));
          else resolve({ ms, stdout: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function run({ quick = false, long = false } = {}) {
  const runs = quick ? 5 : long ? 41 : 21;
  const { Memory } = await import('../dist/index.js');
  const small = mkdtempSync(join(tmpdir(), 'gcc-bench-hook-'));
  (await Memory.open(small, { create: true })).close();
  // fixtureCopy commits its memory in a git repository already.
  const big = await fixtureCopy('h10000', { events: 10_000 });
  gitRepo(small);
  for (const dir of [small, big.dir]) (await Memory.open(dir)).close();
  const served = new Map();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = { ...process.env };
  delete base.NODE_COMPILE_CACHE;
  delete base.NODE_DISABLE_COMPILE_CACHE;
  const variants = [
    ['as shipped (bin)', GCTX, { ...base }],
    ['bin, no compile cache', GCTX, { ...base, NODE_DISABLE_COMPILE_CACHE: '1' }],
    ['unbundled main.js, no bootstrap', MAIN, { ...base, NODE_DISABLE_COMPILE_CACHE: '1' }],
    ['HTTP to gctx serve (kept-alive connection)', 'http', null],
  ];
  const hook = ['hook', '--agent', 'claude-code'];
  const cases = [
    ['node -e 0 (floor)', ['-e', '0'], () => '', small, 'none'],
    ['PreToolUse Bash → no decision', hook, (d) => payload('pre-tool-use-bash', d), small, ''],
    ['PreToolUse Write .GCC/ → deny + log', hook, (d) => payload('pre-tool-use-write-gcc', d), small, 'deny'],
    // A PostToolUse answers nothing, or a commit suggestion when a threshold is crossed.
    ['PostToolUse Edit → log', hook, (d) => payload('post-tool-use-edit', d), small, 'none'],
    [
      `PostToolUse Edit → log, ${big.events.toLocaleString('en-US')} events`,
      hook,
      (d) => payload('post-tool-use-edit', d),
      big.dir,
      'none',
    ],
    ['SessionStart → briefing', hook, (d) => payload('session-start', d), small, 'additionalContext'],
  ];
  try {
    // The daemon's own copies: what it writes and what the processes write stay apart.
    for (const dir of [small, big.dir]) {
      const copy = mkdtempSync(join(tmpdir(), 'gcc-bench-serve-'));
      cpSync(join(dir, '.GCC'), join(copy, '.GCC'), { recursive: true });
      rmSync(join(copy, '.GCC', '.local'), { recursive: true, force: true });
      gitRepo(copy);
      served.set(dir, { dir: copy, daemon: null });
      served.get(dir).daemon = await serve(copy);
    }
    return await measure({ runs, served, agent, variants, hook, cases });
  } finally {
    agent.destroy();
    for (const s of served.values()) {
      await s.daemon?.stop();
      removeDir(s.dir);
    }
    removeDir(big.dir);
    rmSync(small, { recursive: true, force: true });
  }
}

async function measure({ runs, served, agent, variants, hook, cases }) {
  const samples = cases.map(() => variants.map(() => []));
  const argsOf = (args, entry) => (args === hook ? [entry, ...hook] : args);
  const once = async ([, args, input, dir], [, entry, env]) => {
    if (entry !== 'http') return timeSpawn(argsOf(args, entry), input(dir), dir, env);
    const s = served.get(dir);
    return timePost(agent, s.daemon.state, input(s.dir));
  };
  // Warm the page cache, the compile caches (the shipped one lives in the OS temp folder) and the connection.
  for (const variant of variants)
    for (const c of cases) if (c[1] === hook || variant[1] !== 'http') await once(c, variant);
  for (let r = 0; r < runs; r++) {
    for (const [i, c] of cases.entries()) {
      const expect = c[4];
      for (const [v, variant] of variants.entries()) {
        if (i === 0 && v > 0) continue; // one floor is enough
        const out = await once(c, variant);
        if (expect === '' && out.stdout !== '') throw new Error(`expected no decision, got ${out.stdout}`);
        if (expect && expect !== 'none' && !out.stdout.includes(expect))
          throw new Error(`expected ${expect}, got ${out.stdout}`);
        samples[i][v].push(out.ms);
      }
    }
  }
  const st = samples.map((row) => row.map((s) => (s.length ? stats(s) : null)));
  const floor = st[0][0].median;
  const http = variants.length - 1;
  const rows = cases.map(([name], i) => [
    name,
    ...variants.map((_, v) => (st[i][v] ? spread(st[i][v], v === http ? 2 : 0) : '—')),
    i === 0 ? '1.00×' : `${(st[i][0].median / floor).toFixed(2)}×`,
  ]);
  const ratio = (i) => st[i][0].median / floor;
  const post = st[4][0].median;
  // The HTTP target: a PreToolUse that decides nothing and a PostToolUse that logs.
  const httpPre = st[1][http].median;
  const httpPost = st[3][http].median;
  return {
    title,
    columns: ['event', ...variants.map(([v]) => `${v} ms median (p10–p90)`), 'as shipped ÷ node -e 0'],
    rows,
    summary:
      `gctx hook per fresh process, beside node -e 0 (${fmt(floor, 0)} ms) in the same rounds: PreToolUse ${ratio(1).toFixed(2)}×, ` +
      `PostToolUse at 10,000 events ${ratio(4).toFixed(2)}× (${fmt(post, 0)} ms), SessionStart ${ratio(5).toFixed(2)}×; target ${TARGET_RATIO}×. ` +
      `Over HTTP to gctx serve: PreToolUse ${fmt(httpPre)} ms, PostToolUse ${fmt(httpPost)} ms, SessionStart ${fmt(st[5][http].median)} ms per round trip; target ≤ ${HTTP_TARGET_MS} ms`,
    json: {
      runs,
      floor,
      ratios: { pre: ratio(1), deny: ratio(2), post: ratio(3), post10k: ratio(4), sessionStart: ratio(5) },
      variants: variants.map(([v]) => v),
      cases: cases.map(([name], i) => ({ name, variants: st[i] })),
      http: { pre: httpPre, post: httpPost, target: HTTP_TARGET_MS },
    },
    pass:
      ratio(1) <= TARGET_RATIO && ratio(4) <= TARGET_RATIO && httpPre <= HTTP_TARGET_MS && httpPost <= HTTP_TARGET_MS,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { table } = await import('./lib.js');
  const r = await run({ quick: process.argv.includes('--quick'), long: process.argv.includes('--long') });
  process.stdout.write(
    `## ${r.title}\n\n${table(r.columns, r.rows)}\n\n${r.summary}${r.pass ? '  [meets target]' : '  [MISSES target]'}\n`,
  );
}
