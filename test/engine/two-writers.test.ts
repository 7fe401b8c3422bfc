/**
 * Two writers on one memory, taking turns: each operation finds the other's appends (and the
 * views and checkpoint the other wrote for them) and must neither write those events into the
 * views a second time nor miss them. After every step every view equals a rebuild from the logs,
 * whichever writer wrote last, and one that only reads in between changes nothing.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { FileLock } from '../../src/store/lock.js';
import { layout } from '../../src/store/paths.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { runs } from '../support/runs.js';

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
        const writers = [
          await Memory.open(dir, { create: true, session: 's0' }),
          await Memory.open(dir, { session: 's1' }),
        ];
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
        numRuns: runs(10, 50),
        // Found by a longer run: the other writer merges the branch this one is on, and this one
        // must see that it is back on main rather than merge the closed branch again.
        examples: [
          [
            [
              { who: 0, op: 'branch' },
              { who: 1, op: 'log' },
              { who: 1, op: 'merge' },
              { who: 0, op: 'merge' },
              { who: 0, op: 'log' },
            ],
          ],
        ],
      },
    );
  });

  // Found by a probe (verify beside loops of `gctx log`): an open that finds the views behind
  // rebuilds them under the lock, but from the logs as it read them before it waited there. A
  // writer that took the lock first had appended to log.md meanwhile; the rebuild wrote over
  // its entry, and the checkpoint that writer left went on vouching for log.md.
  it('an open that rebuilds the views after waiting for the lock keeps the entries written meanwhile', async () => {
    const dir = tempProject('gcc-two-');
    const l = layout(dir);
    const writer = await Memory.open(dir, { create: true, session: 's0' });
    try {
      await writer.execute({ type: 'log', observation: 'first', thought: 't', action: 'a' });
      // Views behind the logs (a writer died before its checkpoint), and no snapshot to open from:
      // the next open replays every log under the lock, writing the views.
      const ledger = JSON.parse(readFileSync(l.ledger, 'utf8')) as { views: { stamp: string } };
      ledger.views.stamp = 'behind';
      writeFileSync(l.ledger, JSON.stringify(ledger));
      rmSync(join(l.cache, 'snapshot.json'), { force: true });
      const held = new FileLock(l.lock);
      await held.acquire();
      const opening = Memory.open(dir, { session: 's1' });
      // The open has read the logs and waits for the lock; the writer takes it first (its way
      // there is microtasks, the open's next try a timer) and appends.
      await new Promise((r) => setTimeout(r, 100));
      held.release();
      await writer.execute({ type: 'log', observation: 'second', thought: 't', action: 'a' });
      const opened = await opening;
      try {
        expect(readFileSync(l.logOf('main'), 'utf8')).toContain('second');
        expect(opened.verify()).toEqual([]);
      } finally {
        opened.close();
      }
    } finally {
      writer.close();
    }
  });
});
