/**
 * Peak memory (max RSS) of the read commands on a long history, each a fresh `gctx` process as
 * a person or a hook runs it: status, the briefing a session start hands out, the newest log
 * entries, a commit by label, search, verify (which reads every byte), and a replay from
 * scratch (the first open after the cache is gone). Reads that need only the recent past must
 * touch only what they need, and none may hold the history: the bar is ~100 MB whatever the
 * history's size. The default run uses 100,000 events (~95 MB of logs); `--long` 1,000,000
 * (~1 GB).
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, fixture, fmt, spread, stats } from './lib.js';

export const title = 'Peak RSS of read commands on a long history (fresh process each)';

/** Max RSS in MiB and wall ms of one gctx process, through GNU time. */
function measure(dir, args, input) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, CLI, ...args], { cwd: dir, encoding: 'utf8', input, env: { ...process.env, GCC_SESSION: '' }, maxBuffer: 64 * 1024 * 1024 });
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
  const commands = [
    ['status', ['status']],
    ['briefing (SessionStart hook)', ['hook', '--agent', 'claude-code'], session],
    ['newest 5 log entries', ['context', '--log', '5']],
    ['a commit by label', ['context', '--commit', label]],
    ['search', ['search', 'parser cache']],
    ['verify (every byte)', ['verify']],
  ];
  const rows = [];
  const json = { events: fx.events, logBytes: fx.logBytes, segments: fx.segments, commands: [] };
  for (const [name, args, input] of commands) {
    const rss = [];
    const ms = [];
    for (let r = 0; r < runs; r++) {
      const m = measure(dir, args, input);
      rss.push(m.mib);
      ms.push(m.ms);
    }
    rows.push([name, spread(stats(ms), 0), spread(stats(rss), 0)]);
    json.commands.push({ name, args, rssMiB: stats(rss), ms: stats(ms) });
  }
  // The first open after the cache is gone replays every log (streamed), and rebuilds every view.
  const replay = [];
  const replayMs = [];
  for (let r = 0; r < runs; r++) {
    rmSync(join(dir, '.GCC', '.local', 'cache'), { recursive: true, force: true });
    const m = measure(dir, ['status']);
    replay.push(m.mib);
    replayMs.push(m.ms);
  }
  rows.push(['replay from scratch (no cache)', spread(stats(replayMs), 0), spread(stats(replay), 0)]);
  json.commands.push({ name: 'replay', rssMiB: stats(replay), ms: stats(replayMs) });
  const worst = Math.max(...json.commands.map((c) => c.rssMiB.median));
  return {
    title,
    columns: ['command', 'wall ms median (p10–p90)', 'peak RSS MiB median (p10–p90)'],
    rows,
    summary: `On ${fx.events.toLocaleString('en-US')} events (${fmt(fx.logBytes / 2 ** 20, 0)} MiB of logs in ${fx.segments} segments), the most a read command held was ${fmt(worst, 0)} MiB (bar ~100)`,
    pass: worst <= 110,
    json,
  };
}
