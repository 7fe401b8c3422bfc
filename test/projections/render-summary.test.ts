/** A branch's summary.md (src/projections/render-summary.ts): its recent commits, and how many came before them. */
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/decider/evolve.js';
import { DEFAULT_CONFIG, type GccEvent, type Placed } from '../../src/events/types.js';
import { renderSummary } from '../../src/projections/render-summary.js';

let clock = 1_700_000_000_000;
function given(events: Placed[]): GccEvent[] {
  return events.map(
    (e, i) =>
      ({
        id: `${(clock++).toString(16).padStart(12, '0')}00000000${String(i % 100).padStart(2, '0')}`,
        seq: i + 1,
        at: new Date(clock).toISOString(),
        branch: e.branch,
        type: e.type,
        data: e.data,
      }) as GccEvent,
  );
}
const init: Placed = { type: 'memory.initialized', data: { format: 2, config: DEFAULT_CONFIG }, branch: 'main' };
const commit = (n: number): Placed => ({
  type: 'commit.recorded',
  data: {
    id: `abcdef${n % 10}`,
    label: `C${String(n).padStart(3, '0')}`,
    title: `step ${n}`,
    contribution: `did ${n}`,
    purpose: 'p',
    previous: 'none',
    files: [],
  },
  branch: 'main',
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
