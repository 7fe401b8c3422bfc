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
    for (let i = 1; i <= 30; i++)
      await m.execute({ type: 'roadmap', action: 'add', target: `Objective ${i} ${'x'.repeat(300)}` });
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
    const whole = m
      .context({ level: 'full', k: 500 }, { budget: 100_000 })
      .text.split('\n')
      .filter((l) => /^- (M\d+|\[ \]|t\d)/.test(l) || / dropped: /.test(l));
    expect([...new Set(seen)]).toEqual(whole);
    expect(m.context({ level: 'full', k: 5, page: 3 }, { budget: 100_000 }).text).toMatch(
      /^# Project Roadmap, newest first, page 3\n## [^\n]+ \(continued\)\n/,
    );
    // Whole when it fits: main.md as it is.
    expect(m.context({ level: 'full' }, { budget: 100_000 }).text).toMatch(/^# Project Roadmap\n/);
    const status = m.context({ level: 'status' }, { spell: spell as never }).text;
    expect(status).toMatch(/… 2 earlier, newest first, in `gctx context --full`/);
    m.close();
  });

  it("status's earlier commits say how many each branch has left and the page that starts with them", async () => {
    const m = await Memory.open(tempProject(), { create: true });
    const spell = (q: object) => `Q${JSON.stringify(q)}`;
    const num = (label: string) => Number(label.slice(1));
    /** Status for `session`, every commit it accounts for: listed, counted as left (and reached), or counted on the parent. */
    const check = (session: string | undefined) => {
      const here = m.currentBranch(session);
      const text = m.context({ level: 'status' }, { session, spell: spell as never }).text;
      const listed = new Map<string, number[]>();
      const last = /^Last commit (C\d+) /m.exec(text);
      if (last) listed.set(here, [num(last[1]!)]);
      for (const [, on, label] of text.matchAll(/^ {2}(?:(\S+)@)?(C\d+) \d{4}-\d\d-\d\d: /gm))
        listed.set(on ?? here, [...(listed.get(on ?? here) ?? []), num(label!)]);
      const accounted = new Map<string, number>();
      for (const [name, labels] of listed) accounted.set(name, labels.length);
      for (const [, n, name, q] of text.matchAll(/^ {2}… (\d+) older commits? on (\S+): `Q(.*)`$/gm)) {
        accounted.set(name!, accounted.get(name!)! + Number(n));
        // The page it names starts with the newest commit not listed.
        const page = m.context(JSON.parse(q!), { budget: 100_000 }).text;
        expect(page).toMatch(
          new RegExp(`\nNewest first, page 2:\nC${String(Math.min(...listed.get(name!)!) - 1).padStart(3, '0')} `),
        );
      }
      for (const [, n, name] of text.matchAll(/^ {2}… and (\d+) commits? on (\S+), where /gm))
        accounted.set(name!, Number(n));
      // Every commit of the branch and of the one it came from is accounted for, when status reached it.
      for (const name of new Set([here, m.state.branches[here]!.parent ?? here])) {
        const commits = m.state.branches[name]!.commits;
        if (commits && (name === here || accounted.has(name)))
          expect(accounted.get(name), `${name} in\n${text}`).toBe(commits);
      }
      return text;
    };
    for (let i = 1; i <= 7; i++) {
      await m.execute({ type: 'commit', contribution: `main step ${i}` });
      check(undefined);
    }
    await m.execute({ type: 'branch', name: 'f', purpose: 'feature' }, { session: 's1' });
    for (let i = 1; i <= 7; i++) {
      await m.execute({ type: 'commit', contribution: `f step ${i}` }, { session: 's1' });
      const text = check('s1');
      if (i === 3)
        expect(text).toMatch(
          / {2}main@C006 [^\n]*\n {2}… 5 older commits on main: `Q\{"level":"branch","name":"main","k":2,"page":2\}`\n/,
        );
      if (i === 7)
        expect(text).toMatch(
          / {2}… 2 older commits on f: `Q[^\n]*`\n {2}… and 7 commits on main, where f came from: `Q\{"level":"branch","name":"main"\}`\n/,
        );
    }
    // The branch view's head names the earlier commits its window holds, and counts the rest.
    expect(m.context({ level: 'branch', name: 'main' }).text).toMatch(
      /^7 commits; earlier: C006 main step 6; C005 [^\n]*; C003 main step 3; and 2 older\.$/m,
    );
    expect(m.context({ level: 'branch', name: 'main', k: 3 }).text).toMatch(
      /^7 commits; earlier: C004 main step 4; C003 main step 3; and 2 older\.$/m,
    );
    // The window holds no commit older than the page: none is named, the tail counts them.
    expect(m.context({ level: 'branch', name: 'main', k: 5 }).text).toMatch(/^7 commits\.\n[^]*\n… 2 older commits: /m);
    m.close();
  });

  it('lists of files say how many are left and where they are', async () => {
    const m = await Memory.open(tempProject(), { create: true });
    const files = Array.from({ length: 30 }, (_, i) => ({
      path: `src/module-${String(i).padStart(2, '0')}/index.ts`,
      added: 1,
      removed: 0,
    }));
    await m.execute({ type: 'commit', contribution: 'wide change', files });
    expect(m.briefing()).toMatch(/\n {2}Files: src\/module-00\/index\.ts[^\n]*, \+\d+ more \(context commit C001\)\n/);
    const shown = (line: string) => line.match(/src\/module-\d\d/g)!.length;
    const brief = /Files: (.*)\n/.exec(m.briefing())![1]!;
    expect(shown(brief) + Number(/\+(\d+) more/.exec(brief)![1])).toBe(30);
    const branch = m.context(
      { level: 'branch' },
      { spell: ((q: { level: string; id?: string }) => `gctx context --${q.level} ${q.id ?? ''}`.trim()) as never },
    ).text;
    const inView = /Files: (.*)$/m.exec(branch)![1]!;
    expect(inView).toMatch(/, \+\d+ more in `gctx context --commit [0-9a-f]{7}`$/);
    expect(shown(inView) + Number(/\+(\d+) more/.exec(inView)![1])).toBe(30);
    await m.execute({ type: 'record-tool', tool: 'Edit', input: 'x', result: '', isError: false, files });
    const flight = /Since the last commit: .*/.exec(m.briefing())![0];
    expect(flight).toMatch(/in 30 files, newest first: [^\n]*, \+22 more \(context log\)\.$/);
    m.close();
  });

  it('the log cut by a budget counts what it shows; a search page past the end says so', async () => {
    const m = await Memory.open(tempProject(), { create: true });
    for (let i = 1; i <= 12; i++)
      await m.execute({ type: 'log', observation: `observation ${i} ${'y'.repeat(200)}`, thought: 't', action: 'a' });
    const log = m.context({ level: 'log', n: 12 }, { budget: 150 });
    const shown = log.text.split('\n').filter((l) => /observation \d+/.test(l)).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(12);
    expect(log.text).toMatch(new RegExp(`^Log of main, newest first: entries 13 to ${13 - shown + 1} of 13\n`));
    expect(m.context({ level: 'search', text: 'observation', limit: 2, page: 40 }).text).toMatch(
      /^Nothing on page 40 \(12 matches for "observation" in 6 pages\)/,
    );
    m.close();
  });

  it('every level keeps any budget from the smallest up, and a smaller budget is refused, not overrun', async () => {
    const m = await Memory.open(tempProject(), { create: true });
    for (let i = 1; i <= 40; i++)
      await m.execute({
        type: 'log',
        observation: `observation ${i} ${'z'.repeat((i * 37) % 500)}`,
        thought: 't',
        action: 'a',
      });
    for (let i = 1; i <= 6; i++)
      await m.execute({ type: 'commit', contribution: `Commit ${i}: ${'w '.repeat(i * 40)}`, next: `step ${i}` });
    await m.execute({
      type: 'branch',
      name: 'long',
      purpose: `a purpose ${'p'.repeat(900)}`,
      hypotheses: ['h '.repeat(200), 'g '.repeat(200)],
    });
    await m.execute({ type: 'abandon', branch: 'long', reason: `why ${'r '.repeat(400)}` });
    const spell = (q: { level: string; n?: number; page?: number }) =>
      `gctx context --${q.level} ${q.n ?? ''} --page ${q.page ?? 1}`;
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_BUDGET, max: 600 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 5 }),
        (budget, n, page) => {
          for (const q of [
            { level: 'log', n, page },
            { level: 'branch', k: n, page },
            { level: 'branch', name: 'long', k: n, page },
            { level: 'search', text: 'observation zzz', limit: n, page },
            { level: 'status' },
            { level: 'full' },
            { level: 'metadata' },
          ] as const) {
            const a = m.context(q, { budget, spell: spell as never });
            expect(a.tokens, JSON.stringify(q)).toBeLessThanOrEqual(budget);
          }
        },
      ),
      { numRuns: 200 },
    );
    for (const budget of [0, 1, MIN_BUDGET - 1, Number.NaN])
      expect(() => m.context({ level: 'log' }, { budget })).toThrow(/E_INVALID_ARGUMENT|leaves no room/);
    m.close();
  });
});
