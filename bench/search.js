/**
 * `gctx search` as a person or an agent runs it: a fresh process per query on a memory of
 * 10,000 commits, against the floor of starting node itself. Reports the first query (the
 * SQLite index built from the logs), a query on a warm index (open, one query), one after an
 * entry was appended (that entry fed), and each one's peak RSS through GNU time.
 * The memory is in a git repository, as users run it. The bar: a warm query within 1.75 × `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, fixtureCopy, fmt, removeDir, spread, stats } from './lib.js';

export const title = 'gctx search: first build, warm query and after an append (fresh process each)';

const BAR = 1.75;
const QUERIES = ['parser', 'cache lock', 'retry fsync budget', 'sche', 'commit 9999', 'nothing-like-this'];

/** Wall ms and peak RSS MiB of one process. */
function timed(args, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GCC_SESSION: '' },
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, mib: Number(r.stderr.trim().split('\n').pop()) / 1024, out: r.stdout };
}

export async function run({ quick = false } = {}) {
  const commits = 10_000;
  const runs = quick ? 3 : 15;
  const fx = await fixtureCopy(`c${commits}`, { events: commits, commitsOnly: true });
  const dir = fx.dir;
  const db = join(dir, '.GCC', '.local', 'cache', 'search.db');
  timed([CLI, 'status'], dir); // settle the views and the snapshot
  const build = timed([CLI, 'search', QUERIES[0]], dir);
  const dbBytes = statSync(db).size;
  const floor = [];
  const warm = [];
  const warmRss = [];
  const appended = [];
  for (let r = 0; r < runs; r++) {
    floor.push(timed(['-e', '0'], dir).ms);
    for (const q of QUERIES) {
      const x = timed([CLI, 'search', q], dir);
      warm.push(x.ms);
      warmRss.push(x.mib);
    }
    timed([CLI, 'log', '--observation', `bench entry ${r}: parser cache`], dir);
    appended.push(timed([CLI, 'search', 'parser cache'], dir).ms);
  }
  rmSync(db, { force: true });
  const rebuild = timed([CLI, 'search', QUERIES[1]], dir);
  removeDir(dir);
  const f = stats(floor);
  const w = stats(warm);
  const a = stats(appended);
  const rss = stats(warmRss);
  const ratio = w.median / f.median;
  const rows = [
    ['node -e 0 (floor)', spread(f, 0), '—', '—'],
    [
      `first query (index built from ${commits.toLocaleString('en-US')} commits)`,
      fmt(build.ms, 0),
      fmt(build.ms / f.median, 2),
      fmt(build.mib, 0),
    ],
    ['warm index, one query', spread(w, 0), fmt(ratio, 2), `${fmt(rss.median, 0)} (max ${fmt(rss.max, 0)})`],
    ['after one appended entry', spread(a, 0), fmt(a.median / f.median, 2), '—'],
    ['database removed, rebuilt', fmt(rebuild.ms, 0), fmt(rebuild.ms / f.median, 2), fmt(rebuild.mib, 0)],
  ];
  return {
    title,
    columns: ['case', 'wall ms median (p10–p90)', '× node -e 0', 'peak RSS MiB'],
    rows,
    summary: `gctx search on ${commits.toLocaleString('en-US')} commits, warm: ${fmt(w.median, 0)} ms, ${fmt(ratio, 2)} × node -e 0 (bar ${BAR}); first build ${fmt(build.ms, 0)} ms; database ${fmt(dbBytes / 2 ** 20, 1)} MiB`,
    pass: ratio <= BAR,
    json: {
      commits,
      runs,
      queries: QUERIES,
      dbBytes,
      floorMs: f,
      buildMs: build.ms,
      buildRssMiB: build.mib,
      warmMs: w,
      warmRssMiB: rss,
      appendedMs: a,
      rebuildMs: rebuild.ms,
      ratio,
    },
  };
}
