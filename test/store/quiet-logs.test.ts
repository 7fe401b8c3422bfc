/**
 * Logs of closed branches are not looked at on every operation (a stat each, hundreds of
 * them on a long history). What changes them behind gctx's back must still be seen: at
 * once when anything else changed too, and within a bounded number of operations if not.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import type { GccEvent } from '../../src/events/types.js';
import { parse, serialize } from '../../src/log/codec.js';
import { layout } from '../../src/store/paths.js';
import { QUIET_PER_CATCH_UP, Store } from '../../src/store/store.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const CLOSED = QUIET_PER_CATCH_UP + 3;

async function manyClosed(): Promise<string> {
  const dir = tempProject();
  const m = await Memory.open(dir, { create: true });
  for (let i = 0; i < CLOSED; i++) {
    await m.execute({ type: 'branch', name: `b${i}`, purpose: `try ${i}` });
    await m.execute({ type: 'commit', contribution: `work on ${i}` });
    if (i % 2) await m.execute({ type: 'merge', branch: `b${i}`, synthesis: `b${i} is in` });
    else await m.execute({ type: 'abandon', branch: `b${i}`, reason: 'dead end' });
  }
  m.close();
  return dir;
}

/** What a pull from a clone that kept working on the branch leaves: one more entry. */
function extendFromElsewhere(dir: string, branch: string): void {
  const path = layout(dir).logOf(branch);
  const last = parse(readFileSync(path)).events.at(-1)!;
  const e: GccEvent = { id: `ffffffffffff${'0'.repeat(10)}`, seq: last.seq + 1, at: new Date().toISOString(), branch, type: 'ota.logged', data: { observation: 'from the other clone', thought: 't', action: 'a' } };
  appendFileSync(path, serialize([e]));
}

const sees = (m: Memory, branch: string) => m.eventsOf(branch).some((e) => e.type === 'ota.logged' && e.data.observation === 'from the other clone');

describe('closed branches looked at in turn', () => {
  it('an extended closed log is seen within a bounded number of operations', async () => {
    const dir = await manyClosed();
    const m = await Memory.open(dir);
    try {
      extendFromElsewhere(dir, `b${CLOSED - 1}`);
      let ops = 0;
      while (!sees(m, `b${CLOSED - 1}`) && ops < 10) {
        await m.execute({ type: 'log', observation: `op ${ops++}`, thought: 't', action: 'a' });
      }
      expect(ops).toBeLessThanOrEqual(Math.ceil(CLOSED / QUIET_PER_CATCH_UP));
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('is seen at once when another writer changed anything else', async () => {
    const dir = await manyClosed();
    const a = await Memory.open(dir);
    const b = await Memory.open(dir);
    try {
      await a.execute({ type: 'log', observation: 'a warms up', thought: 't', action: 'a' });
      extendFromElsewhere(dir, 'b5'); // not in the next turn of the round-robin
      await b.execute({ type: 'log', observation: 'b writes to main', thought: 't', action: 'a' });
      a.refresh();
      expect(sees(a, 'b5')).toBe(true);
    } finally {
      a.close();
      b.close();
    }
  });

  it('never appends to a quiet log past entries it has not read', async () => {
    const dir = await manyClosed();
    const store = new Store(layout(dir));
    store.catchUp();
    const quiet = (b: string) => b !== 'main';
    const target = `b${CLOSED - 2}`; // outside the first turn of the round-robin
    extendFromElsewhere(dir, target);
    store.catchUp(quiet);
    const seq = store.logs.get(target)!.seq;
    const event = [{ type: 'ota.logged' as const, data: { observation: 'o', thought: 't', action: 'a' } }];
    await expect(store.withLock(() => store.append(target, event, seq, 'ffffffffffff0000000001', new Date()))).rejects.toMatchObject({ code: 'E_CONFLICT' });
    expect(store.catchUp(quiet).added.map((e) => e.branch)).toEqual([target]);
    const written = await store.withLock(() => store.append(target, event, seq + 1, 'ffffffffffff0000000001', new Date()));
    expect(written[0]!.seq).toBe(seq + 2);
  });
});
