/**
 * Events that contradict earlier ones, as logs from other clones (or from anyone: a segment's
 * CRC is a checksum, not a signature) can hold them. The fold absorbs each by rule and stays
 * total; `gctx verify` names each by file and position as a warning, exit 0. What gctx itself
 * writes, and what two clones' union of ordinary work gives, is not reported. The branch rules
 * are the branch machine's: a contradiction is a step it refuses.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Contradictions } from '../../src/decider/contradictions.js';
import type { BranchLifecycle } from '../../src/machines/branch-machine.js';
import { branchStep } from '../../src/machines/steps.js';
import { replayer } from '../../src/decider/evolve.js';
import type { GccEvent, Placed } from '../../src/events/types.js';
import { abandoned, commit, created, given, init, merged } from '../support/given.js';
import { serialize } from '../../src/log/codec.js';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

/** The contradictions of a replay, as `position type: what`. */
function found(events: GccEvent[]): string[] {
  const c = new Contradictions();
  const fold = replayer(c.refused);
  for (const e of events) fold.add(e);
  return c.finish(fold.state()).map((x) => `${x.event.seq} ${x.event.type}: ${x.what}`);
}

describe('contradictions in a replay', () => {
  it('none in what gctx writes, nor in a commit a skewed clock sorts before its branch’s creation', () => {
    expect(
      found(given([init, created('x'), commit('x'), commit('main'), merged('x'), created('y'), abandoned('y')])),
    ).toEqual([]);
    expect(found(given([init, commit('late'), created('late')]))).toEqual([]);
  });

  it('each kind, named with what the fold does', () => {
    const events = given([
      init,
      created('x'),
      created('y'),
      init,
      created('x'),
      merged('ghost'),
      abandoned('y'),
      commit('y'),
      merged('y'),
      abandoned('y'),
      merged('x', 'x'),
      merged('main'),
      commit('nowhere'),
      merged('x', 'y'),
    ]);
    expect(found(events)).toEqual([
      '4 memory.initialized: the memory was initialized already (' +
        events[0]!.at +
        '): its settings replace the settings folded so far',
      '5 branch.created: creates branch "x", which exists (active): ignored, the first creation stands',
      '6 branch.merged: merges branch "ghost", which no earlier event creates: ignored',
      '8 commit.recorded: commits on branch "y", abandoned already: counted on it, the branch stays abandoned',
      '9 branch.merged: merges branch "y", abandoned already: ignored, the earlier event stands',
      '10 branch.abandoned: abandons branch "y", abandoned already: ignored, the earlier event stands',
      '11 branch.merged: merges "x" into itself: ignored',
      '12 branch.merged: merges main: ignored',
      '13 commit.recorded: commits on branch "nowhere", which no event creates: kept under that name',
      '14 branch.merged: merges "x" into "y", which is not an open branch: applied as written',
    ]);
  });

  it('are the moves the branch machine refuses, for every state a branch can be in', () => {
    const moves: Placed[] = [created('x'), commit('x'), merged('x'), abandoned('x')];
    const lives: Record<string, Placed[]> = {
      unborn: [],
      active: [created('x')],
      merged: [created('x'), merged('x')],
      abandoned: [created('x'), abandoned('x')],
    };
    for (const [life, before] of Object.entries(lives)) {
      for (const move of moves) {
        const events = given([init, ...before, move]);
        const refused = branchStep(
          life as BranchLifecycle,
          { name: 'x', parent: 'main' },
          events.at(-1) as never,
        ).rejected;
        const last = events.at(-1)!;
        expect(
          found(events).some((line) => line.startsWith(`${last.seq} ${last.type}:`)),
          `${move.type} on a branch ${life}`,
        ).toBe(refused !== null);
      }
    }
  });

  it('keeps the first 50 and counts the rest, however many a log holds', () => {
    const c = new Contradictions();
    const fold = replayer(c.refused);
    for (const e of given([init, ...Array.from({ length: 500 }, () => merged('ghost'))])) fold.add(e);
    expect(c.finish(fold.state())).toHaveLength(50);
    expect(c.more).toBe(450);
  });

  it('change nothing in the fold: a replay watched for them ends in the same state', () => {
    const events = given([
      init,
      created('x'),
      init,
      merged('ghost'),
      abandoned('x'),
      commit('x'),
      created('x'),
      commit('nowhere'),
    ]);
    const watched = replayer(new Contradictions().refused);
    const plain = replayer();
    for (const e of events) {
      watched.add(e);
      plain.add(e);
    }
    expect(watched.state()).toEqual(plain.state());
  });
});

describe('gctx verify on forged contradictory events', () => {
  it('warns of each, naming the segment and the event, and exits 0', () => {
    const dir = tempProject('gcc-contra-');
    for (const args of [
      ['init'],
      ['branch', 'feat', '--purpose', 'real work'],
      ['commit', 'real progress'],
      ['switch', 'main'],
      ['branch', 'gone', '--purpose', 'dropped'],
      ['abandon', 'gone', '--reason', 'did not work'],
    ]) {
      const r = gctx(dir, args);
      expect(r.code, r.stderr).toBe(0);
    }
    // Another clone's segment, every entry valid (CRC and all), ids after this clone's.
    const start = Date.now() + 1_000;
    const month = new Date(start).toISOString().slice(0, 7);
    const rel = join(
      '.GCC',
      'events',
      month,
      `${new Date(start).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z-f0f0f0.md`,
    );
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(
      join(dir, rel),
      serialize(given([init, created('feat'), merged('ghost'), commit('gone', 'C009'), abandoned('gone')], start)),
    );
    const r = gctx(dir, ['verify']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^OK: /);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(`^warning: ${rel}: event 1 \\(memory\\.initialized, [^)]+\\) the memory was initialized already`),
      ),
      expect.stringMatching(
        new RegExp(
          `^warning: ${rel}: event 2 \\(branch\\.created, [^)]+\\) creates branch "feat", which exists \\(active\\)`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^warning: ${rel}: event 3 \\(branch\\.merged, [^)]+\\) merges branch "ghost", which no ` +
            `earlier event creates: ignored`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^warning: ${rel}: event 4 \\(commit\\.recorded, [^)]+\\) commits on branch "gone", abandoned already`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^warning: ${rel}: event 5 \\(branch\\.abandoned, [^)]+\\) abandons branch "gone", abandoned already`,
        ),
      ),
    ]);
    const json = gctx(dir, ['verify', '--json']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout) as { ok: boolean; problems: unknown[]; warnings: string[] };
    expect(data.ok).toBe(true);
    expect(data.problems).toEqual([]);
    expect(data.warnings).toHaveLength(5);
    // The memory reads as the fold settles it: feat keeps its first purpose.
    expect(gctx(dir, ['status']).stdout).toContain('real work');
  });
});
