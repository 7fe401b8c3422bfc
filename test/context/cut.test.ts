/**
 * Answers cut to a budget keep what is newest and say exactly how to reach the rest: the full
 * roadmap leads with milestones and failed approaches, newest first, once it must be cut;
 * status's lists say how many are left and the call that shows them.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_BUDGET } from '../../src/context/budget.js';
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
    expect(full.text).toMatch(/… \d+ more lines: `?gctx context --full/);
    expect(full.next).toMatchObject({ level: 'full', page: 2 });
    // Following the way on from page to page reads every line, none skipped, in order.
    const seen: string[] = [];
    for (let a = full, n = 0; ; n++) {
      seen.push(...a.text.split('\n').filter((l) => /^- (M\d+|\[ \]|t\d)/.test(l) || / dropped: /.test(l)));
      if (!a.next || n > 50) break;
      a = m.context(a.next, { budget: 300, spell: spell as never });
    }
    const whole = m.context({ level: 'full', k: 500 }, { budget: 100_000 }).text.split('\n').filter((l) => /^- (M\d+|\[ \]|t\d)/.test(l) || / dropped: /.test(l));
    expect([...new Set(seen)]).toEqual(whole);
    expect(m.context({ level: 'full', k: 5, page: 3 }, { budget: 100_000 }).text).toMatch(/^# Project Roadmap, newest first, page 3\n## [^\n]+ \(continued\)\n/);
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

  it('every level keeps any budget from the smallest up, and a smaller budget is refused, not overrun', async () => {
    const m = await Memory.open(tempProject(), { create: true });
    for (let i = 1; i <= 40; i++) await m.execute({ type: 'log', observation: `observation ${i} ${'z'.repeat((i * 37) % 500)}`, thought: 't', action: 'a' });
    for (let i = 1; i <= 6; i++) await m.execute({ type: 'commit', contribution: `Commit ${i}: ${'w '.repeat(i * 40)}`, next: `step ${i}` });
    await m.execute({ type: 'branch', name: 'long', purpose: `a purpose ${'p'.repeat(900)}`, hypotheses: ['h '.repeat(200), 'g '.repeat(200)] });
    await m.execute({ type: 'abandon', branch: 'long', reason: `why ${'r '.repeat(400)}` });
    const spell = (q: { level: string; n?: number; page?: number }) => `gctx context --${q.level} ${q.n ?? ''} --page ${q.page ?? 1}`;
    fc.assert(
      fc.property(fc.integer({ min: MIN_BUDGET, max: 600 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 5 }), (budget, n, page) => {
        for (const q of [{ level: 'log', n, page }, { level: 'branch', k: n, page }, { level: 'branch', name: 'long', k: n, page }, { level: 'search', text: 'observation zzz', limit: n, page }, { level: 'status' }, { level: 'full' }, { level: 'metadata' }] as const) {
          const a = m.context(q, { budget, spell: spell as never });
          expect(a.tokens, JSON.stringify(q)).toBeLessThanOrEqual(budget);
        }
      }),
      { numRuns: 200 },
    );
    for (const budget of [0, 1, MIN_BUDGET - 1, Number.NaN]) expect(() => m.context({ level: 'log' }, { budget })).toThrow(/E_INVALID_ARGUMENT|leaves no room/);
    m.close();
  });
});
