/**
 * Peak memory (max RSS) and wall time of every read command on a long history, each a fresh
 * `gctx` process as a person or a hook runs it. The reads that need only the recent past
 * (status, the briefing a session start hands out, `context`, the newest log entries, a commit
 * by label, the whole roadmap) must touch only what they need; the passes over the whole
 * history (search, verify, which reads every byte, a replay from scratch after the cache is
 * gone, the first open of a fresh clone, and a search whose index is built from nothing) must
 * stream it. None may hold the history: the bar is ~100 MB whatever the history's size. The
 * default run uses 100,000 events (~95 MB of logs); `--long` 1,000,000 (~1 GB).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, fixture, fmt, removeDir, spread, stats, tempDir } from './lib.js';

export const title = 'Peak RSS of read commands on a long history (fresh process each)';

/** The bar every read command is held to, in MiB. */
const BAR = 100;

/** Max RSS in MiB and wall ms of one gctx process, through GNU time. */
function measure(dir, args, input) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, CLI, ...args], {
    cwd: dir,
    encoding: 'utf8',
    input,
    env: { ...process.env, GCC_SESSION: '' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`gctx ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const kib = Number(r.stderr.trim().split('\n').pop());
  return { mib: kib / 1024, ms, out: r.stdout };
}

export async function run({ quick = false, long = false } = {}) {
  const events = quick ? 20_000 : long ? 1_000_000 : 100_000;
  const runs = quick ? 1 : 3;
  const fx = await fixture(`h${events}`, { events });
  const dir = fx.dir;
  const label = `C${String(Math.max(1, Math.floor(fx.commits / 4))).padStart(3, '0')}`;
  const session = JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'bench', cwd: dir, source: 'startup' });
  const cache = join(dir, '.GCC', '.local', 'cache');
  // Each command: its name, arguments, stdin, what to do before each run, and how many runs
  // (building the search index from nothing takes minutes at 1 GB: once).
  const clones = [];
  const commands = [
    { name: 'status', args: ['status'] },
    { name: 'briefing (SessionStart hook)', args: ['hook', '--agent', 'claude-code'], input: session },
    { name: 'context (status level)', args: ['context'] },
    { name: 'newest 5 log entries', args: ['context', '--log', '5'] },
    { name: 'a commit by label', args: ['context', '--commit', label] },
    { name: 'context --full', args: ['context', '--full'] },
    { name: 'search (index built)', args: ['search', 'parser cache'], before: warmSearch },
    {
      name: 'search (index built from nothing)',
      args: ['search', 'parser cache'],
      before: () => rmSync(join(cache, 'search.db'), { force: true }),
      runs: 1,
    },
    { name: 'verify (every byte)', args: ['verify'] },
    {
      name: 'replay from scratch (no cache)',
      args: ['status'],
      before: () => rmSync(cache, { recursive: true, force: true }),
    },
    { name: 'first open of a fresh clone', args: ['status'], before: freshClone },
  ];
  let warmed = false;
  function warmSearch() {
    if (!warmed) measure(dir, ['search', 'parser cache']);
    warmed = true;
  }
  /** A copy of the logs alone, as git brings them to a new clone: the run opens it. */
  function freshClone() {
    const clone = tempDir('gcc-bench-clone-');
    mkdirSync(join(clone, '.GCC'), { recursive: true });
    cpSync(join(dir, '.GCC', 'events'), join(clone, '.GCC', 'events'), { recursive: true });
    clones.push(clone);
    return clone;
  }
  // Settle the fixture first (views and snapshot as a previous command leaves them).
  measure(dir, ['status']);
  const rows = [];
  const json = {
    events: fx.events,
    logBytes: fx.logBytes,
    segments: fx.segments,
    branches: fx.branches,
    bar: BAR,
    commands: [],
  };
  try {
    for (const c of commands) {
      const rss = [];
      const ms = [];
      for (let r = 0; r < (quick ? 1 : (c.runs ?? runs)); r++) {
        const where = c.before?.() ?? dir;
        const m = measure(typeof where === 'string' ? where : dir, c.args, c.input);
        rss.push(m.mib);
        ms.push(m.ms);
        for (const clone of clones.splice(0)) removeDir(clone);
      }
      const st = stats(rss);
      rows.push([c.name, spread(stats(ms), 0), spread(st, 0), st.median <= BAR * 1.1 ? 'yes' : 'no']);
      json.commands.push({ name: c.name, args: c.args, rssMiB: st, ms: stats(ms) });
    }
  } finally {
    for (const clone of clones) removeDir(clone);
  }
  const worst = json.commands.reduce((a, c) => (c.rssMiB.median > a.rssMiB.median ? c : a));
  const over = json.commands
    .filter((c) => c.rssMiB.median > BAR * 1.1)
    .map((c) => `${c.name} ${fmt(c.rssMiB.median, 0)}`);
  return {
    title,
    columns: ['command', 'wall ms median (p10–p90)', 'peak RSS MiB median (p10–p90)', `≤ ~${BAR} MB`],
    rows,
    summary:
      `On ${fx.events.toLocaleString('en-US')} events (${fmt(fx.logBytes / 2 ** 20, 0)} MiB of logs in ${fx.segments} segments, ${fx.branches.toLocaleString('en-US')} branches), ` +
      `the most a read command held was ${fmt(worst.rssMiB.median, 0)} MiB (${worst.name}; bar ~${BAR})${over.length ? `; over the bar: ${over.join(', ')}` : ''}`,
    pass: over.length === 0,
    json,
  };
}
