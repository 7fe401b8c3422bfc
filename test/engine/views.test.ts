/**
 * The views an operation writes: a log view removed by hand is rebuilt from the logs at the next
 * append to its branch (not started again with one entry), and the checkpoint naming what the
 * views reflect is kept in the ledger, written once with the operation's acknowledgement.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const log = (m: Memory, text: string) => m.execute({ type: 'log', observation: text, thought: 't', action: 'a' });

describe('a view removed by hand', () => {
  it("main's and a branch's log.md and commit.md are rebuilt whole at the next write to them", async () => {
    const dir = tempProject('gcc-views-');
    const m = await Memory.open(dir, { create: true });
    for (let i = 0; i < 3; i++) await log(m, `main note ${i}`);
    await m.execute({ type: 'commit', contribution: 'a first milestone' });
    await m.execute({ type: 'branch', name: 'exp', purpose: 'try it' });
    for (let i = 0; i < 3; i++) await log(m, `exp note ${i}`);
    await m.execute({ type: 'commit', contribution: 'an experiment milestone' });
    const gcc = join(dir, '.GCC');
    for (const f of ['log.md', 'branches/exp/log.md', 'branches/exp/commit.md']) rmSync(join(gcc, f));
    await log(m, 'exp note after the removal');
    await m.execute({ type: 'commit', contribution: 'a second experiment milestone' });
    await m.execute({ type: 'switch', name: 'main' });
    await log(m, 'main note after the removal');
    const expLog = readFileSync(join(gcc, 'branches/exp/log.md'), 'utf8');
    expect(expLog).toContain('exp note 0');
    expect(expLog).toContain('exp note after the removal');
    expect(readFileSync(join(gcc, 'branches/exp/commit.md'), 'utf8')).toContain('an experiment milestone');
    expect(readFileSync(join(gcc, 'log.md'), 'utf8')).toContain('main note 0');
    expect(m.verify()).toEqual([]);
    m.close();
  });
});

describe("the views' checkpoint", () => {
  it('is in the ledger, naming the newest event, after every operation of either of two writers', async () => {
    const dir = tempProject('gcc-views-');
    const a = await Memory.open(dir, { create: true });
    const b = await Memory.open(dir);
    const ledger = () =>
      JSON.parse(readFileSync(join(dir, '.GCC', '.local', 'ledger.json'), 'utf8')) as {
        lastId: string;
        views: { stamp: string };
      };
    for (let i = 0; i < 6; i++) {
      const m = i % 3 === 0 ? b : a;
      const r = await log(m, `note ${i}`);
      const l = ledger();
      expect(l.lastId).toBe(r.events.at(-1)!.id);
      expect(l.views.stamp.split(' ')[1]).toBe(r.events.at(-1)!.id);
    }
    expect(a.verify()).toEqual([]);
    a.close();
    b.close();
  });
});
