/**
 * Crash safety, process level. Writers are killed with SIGKILL at random moments: every event
 * a writer acknowledged (printed after execute() resolved) is there after reopening, every log
 * keeps gapless sequences, the memory verifies, and each torn tail is set aside in quarantine.
 *
 * And a crash at any byte of an append, for each kind of append — to the open segment, the
 * first append of a new segment (after git has seen the old one), and the local log: the
 * memory as it stood the instant before the batch was written, plus any prefix of the batch,
 * opens with everything acknowledged kept, no part of the batch read, the log cut back and the
 * fragment quarantined byte for byte. Real SIGKILLs at sampled bytes check that model.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import type { Command } from '../../src/decider/commands.js';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { git } from '../support/project.js';
import {
  acks,
  gaplessPerLog,
  LONG,
  openSegment,
  pick,
  prng,
  quarantined,
  seed,
  SCRIPTS,
  segmentsOf,
  sleep,
  start,
  TIMEOUT,
} from './helpers.js';

afterAll(cleanup);

describe('crash: SIGKILL at random moments', () => {
  it('keeps every acknowledged event, gapless logs, verifies, quarantines torn tails', {
    timeout: TIMEOUT,
  }, async () => {
    const s = seed();
    const rng = prng(s);
    const rounds = pick(4, 100);
    // A fresh memory every 10 rounds keeps reopening and verifying cheap (the writers append
    // 600 kB entries, so one memory for 100 rounds grows to hundreds of MB). Those entries
    // also fill a segment every two appends, so kills land in first appends of new segments.
    let dir = '';
    let acked: string[] = [];
    let total = 0;
    const stats = { rounds, seed: s, acked: 0, segments: 0, stale: 0, torn: 0, concurrentRounds: 0 };
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
      // On a loaded machine the writers may ack nothing before a random kill: the last round
      // waits for one acknowledgement, so every run checks some acknowledged events.
      if (round === rounds - 1 && total + acked.length === 0) await kids[0]!.waitFor((l) => l.startsWith('ack '));
      await sleep(Math.floor(rng() * pick(400, 900)));
      for (const k of kids) k.proc.kill('SIGKILL');
      await Promise.all(kids.map((k) => k.exited));
      for (const k of kids) acked.push(...acks(k.lines));

      const before = quarantined(dir).length;
      const m = await Memory.open(dir);
      try {
        const events = m.events();
        const ids = new Set(events.map((e) => e.id));
        const missing = acked.filter((id) => !ids.has(id));
        expect(missing, `round ${round} (seed ${s}): acknowledged events missing after reopen`).toEqual([]);
        expect(ids.size, 'no event twice').toBe(events.length);
        const perLog = gaplessPerLog(dir);
        expect(
          Object.values(perLog).reduce((a, b) => a + b, 0),
          'every event is in exactly one log',
        ).toBe(events.length);
        expect(m.verify(), `round ${round} (seed ${s})`).toEqual([]);
        stats.stale += m.warnings.filter((w) => w.includes('stale lock')).length;
        const torn = m.warnings.filter((w) => w.includes('torn entry'));
        stats.torn += torn.length;
        expect(quarantined(dir).length - before, 'every torn tail reported has its quarantine file').toBe(torn.length);
        if (round % 10 === 9 || round === rounds - 1) stats.segments += segmentsOf(dir).length;
      } finally {
        m.close();
      }
    }
    stats.acked = total + acked.length;
    console.log(`[reliability] crash: ${JSON.stringify(stats)}`);
    expect(stats.acked).toBeGreaterThan(0);
  });
});

interface Cut {
  cut: number;
  ids?: string[];
  warnings?: string[];
  problems?: unknown[];
  quarantined?: string[];
  logLength?: number;
  error?: unknown;
}

/** A memory with a branch to merge; with git, its segments staged so the next append starts a new one. */
async function prepared(withGit: boolean): Promise<{ dir: string; before: string[] }> {
  const dir = tempProject('gcc-cut-');
  if (withGit) git(dir, 'init', '-q', '-b', 'main');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Survive crashes' });
  await m.execute({ type: 'branch', name: 'try-wal', purpose: 'Try a write-ahead log' });
  await m.execute({ type: 'commit', contribution: 'WAL works\n---\n<!-- gcc:e {} -->' });
  await m.execute({ type: 'switch', name: 'main' });
  const before = m.events().map((e) => e.id);
  m.close();
  if (withGit) git(dir, 'add', '.GCC/events');
  return { dir, before };
}

// The last append of each case: a merge is a batch of two shared events (the synthesis
// commit and branch.merged); a switch is one event in the local log.
const MERGE: Command = {
  type: 'merge',
  branch: 'try-wal',
  synthesis: 'WAL kept; → ünïcödé 🎉 and a fake\n## [C009] header',
};
const CASES = [
  { name: 'the open segment', git: false, op: MERGE, log: 'segment' },
  { name: 'the first append of a new segment', git: true, op: MERGE, log: 'segment' },
  { name: 'the local log', git: false, op: { type: 'switch', name: 'try-wal' } as Command, log: 'local' },
] as const;

/**
 * Cut points: every byte in the long run. The default run takes every 97th byte, and the
 * bytes where an entry, a machine line or a separator starts or ends, and the byte after
 * (where the parser decides between a torn tail and corruption).
 */
function cutsOf(batch: Buffer): number[] {
  const text = batch.toString('latin1');
  const marks = [0, batch.length];
  for (const token of ['\n<!-- gcc:e ', ' -->\n', '\n\n---\n\n', '**['])
    for (let i = text.indexOf(token); i !== -1; i = text.indexOf(token, i + 1)) marks.push(i, i + token.length);
  const out: number[] = [];
  for (let cut = 0; cut <= batch.length; cut++)
    if (LONG || cut % 97 === 0 || marks.some((m) => cut === m || cut === m + 1)) out.push(cut);
  return out;
}

describe('crash: an append cut at any byte', () => {
  const measured: string[] = [];
  afterAll(() => console.log(`[reliability] truncation: ${measured.join('; ')}`));

  for (const c of CASES) {
    it(`${c.name}: everything acknowledged kept, no part of the batch read, the fragment quarantined`, {
      timeout: TIMEOUT,
    }, async () => {
      const { dir, before } = await prepared(c.git);
      const capture = tempProject('gcc-capture-');
      const out = execFileSync(
        process.execPath,
        [`${SCRIPTS}crash-at.mjs`, dir, JSON.stringify(c.op), c.log, `capture:${capture}`],
        { encoding: 'utf8' },
      );
      const batchIds = acks(out.split('\n'));
      const batch = readFileSync(join(capture, 'batch.bin'));
      const target = readFileSync(join(capture, 'target.txt'), 'utf8');
      const length = statSync(join(capture, target)).size;
      if (c.git) expect(length, 'the batch starts a new segment').toBe(0);
      if (c.log === 'segment' && !c.git)
        expect(join('.GCC', 'events', target.split('/events/')[1]!)).toBe(openSegment(capture));
      const cuts = cutsOf(batch);
      const work = tempProject('gcc-cut-work-');
      const results = JSON.parse(
        execFileSync(process.execPath, [`${SCRIPTS}truncate-all.mjs`, capture, work, JSON.stringify(cuts)], {
          encoding: 'utf8',
          maxBuffer: 256 * 2 ** 20,
        }),
      ) as Cut[];
      expect(results).toHaveLength(cuts.length);
      for (const r of results) {
        const at = `${c.name}, cut at ${r.cut} of ${batch.length}`;
        expect(r.error, at).toBeUndefined();
        expect(
          before.filter((id) => !r.ids!.includes(id)),
          `${at}: acknowledged events kept`,
        ).toEqual([]);
        expect(r.problems, at).toEqual([]);
        if (r.cut === batch.length) {
          // The whole batch reached the file: durable, only its acknowledgement was lost.
          expect(
            batchIds.filter((id) => !r.ids!.includes(id)),
            at,
          ).toEqual([]);
          continue;
        }
        expect(
          r.ids!.filter((id) => batchIds.includes(id)),
          `${at}: no part of the torn batch`,
        ).toEqual([]);
        expect(r.logLength, `${at}: the log is cut back to the batch`).toBe(length);
        expect(r.quarantined, at).toEqual(r.cut > 0 ? [batch.subarray(0, r.cut).toString('latin1')] : []);
        expect(
          r.warnings!.some((w) => w.includes('torn entry')),
          at,
        ).toBe(r.cut > 0);
      }
      measured.push(`${c.name}: ${results.length} cuts of a ${batch.length}-byte batch of ${batchIds.length} event(s)`);
    });
  }

  it('real SIGKILLs inside the write agree with the model', { timeout: TIMEOUT }, async () => {
    const s = seed();
    const rng = prng(s);
    let kills = 0;
    for (const c of CASES) {
      for (let k = 0; k < pick(1, 20); k++) {
        const { dir, before } = await prepared(c.git);
        // Inside the batch: a merge batch is about 1,130 bytes and a switch about 260 (the
        // cuts above measure them); a kill after the whole batch is not a torn write.
        const n = 1 + Math.floor(rng() * (c.log === 'local' ? 200 : 1000));
        const child = start('crash-at.mjs', [dir, JSON.stringify(c.op), c.log, `kill:${n}`]);
        expect(await child.exited, child.stderr()).toBe('SIGKILL');
        const m = await Memory.open(dir);
        try {
          const ids = m.events().map((e) => e.id);
          expect(
            before.filter((id) => !ids.includes(id)),
            `${c.name}, killed after ${n} bytes (seed ${s})`,
          ).toEqual([]);
          if (c.git) {
            // The batch reached the journal whole before the log: the log is restored from it, whole.
            expect(ids.length, 'the whole batch, from the journal').toBe(before.length + 2);
            expect(quarantined(dir)).toEqual([]);
            expect(m.verify()).toEqual([]);
            continue;
          }
          expect(ids.length, 'no part of the torn batch is read').toBe(before.length);
          const q = quarantined(dir);
          expect(q, `${c.name}, killed after ${n} bytes (seed ${s}): the fragment is set aside`).toHaveLength(1);
          expect(readFileSync(join(dir, '.GCC', 'quarantine', q[0]!), 'latin1').slice(0, 3)).toBe(
            '**['.slice(0, Math.min(3, n)),
          );
          expect(m.verify()).toEqual([]);
          gaplessPerLog(dir);
        } finally {
          m.close();
        }
        kills++;
      }
    }
    console.log(
      `[reliability] kills inside a write: ${kills} (seed ${s}), each set aside and nothing acknowledged lost`,
    );
  });

  it('a kill after the views were written and before the ledger: the batch is kept and the views are not written twice', {
    timeout: TIMEOUT,
  }, async () => {
    for (const c of CASES) {
      const { dir, before } = await prepared(c.git);
      const child = start('crash-at.mjs', [dir, JSON.stringify(c.op), c.log, 'before-ledger:']);
      expect(await child.exited, child.stderr()).toBe('SIGKILL');
      // The writer that died holds the lock: it is taken over by the next write, as a crash leaves it.
      for (const reopen of ['open', 'write'] as const) {
        const m = await Memory.open(dir);
        try {
          if (reopen === 'write')
            await m.execute({ type: 'log', observation: 'after the crash', thought: 't', action: 'a' });
          const ids = m.events().map((e) => e.id);
          expect(
            before.filter((id) => !ids.includes(id)),
            c.name,
          ).toEqual([]);
          expect(ids.length, `${c.name}: the durable batch is read`).toBeGreaterThan(before.length);
          expect(m.verify(), `${c.name}, ${reopen}: every view equals a rebuild (no entry written twice)`).toEqual([]);
        } finally {
          m.close();
        }
      }
      expect(quarantined(dir)).toEqual([]);
    }
  });

  it('the CLI reports a torn tail, sets it aside and goes on', { timeout: TIMEOUT }, async () => {
    const { dir } = await prepared(false);
    const child = start('crash-at.mjs', [dir, JSON.stringify(MERGE), 'segment', 'kill:300']);
    expect(await child.exited, child.stderr()).toBe('SIGKILL');
    const r = gctx(dir, ['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/torn entry at the end of \.GCC\/events\/\d{4}-\d{2}\/\d{8}T\d{6}Z-[0-9a-f]{6}\.md/);
    expect(quarantined(dir)).toHaveLength(1);
    expect(gctx(dir, ['verify']).stdout).toMatch(/^OK/);
  });
});
