/**
 * Peak memory (max RSS) of replaying a history, each in a fresh process: the resident set
 * of a process that opens the memory after its projections were deleted (so it reads,
 * checks and folds every event and writes every projection), against a process that only
 * loads the library.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fixtureCopy, fmt, removeDir, ROOT, spread, stats } from './lib.js';

export const title = 'Peak RSS of replaying a history (fresh process each run)';

const INDEX = pathToFileURL(join(ROOT, 'dist', 'index.js')).href;

function child(code) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

export async function run({ quick = false, long = false } = {}) {
  const sizes = quick ? [10_000] : [10_000, 100_000];
  const runs = quick ? 2 : long ? 5 : 3;
  const bare = [];
  for (let r = 0; r < runs; r++) bare.push(child(`await import(${JSON.stringify(INDEX)}); console.log(JSON.stringify({ rss: process.resourceUsage().maxRSS / 1024 }))`).rss);
  const rows = [['library loaded, nothing opened', '—', spread(stats(bare), 0), '—']];
  const json = { runs, bareMiB: stats(bare), sizes: [] };
  for (const size of sizes) {
    const fx = await fixtureCopy(`h${size}`, { events: size });
    const rss = [];
    const ms = [];
    for (let r = 0; r < runs; r++) {
      const gcc = join(fx.dir, '.GCC');
      rmSync(join(gcc, '.cache'), { recursive: true, force: true });
      for (const f of ['main.md', 'metadata.yaml']) rmSync(join(gcc, f), { force: true });
      const out = child(
        `const { Memory } = await import(${JSON.stringify(INDEX)}); const t = performance.now(); const m = await Memory.open(${JSON.stringify(fx.dir)}); const ms = performance.now() - t; const n = m.state.events; m.close(); console.log(JSON.stringify({ rss: process.resourceUsage().maxRSS / 1024, ms, n }))`,
      );
      if (out.n !== fx.events) throw new Error(`replayed ${out.n} events, expected ${fx.events}`);
      rss.push(out.rss);
      ms.push(out.ms);
    }
    removeDir(fx.dir);
    const st = stats(rss);
    rows.push([`replay of ${fx.events.toLocaleString('en-US')} events (${fmt(fx.logBytes / 2 ** 20, 1)} MiB of logs)`, spread(stats(ms), 0), spread(st, 0), fmt(st.median / (fx.logBytes / 2 ** 20), 1)]);
    json.sizes.push({ size, events: fx.events, logBytes: fx.logBytes, rssMiB: st, openMs: stats(ms), samples: rss });
  }
  const last = json.sizes[json.sizes.length - 1];
  return {
    title,
    columns: ['process', 'open ms median (p10–p90)', 'peak RSS MiB median (p10–p90)', 'RSS per MiB of log'],
    rows,
    summary: `Peak RSS replaying ${last.events.toLocaleString('en-US')} events: ${fmt(last.rssMiB.median, 0)} MiB (library alone ${fmt(json.bareMiB.median, 0)} MiB)`,
    json,
  };
}
