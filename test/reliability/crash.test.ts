/**
 * Crash safety, process level: writers are killed with SIGKILL at random moments; every
 * event a writer acknowledged (printed after execute() resolved) must be in the log after
 * reopening, the memory must verify, and a torn tail must be set aside in quarantine.
 * Also: a log cut at every byte of its last batch opens, keeps everything before the
 * batch, and quarantines the fragment.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { acks, CLI, LONG, pick, prng, seed, SCRIPTS, sleep, start, TIMEOUT } from './helpers.js';

const quarantined = (dir: string) => {
  try {
    return readdirSync(join(dir, '.GCC', 'quarantine'));
  } catch {
    return [];
  }
};

describe('crash: SIGKILL at random moments', () => {
  afterAll(cleanup);

  it('keeps every acknowledged event, verifies, quarantines torn tails', { timeout: TIMEOUT }, async () => {
    const s = seed();
    const rng = prng(s);
    const rounds = pick(6, 100);
    // A fresh memory every 10 rounds keeps reopening and verifying cheap (the writers append
    // 600 kB entries, so one memory for 100 rounds grows to hundreds of MB).
    let dir = '';
    let acked: string[] = [];
    let total = 0;
    const stats = { rounds, seed: s, acked: 0, stale: 0, torn: 0, concurrentRounds: 0 };
    for (let round = 0; round < rounds; round++) {
      if (round % 10 === 0) {
        total += acked.length;
        acked = [];
        dir = tempProject('gcc-crash-');
        (await Memory.open(dir, { create: true })).close();
      }
      const writers = round % 3 === 2 ? 2 : 1;
      if (writers > 1) stats.concurrentRounds++;
      const kids = Array.from({ length: writers }, (_, i) => start('appender.mjs', [dir, `r${round}w${i}`]));
      await Promise.all(kids.map((k) => k.waitFor((l) => l.startsWith('ready'))));
      await sleep(Math.floor(rng() * pick(400, 900)));
      for (const k of kids) k.proc.kill('SIGKILL');
      await Promise.all(kids.map((k) => k.exited));
      for (const k of kids) acked.push(...acks(k.lines));

      const before = quarantined(dir).length;
      const m = await Memory.open(dir);
      try {
        const ids = new Set(m.events().map((e) => e.id));
        const missing = acked.filter((id) => !ids.has(id));
        expect(missing, `round ${round} (seed ${s}): acknowledged events missing after reopen`).toEqual([]);
        expect(ids.size, 'no event twice').toBe(m.events().length);
        for (const b of Object.keys(m.state.branches)) {
          const seqs = m.eventsOf(b).map((e) => e.seq);
          expect(seqs, `seqs of ${b} are gapless`).toEqual(seqs.map((_, i) => i + 1));
        }
        expect(m.verify(), `round ${round} (seed ${s})`).toEqual([]);
        stats.stale += m.warnings.filter((w) => w.includes('stale lock')).length;
        const torn = m.warnings.filter((w) => w.includes('torn entry'));
        stats.torn += torn.length;
        expect(quarantined(dir).length - before, 'every torn tail reported has its quarantine file').toBe(torn.length);
      } finally {
        m.close();
      }
    }
    stats.acked = total + acked.length;
    console.log(`[reliability] crash: ${JSON.stringify(stats)}`);
    expect(stats.acked).toBeGreaterThan(0);
  });

  it('a log cut at every byte of its last batch opens, keeps what came before and quarantines the fragment', { timeout: TIMEOUT }, async () => {
    const dir = tempProject('gcc-cut-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'roadmap', action: 'add', target: 'Survive crashes' });
    await m.execute({ type: 'branch', name: 'try-wal', purpose: 'Try a write-ahead log' });
    await m.execute({ type: 'commit', contribution: 'WAL works\n---\n<!-- gcc:e {} -->' });
    await m.execute({ type: 'switch', name: 'main' });
    const kept = m.events().filter((e) => e.branch === 'main').map((e) => e.id);
    const before = readFileSync(join(dir, '.GCC', 'log.md')).length;
    // The last append is a batch of two events (a merge: synthesis commit + branch.merged).
    const merge = await m.execute({ type: 'merge', branch: 'try-wal', synthesis: 'WAL kept; → ünïcödé 🎉 and a fake\n## [C009] header' });
    expect(merge.events).toHaveLength(2);
    m.close();
    const work = tempProject('gcc-cut-work-');
    const full = readFileSync(join(dir, '.GCC', 'log.md'));
    // Long run: every byte. Default run: every 9th byte, and every byte within 12 of where
    // an entry, a machine line or a separator starts or ends (where parsing decides most).
    const text = full.toString('latin1');
    const marks = [before, full.length];
    for (const token of ['\n<!-- gcc:e ', ' -->\n', '\n\n---\n\n', '**[']) for (let i = text.indexOf(token, before); i !== -1; i = text.indexOf(token, i + 1)) marks.push(i, i + token.length);
    const offsets: number[] = [];
    for (let cut = before; cut < full.length; cut++) if (LONG || (cut - before) % 9 === 0 || marks.some((m) => Math.abs(m - cut) <= 12)) offsets.push(cut);
    const out = execFileSync(process.execPath, [`${SCRIPTS}truncate-all.mjs`, dir, work, JSON.stringify(offsets)], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
    const results = JSON.parse(out) as { cut: number; ids?: string[]; warnings?: string[]; problems?: unknown[]; quarantined?: string[]; logLength?: number; error?: unknown }[];
    expect(results).toHaveLength(offsets.length);
    const branchIds = (ids: string[]) => ids.filter((id) => kept.includes(id));
    for (const r of results) {
      expect(r.error, `cut at ${r.cut}`).toBeUndefined();
      // Everything before the batch is there; nothing of the unfinished batch is.
      expect(branchIds(r.ids!), `cut at ${r.cut}`).toEqual(kept);
      expect(r.ids!.some((id) => merge.events.some((e) => e.id === id)), `cut at ${r.cut}: no part of the torn batch`).toBe(false);
      expect(r.problems, `cut at ${r.cut}`).toEqual([]);
      expect(r.logLength).toBe(before);
      if (r.cut > before) {
        // The fragment is kept byte for byte.
        expect(r.quarantined, `cut at ${r.cut}`).toEqual([full.subarray(before, r.cut).toString('utf8')]);
        expect(r.warnings!.some((w) => w.includes('torn entry'))).toBe(true);
      }
    }
    console.log(`[reliability] truncation: ${results.length} cut points over a ${full.length - before}-byte batch of 2 events, all opened, fragment quarantined`);
  });

  it('the CLI reports a torn tail and goes on', { timeout: TIMEOUT }, async () => {
    const dir = tempProject('gcc-cut-cli-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', contribution: 'first' });
    const before = readFileSync(join(dir, '.GCC', 'log.md')).length;
    await m.execute({ type: 'commit', contribution: 'second, torn' });
    m.close();
    const copy = tempProject('gcc-cut-cli-copy-');
    cpSync(join(dir, '.GCC'), join(copy, '.GCC'), { recursive: true });
    const { truncateSync } = await import('node:fs');
    const full = readFileSync(join(copy, '.GCC', 'log.md')).length;
    truncateSync(join(copy, '.GCC', 'log.md'), before + Math.floor((full - before) / 2));
    const r = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const c = start(relative(SCRIPTS, CLI), ['status', '--dir', copy]);
      void c.exited.then((code) => resolve({ code: typeof code === 'number' ? code : null, stderr: c.stderr(), stdout: c.lines.join('\n') }));
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/torn entry at the end of \.GCC\/log\.md/);
    expect(quarantined(copy)).toHaveLength(1);
  });
});
