/**
 * Two writers on one memory, taking turns: each operation finds the other's appends (and the
 * views and checkpoint the other wrote for them) and must neither write those events into the
 * views a second time nor miss them. After every step every view equals a rebuild from the logs,
 * whichever writer wrote last, and one that only reads in between changes nothing.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

type Step = { who: 0 | 1; op: 'log' | 'commit' | 'branch' | 'merge' | 'read' };

const step: fc.Arbitrary<Step> = fc.record({
  who: fc.constantFrom<0 | 1>(0, 1),
  op: fc.constantFrom<Step['op']>('log', 'log', 'commit', 'branch', 'merge', 'read'),
});

describe('two writers on one memory', () => {
  afterAll(cleanup);

  it('keep every view equal to a replay, whichever wrote last', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const dir = tempProject('gcc-two-');
        const writers = [await Memory.open(dir, { create: true, session: 's0' }), await Memory.open(dir, { session: 's1' })];
        let k = 0;
        try {
          for (const s of steps) {
            const m = writers[s.who]!;
            k++;
            if (s.op === 'log') await m.execute({ type: 'log', observation: `seen ${k}`, thought: 't', action: 'a' });
            else if (s.op === 'commit') await m.execute({ type: 'commit', contribution: `step ${k}` });
            else if (s.op === 'branch') {
              if (m.currentBranch() === 'main') await m.execute({ type: 'branch', name: `b${k}`, purpose: `try ${k}` });
            } else if (s.op === 'merge') {
              const here = m.currentBranch();
              if (here !== 'main') await m.execute({ type: 'merge', branch: here, synthesis: `done ${k}` });
            } else m.context({ level: 'status' });
            expect(m.verify()).toEqual([]);
          }
        } finally {
          for (const m of writers) m.close();
        }
      }),
      {
        numRuns: 25,
        // Found by a longer run: the other writer merges the branch this one is on, and this one
        // must see that it is back on main rather than merge the closed branch again.
        examples: [[[{ who: 0, op: 'branch' }, { who: 1, op: 'log' }, { who: 1, op: 'merge' }, { who: 0, op: 'merge' }, { who: 0, op: 'log' }]]],
      },
    );
  });
});
