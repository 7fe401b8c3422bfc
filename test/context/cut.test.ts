/**
 * Answers cut to a budget keep what is newest and say exactly how to reach the rest: the full
 * roadmap leads with milestones and failed approaches, newest first, once it must be cut;
 * status's lists say how many are left and the call that shows them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

describe('cut answers', () => {
  it('the full roadmap under a budget keeps the newest milestones and failures, not the top of main.md', async () => {
    const m = await Memory.open(tempProject(), { create: true });
    for (let i = 1; i <= 30; i++) await m.execute({ type: 'roadmap', action: 'add', target: `Objective ${i} ${'x'.repeat(300)}` });
    for (let i = 1; i <= 7; i++) {
      await m.execute({ type: 'branch', name: `t${i}`, purpose: `try ${i}` });
      await m.execute({ type: 'abandon', branch: `t${i}`, reason: `reason ${i}` });
    }
    const spell = (q: { level: string }) => `gctx context --${q.level}`;
    const full = m.context({ level: 'full' }, { budget: 300, spell: spell as never });
    expect(full.truncated).toBe(true);
    expect(full.text).toMatch(/Milestones, newest first\n- M7 [^\n]*reason 7/);
    expect(full.text).toMatch(/t7 [^\n]*dropped: reason 7/);
    expect(full.text).toMatch(/… cut to 300 tokens; raise the budget; objectives and branches: `gctx context --metadata`/);
    // Whole when it fits: main.md as it is.
    expect(m.context({ level: 'full' }, { budget: 100_000 }).text).toMatch(/^# Project Roadmap\n/);
    const status = m.context({ level: 'status' }, { spell: spell as never }).text;
    expect(status).toMatch(/… 2 earlier, newest first, in `gctx context --full`/);
    m.close();
  });

  it('the log cut by a budget counts what it shows; a search page past the end says so', async () => {
    const m = await Memory.open(tempProject(), { create: true });
    for (let i = 1; i <= 12; i++) await m.execute({ type: 'log', observation: `observation ${i} ${'y'.repeat(200)}`, thought: 't', action: 'a' });
    const log = m.context({ level: 'log', n: 12 }, { budget: 150 });
    const shown = log.text.split('\n').filter((l) => /observation \d+/.test(l)).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(12);
    expect(log.text).toMatch(new RegExp(`^Log of main, newest first: entries 13 to ${13 - shown + 1} of 13\n`));
    expect(m.context({ level: 'search', text: 'observation', limit: 2, page: 40 }).text).toMatch(/^Nothing on page 40 \(12 matches for "observation" in 6 pages\)/);
    m.close();
  });
});
