/**
 * Failed approaches read from what commits and merges say: a table of phrasings, and ordinary
 * sentences that are none.
 */
import { describe, expect, it } from 'vitest';
import { ruledOut } from '../../src/decider/ruled-out.js';

describe('ruledOut', () => {
  it.each([
    [
      'ruled out timing (still 3/20), ruled out test order (2/20); the cause was shared fixture state',
      [
        ['timing', 'ruled out: still 3/20'],
        ['test order', 'ruled out: 2/20'],
      ],
    ],
    [
      'Ruled out the connection pool: it reproduces with one connection.',
      [['the connection pool', 'ruled out: it reproduces with one connection']],
    ],
    ['We ruled out DNS because it fails on localhost too', [['DNS', 'ruled out: it fails on localhost too']]],
    ['Bumping the pool size did not help.', [['Bumping the pool size', 'did not help']]],
    ["Tried a retry decorator, but it didn't help (still 3/20)", [['a retry decorator', "didn't help (still 3/20)"]]],
    [
      'Increasing the timeout to 30s had no effect on the flake.',
      [['Increasing the timeout to 30s', 'had no effect on the flake']],
    ],
    ['Tried pinning pytest-randomly; still fails 2/20.', [['pinning pytest-randomly', 'still fails 2/20']]],
    [
      'Dead end: pg_repack behind PgBouncer (transaction pooling drops its session locks)',
      [['pg_repack behind PgBouncer (transaction pooling drops its session locks)', 'dead end']],
    ],
    [
      'The clock skew was not the cause — the test fails with a frozen clock too.',
      [['The clock skew', 'was not the cause — the test fails with a frozen clock too']],
    ],
    [
      'Reverted the lock timeout change because it stalled the migration.',
      [['the lock timeout change', 'reverted: it stalled the migration']],
    ],
    ['Switching to gh-ost turned out to be a dead end', [['Switching to gh-ost', 'turned out to be a dead end']]],
    [
      'Caching the parse made no difference to the run time',
      [['Caching the parse', 'made no difference to the run time']],
    ],
  ])('%s', (text, expected) => {
    expect(ruledOut(text).map((r) => [r.what, r.why])).toEqual(expected);
  });

  it.each([
    'Parser by hand; handles nested brackets.',
    'Refactored the invoice module; no effect on behaviour.',
    'The test still fails.',
    'It still fails on CI.',
    'Reverted the formatting commit.',
    'Added a test that the cache does not change the output.',
    'Merge the cache branch: keep LRU, re-reads dominate.',
    'Found the cause: the fixture shares state across tests. Fixed by a fresh fixture per test.',
    'This did not help.',
    'Do not retry the timeout bump without a new reason.',
    'Objective: never change requirements.txt.',
    'Renamed ruledOut helpers for clarity',
  ])('no approach in %j', (text) => {
    expect(ruledOut(text)).toEqual([]);
  });

  it('bounded: a long list yields at most six', () => {
    expect(ruledOut(Array.from({ length: 20 }, (_, i) => `ruled out idea ${i}`).join('; ')).length).toBe(6);
  });
});
