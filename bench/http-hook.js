/**
 * HTTP hook round trip: a PostToolUse (logged) and a PreToolUse (no decision) posted back to
 * back to a warm `gctx serve` over one kept-alive connection, as Claude Code sends them, in a
 * git repository's memory; timed from the request to the end of the answer. Beside it, in the
 * same rounds, two floors: GET /healthz on the same connection (the loopback round trip, node:http
 * and the daemon's checks), and an append + fsync of a small file beside the memory (a logged call
 * fsyncs twice: the journal copy, then the log). Target: a median of at most 2 ms.
 *
 * `--before <gctx.js>` serves a second project with another build (say, the main branch's) in the
 * same rounds, for a before/after on the same machine load.
 *
 *   node bench/http-hook.js [--quick] [--runs N] [--before <gctx.js>]   (after `npm run build`)
 *   node bench/run.js http-hook                    (through the harness)
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI, fmt, ROOT, spread, stats } from './lib.js';

export const title = 'HTTP hook to a warm gctx serve (kept-alive connection, git repository)';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'claude-code');
const TARGET_MS = 2;

function payload(name, dir) {
  return readFileSync(join(FIXTURES, `${name}.json`), 'utf8').replaceAll('__CWD__', JSON.stringify(dir).slice(1, -1));
}

/** A git repository with a memory, committed, as a user's project is. */
function project() {
  const dir = mkdtempSync(join(tmpdir(), 'gcc-bench-http-'));
  const git = (...a) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.com', ...a], { cwd: dir });
  git('init', '-q');
  execFileSync(process.execPath, [CLI, 'init', '--dir', dir], { stdio: 'ignore' });
  git('add', '-A');
  git('commit', '-qm', 'memory');
  return dir;
}

async function serve(dir, cli) {
  const child = spawn(process.execPath, [cli, 'serve', '--dir', dir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  while (!out.includes('listening')) {
    if (child.exitCode !== null) throw new Error(`gctx serve did not start in ${dir}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const state = JSON.parse(readFileSync(join(dir, '.GCC', '.local', 'serve.json'), 'utf8'));
  return { state, stop: () => (child.kill('SIGTERM'), exited) };
}

function send(agent, state, method, path, body) {
  return new Promise((resolve, reject) => {
    const headers = {
      Host: `127.0.0.1:${state.port}`,
      Authorization: `Bearer ${state.token}`,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    };
    const t0 = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port: state.port, method, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function run({ quick = false, runs, before } = {}) {
  const n = runs ?? (quick ? 200 : 1000);
  const builds = [['', CLI], ...(before ? [[' (before)', before]] : [])];
  const served = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples = { floor: [], fsync: [] };
  const fd = openSync(join(tmpdir(), `gcc-bench-fsync-${process.pid}`), 'a');
  const line = 'x'.repeat(400);
  const appendFsync = async () => {
    const t0 = process.hrtime.bigint();
    writeSync(fd, line);
    fsyncSync(fd);
    return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: 200 };
  };
  try {
    const steps = [['fsync', appendFsync]];
    for (const [suffix, cli] of builds) {
      const dir = project();
      const daemon = await serve(dir, cli);
      served.push({ dir, daemon });
      const hook = (body) => send(agent, daemon.state, 'POST', '/hooks/claude-code', body);
      const [postBody, preBody] = [payload('post-tool-use-edit', dir), payload('pre-tool-use-bash', dir)];
      for (let i = 0; i < 50; i++) await hook(postBody);
      if (!suffix) steps.push(['floor', () => send(agent, daemon.state, 'GET', '/healthz', '')]);
      steps.push([`post${suffix}`, () => hook(postBody)], [`pre${suffix}`, () => hook(preBody)]);
    }
    for (const [name] of steps) samples[name] ??= [];
    for (let i = 0; i < n; i++) {
      for (const [name, once] of steps) {
        const r = await once();
        if (r.status !== 200) throw new Error(`${name}: ${r.status}`);
        samples[name].push(r.ms);
      }
    }
  } finally {
    agent.destroy();
    closeSync(fd);
    for (const { dir, daemon } of served) {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const st = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
  const row = (name, key) => [name, spread(st[key], 2), `${(st[key].median / st.floor.median).toFixed(2)}×`];
  const rows = [row('GET /healthz (floor)', 'floor'), row('append + fsync, no HTTP (floor)', 'fsync')];
  for (const [suffix] of builds)
    rows.push(
      row(`PostToolUse Edit → logged${suffix}`, `post${suffix}`),
      row(`PreToolUse Bash → no decision${suffix}`, `pre${suffix}`),
    );
  return {
    title,
    columns: ['request', 'ms median (p10–p90)', '÷ GET /healthz'],
    rows,
    summary:
      `${n} rounds: PostToolUse ${fmt(st.post.median)} ms, PreToolUse ${fmt(st.pre.median)} ms, ` +
      `GET /healthz ${fmt(st.floor.median)} ms, append + fsync ${fmt(st.fsync.median)} ms; target ≤ ${TARGET_MS} ms`,
    json: { runs: n, ...st, target: TARGET_MS },
    pass: st.post.median <= TARGET_MS && st.pre.median <= TARGET_MS,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { table } = await import('./lib.js');
  const at = process.argv.indexOf('--runs');
  const runs = at === -1 ? undefined : Number(process.argv[at + 1]);
  const b = process.argv.indexOf('--before');
  const before = b === -1 ? undefined : process.argv[b + 1];
  const r = await run({ quick: process.argv.includes('--quick'), runs, before });
  process.stdout.write(
    `## ${r.title}\n\n${table(r.columns, r.rows)}\n\n${r.summary}${r.pass ? '  [meets target]' : '  [MISSES target]'}\n`,
  );
}
