/** A branch's summary.md (src/projections/render-summary.ts): its recent commits, and how many came before them. */
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/decider/evolve.js';
import type { Placed } from '../../src/events/types.js';
import { given, init, commit as milestone } from '../support/given.js';
import { renderSummary } from '../../src/projections/render-summary.js';

const commit = (n: number): Placed =>
  milestone('main', `C${String(n).padStart(3, '0')}`, {
    id: `abcdef${n % 10}`,
    title: `step ${n}`,
    contribution: `did ${n}`,
  });

describe('renderSummary', () => {
  it('says how many commits came before the recent ones it lists', () => {
    const progress = (n: number) => {
      const text = renderSummary(
        replay(given([init, ...Array.from({ length: n }, (_, i) => commit(i + 1))])).branches.main!,
      );
      return text.slice(text.indexOf('## Progress')).trim().split('\n').slice(1);
    };
    expect(progress(12)).toEqual([
      '- Commits: 12',
      '- … 7 earlier, in commit.md',
      '- C008 (abcdef8): step 8',
      '- C009 (abcdef9): step 9',
      '- C010 (abcdef0): step 10',
      '- C011 (abcdef1): step 11',
      '- C012 (abcdef2): step 12',
    ]);
    expect(progress(2)).toEqual(['- Commits: 2', '- C001 (abcdef1): step 1', '- C002 (abcdef2): step 2']);
  });
});
