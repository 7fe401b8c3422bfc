/**
 * The recent history graph reads only the recent past (Memory.recentHistoryEvents: the events
 * from the n-th newest commit on, from the logs that reach that far) and takes the rest from the
 * folded state (knownHistory): it must draw what the graph streamed over the whole history
 * draws through the same window, for any window.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { GitGraph, knownHistory, type GitGraphModel } from '../../src/diagrams/gitgraph.js';
import type { Store } from '../../src/store/store.js';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { runs } from '../support/runs.js';

afterAll(cleanup);

type Step = { op: 'commit' | 'log' | 'branch' | 'switch' | 'merge' | 'abandon'; pick: number };

async function play(m: Memory, steps: Step[]): Promise<void> {
  let k = 0;
  for (const s of steps) {
    k++;
    const open = Object.values(m.state.branches).filter((b) => b.life === 'active' && b.name !== 'main');
    const other = open.length ? open[s.pick % open.length]!.name : null;
    try {
      if (s.op === 'commit') await m.execute({ type: 'commit', contribution: `step ${k}: what changed and why` });
      else if (s.op === 'log') await m.execute({ type: 'log', observation: `seen ${k}`, thought: 't', action: 'a' });
      else if (s.op === 'branch') await m.execute({ type: 'branch', name: `b${k}`, purpose: `try ${k}` });
      else if (s.op === 'switch') await m.execute({ type: 'switch', name: other ?? 'main' });
      else if (s.op === 'merge' && other) await m.execute({ type: 'merge', branch: other, synthesis: `kept ${k}` });
      else if (s.op === 'abandon' && other) await m.execute({ type: 'abandon', branch: other, reason: `dropped ${k}` });
    } catch (e) {
      if (!(e instanceof GccError)) throw e;
    }
  }
}

const byName = (m: GitGraphModel) => ({ ...m, branches: [...m.branches].sort((a, b) => (a.name < b.name ? -1 : 1)) });

function streamed(m: Memory, n: number): GitGraph {
  const g = new GitGraph(n);
  m.eachHistoryEvent((e) => g.add(e));
  return g;
}

function recent(m: Memory, n: number): GitGraph {
  const events = m.recentHistoryEvents(n);
  const g = GitGraph.recent(knownHistory(m.state), n);
  for (const e of events) g.add(e);
  return g;
}

describe('the recent history graph', () => {
  it('draws what the whole history streamed through the same window draws (fast-check)', async () => {
    const step: fc.Arbitrary<Step> = fc.record({
      op: fc.constantFrom('commit', 'commit', 'log', 'branch', 'switch', 'merge', 'abandon'),
      pick: fc.nat(7),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        async (steps, n) => {
          const m = await Memory.open(tempProject('gcc-graph-'), { create: true });
          try {
            await play(m, steps);
            const whole = streamed(m, n);
            const part = recent(m, n);
            expect(part.mermaid()).toBe(whole.mermaid());
            expect(byName(part.model())).toEqual(byName(whole.model()));
            const every = new GitGraph('all');
            m.eachHistoryEvent((e) => every.add(e));
            expect(knownHistory(m.state).commits).toBe(every.model().commits.length);
          } finally {
            m.close();
          }
        },
      ),
      {
        numRuns: runs(10, 50),
        // Found by CI: exactly as many commits as the window holds, a branch created before the first.
        examples: [
          [
            [
              { op: 'branch', pick: 0 },
              { op: 'abandon', pick: 0 },
              { op: 'commit', pick: 0 },
              { op: 'switch', pick: 0 },
            ],
            2,
          ],
        ],
      },
    );
  });

  it('reads only the segments that reach the window: older ones are never opened', async () => {
    const dir = tempProject('gcc-graph-');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    const m = await Memory.open(dir, { create: true });
    try {
      // Git seeing a segment closes it: each batch lands in a segment of its own.
      for (const batch of ['early', 'middle', 'late']) {
        for (let i = 0; i < 10; i++) await m.execute({ type: 'commit', contribution: `${batch} ${i}` });
        git('add', '.GCC');
        git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', batch);
      }
      await m.execute({ type: 'commit', contribution: 'newest' });
      const logs = [...(m as unknown as { store: Store }).store.logs.values()].filter((f) => f.meta.size > 0);
      expect(logs.length).toBeGreaterThanOrEqual(4);
      const opened = new Set<string>();
      for (const f of logs) {
        const scan = f.scan.bind(f);
        f.scan = ((...args: Parameters<typeof f.scan>) => {
          opened.add(f.name);
          return scan(...args);
        }) as typeof f.scan;
      }
      const titles = m
        .recentHistoryEvents(3)
        .flatMap((e) => (e.type === 'commit.recorded' ? [e.data.contribution] : []));
      expect(titles).toEqual(['late 8', 'late 9', 'newest']);
      expect(opened.size).toBeLessThanOrEqual(2);
      expect(opened.size).toBeLessThan(logs.length);
    } finally {
      m.close();
    }
  });
});
