/**
 * What the briefing and status say of the work since the last commit and of the last milestone:
 * every call still failing, newest first, with its reason; a merge's substance; a clipped
 * milestone's way to the whole; a branch merged on one clone and abandoned on another.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BRIEFING_BUDGET, briefing } from '../../src/context/briefing.js';
import { estimateTokens } from '../../src/context/budget.js';
import { contextQuery, type ContextSource } from '../../src/context/query.js';
import { type MemoryState, PENDING_FAILURES } from '../../src/decider/state.js';
import { MAIN } from '../../src/events/types.js';
import { renderMain } from '../../src/projections/render-main.js';
import { Folded } from './folded.js';

const fail = (m: Folded, input: string, result: string) =>
  m.run({ type: 'record-tool', tool: 'Bash', input, result, isError: true, files: [] });
const pass = (m: Folded, input: string) =>
  m.run({ type: 'record-tool', tool: 'Bash', input, result: 'ok', isError: false, files: [] });
const status = (s: MemoryState) =>
  contextQuery(
    {
      state: s,
      newest: () => [],
      scan: () => {},
      search: () => ({ hits: [], total: 0, pages: 0, match: 'all' }),
    } as ContextSource,
    { level: 'status' },
  ).text;

describe('failing calls since the last commit', () => {
  it('all of them, newest first, each with its reason; one per call; a success clears only that call', () => {
    const m = new Folded();
    m.run({ type: 'commit', contribution: 'Start' });
    fail(m, 'npm run build', "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'");
    fail(m, 'npm test', 'regex cannot match nested brackets');
    const lines = briefing(m.state).split('\n');
    const at = lines.indexOf('Failing since the last commit, newest first:');
    expect(lines.slice(at + 1, at + 3)).toEqual([
      expect.stringMatching(/^ {2}- \S+ \S+ Bash npm test → regex cannot match nested brackets$/),
      expect.stringMatching(/^ {2}- \S+ \S+ Bash npm run build → src\/a\.ts\(3,5\): error TS2322/),
    ]);
    expect(status(m.state)).toMatch(
      /Failing since the last commit, newest first:\n {2}- .*npm test → regex.*\n {2}- .*npm run build → src/,
    );
    // The build fails again: one entry, now the newest.
    fail(m, 'npm run build', 'still TS2322');
    expect(briefing(m.state)).toMatch(
      /newest first:\n {2}- \S+ \S+ Bash npm run build → still TS2322\n {2}- \S+ \S+ Bash npm test → regex/,
    );
    pass(m, 'npm run build');
    expect(briefing(m.state)).toMatch(
      /^Failing since the last commit \([^)]*\): Bash npm test → regex cannot match nested brackets$/m,
    );
    expect(briefing(m.state)).not.toContain('TS2322');
  });

  it('cut to the newest few, saying how many more and where they are', () => {
    const m = new Folded();
    m.run({ type: 'commit', contribution: 'Start' });
    for (let i = 0; i < PENDING_FAILURES + 3; i++) fail(m, `npm test -- case${i}`, `case ${i} fails`);
    const text = briefing(m.state);
    expect(text).toMatch(
      /case10 → case 10 fails\n.*case9 → .*\n.*case8 → .*\n {2}… 8 more failing calls \(context log\)$/m,
    );
    expect(status(m.state)).toMatch(
      /case6 → case 6 fails\n {2}… 6 more failing calls in `context \{"level":"log","branch":"main"\}`$/m,
    );
  });

  it('property: every failing call is shown or counted, within the budget', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ call: fc.integer({ min: 0, max: 14 }), ok: fc.boolean(), why: fc.string({ maxLength: 800 }) }),
          { maxLength: 40 },
        ),
        (steps) => {
          const m = new Folded();
          m.run({ type: 'commit', contribution: 'Start' });
          const failing = new Set<number>();
          let dropped = 0;
          const order: number[] = [];
          for (const x of steps) {
            const i = order.indexOf(x.call);
            if (i !== -1) order.splice(i, 1);
            if (x.ok) {
              pass(m, `run ${x.call}`);
              failing.delete(x.call);
            } else {
              fail(m, `run ${x.call}`, x.why);
              failing.add(x.call);
              order.push(x.call);
              if (order.length > PENDING_FAILURES) {
                failing.delete(order.shift()!);
                dropped++;
              }
            }
          }
          const text = briefing(m.state);
          expect(estimateTokens(text)).toBeLessThanOrEqual(BRIEFING_BUDGET);
          const shown = (text.match(/^( {2}- \S+ \S+ |Failing since the last commit \()/gm) ?? []).length;
          const more = Number(/… (\d+) more failing call/.exec(text)?.[1] ?? 0);
          expect(shown + more).toBe(failing.size + dropped);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('the last milestone', () => {
  it('a merge shows its synthesis and what was learned, in status and the briefing', () => {
    const m = new Folded();
    m.run({ type: 'commit', contribution: 'Base' });
    m.run({ type: 'branch', name: 'cache', purpose: 'LRU cache for reads' });
    m.run({ type: 'commit', contribution: 'LRU works' });
    m.run({ type: 'merge', branch: 'cache', synthesis: 'Keep LRU cache', learned: 're-reads dominate' });
    expect(briefing(m.state)).toMatch(
      /^Last milestone on main: C002 \S+ — merged cache: Keep LRU cache; learned: re-reads dominate$/m,
    );
    expect(status(m.state)).toMatch(
      /^Last commit C002 \S+ \([^)]*\): merged cache: Keep LRU cache; learned: re-reads dominate$/m,
    );
  });

  it("a failed approach's reason, clipped, ends with the call that shows it whole", () => {
    const m = new Folded();
    m.run({ type: 'branch', name: 'exp', purpose: 'p' });
    m.run({ type: 'abandon', branch: 'exp', reason: `Too slow. ${'It backtracks on every nested list. '.repeat(20)}` });
    expect(briefing(m.state)).toMatch(
      /^ {2}- exp \(\S+\): p — dropped: Too slow\. .*… \(whole: context branch exp\)$/m,
    );
  });

  it('clipped, it ends with the call that shows it whole, in the words of whoever asked', () => {
    const m = new Folded();
    m.run({ type: 'commit', contribution: `Parser rewrite. ${'Details of the rewrite. '.repeat(60)}` });
    expect(briefing(m.state)).toMatch(
      /^Last milestone on main: C001 \S+ — Parser rewrite\. .*… \(whole: context commit C001\)$/m,
    );
    const spell = (q: { level: string; id?: string }) => `gctx context --commit ${q.id}`;
    const src = {
      state: m.state,
      newest: () => [],
      scan: () => {},
      search: () => ({ hits: [], total: 0, pages: 0, match: 'all' }),
    } as unknown as ContextSource;
    expect(contextQuery(src, { level: 'status' }, { spell: spell as never }).text).toMatch(
      /^Last commit C001 .*… \(whole: `gctx context --commit C001`\)$/m,
    );
    // Whole, no pointer.
    m.run({ type: 'commit', contribution: 'Short one' });
    expect(briefing(m.state)).not.toContain('(whole:');
  });
});

describe('a branch merged on one clone and abandoned on another', () => {
  /** Two clones' events for one branch, in the order a union delivers them. */
  function disputed(mergeFirst: boolean): MemoryState {
    const m = new Folded();
    m.run({ type: 'commit', contribution: 'Base' });
    m.run({ type: 'branch', name: 'shared', purpose: 'Shared cache' });
    m.run({ type: 'commit', contribution: 'cache done' });
    const merge = () => {
      m.place([
        {
          branch: MAIN,
          type: 'commit.recorded',
          data: {
            id: 'aaaa111',
            label: 'C002',
            title: 'Merge shared: Keep the shared cache',
            contribution: 'Keep the shared cache',
            purpose: '',
            previous: '',
            files: [],
            merge: { from: 'shared', tried: '', learned: 'hits dominate', integrated: 'Keep the shared cache' },
          },
        },
      ]);
      m.place([{ branch: 'shared', type: 'branch.merged', data: { branch: 'shared', into: MAIN, commit: 'aaaa111' } }]);
    };
    const abandon = () => {
      m.place([
        {
          branch: MAIN,
          type: 'commit.recorded',
          data: {
            id: 'bbbb222',
            label: 'C002',
            title: 'Abandon shared: too much memory',
            contribution: 'Tried on shared and dropped: too much memory on phones',
            purpose: '',
            previous: '',
            files: [],
            abandon: { from: 'shared', tried: '', reason: 'too much memory on phones' },
          },
        },
      ]);
      m.place([
        { branch: 'shared', type: 'branch.abandoned', data: { branch: 'shared', reason: 'too much memory on phones' } },
      ]);
    };
    if (mergeFirst) {
      merge();
      abandon();
    } else {
      abandon();
      merge();
    }
    return m.state;
  }

  it('whichever came first, says both in one line, never as a plain failure', () => {
    for (const first of [true, false]) {
      const s = disputed(first);
      const line =
        '  - shared: merged into main (Keep the shared cache) but abandoned elsewhere: too much memory on phones';
      for (const text of [briefing(s), status(s)]) {
        expect(text).toContain(`Merged on one clone, abandoned on another:\n${line}`);
        expect(text).not.toMatch(/Failed approaches/);
        expect(text.match(/too much memory/g)).toHaveLength(1);
      }
      expect(renderMain(s)).toContain('- `shared` (');
      const src = {
        state: s,
        newest: () => [],
        scan: () => {},
        search: () => ({ hits: [], total: 0, pages: 0, match: 'all' }),
      } as unknown as ContextSource;
      expect(contextQuery(src, { level: 'branch', name: 'shared' }).text).toMatch(
        first
          ? /Merged into main .*, and abandoned on another clone: too much memory on phones/
          : /Abandoned .*: too much memory on phones \(and merged into main on another clone\)/,
      );
      expect(contextQuery(src, { level: 'full', k: 20, page: 1 }).text).toContain(
        `## Merged on one clone, abandoned on another\n${line}`,
      );
      expect(renderMain(s)).toMatch(
        /Shared cache — merged into main \(Keep the shared cache\) but abandoned elsewhere because too much memory on phones/,
      );
    }
  });
});
