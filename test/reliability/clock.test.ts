/**
 * Clocks that disagree: a teammate's running fast, this machine's stepped back. Ids must still
 * grow within every log, an event must sort after what it answers, and the views must equal a
 * rebuild — through the real command line, with each process's clock moved by a preload.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const SKEW = fileURLToPath(new URL('../fixtures/clock/skew.cjs', import.meta.url));
const HOUR = 3_600_000;

function run(dir: string, args: string[], skewMs = 0): string {
  const env = skewMs ? { NODE_OPTIONS: `--require ${SKEW}`, GCC_TEST_SKEW_MS: String(skewMs) } : {};
  const r = gctx(dir, args, undefined, env);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return r.stdout;
}

describe('clocks that disagree', () => {
  it("a commit made after reading a teammate's from a clock an hour fast is the last commit, before and after a rebuild", () => {
    const alice = tempProject();
    run(alice, ['init']);
    const bob = tempProject();
    // Bob's clone: the shared segments as git would bring them, none of Alice's local state.
    cpSync(join(alice, '.GCC', 'events'), join(bob, '.GCC', 'events'), { recursive: true });
    run(bob, ['commit', 'Bob: API v1 done', '--next', 'Bob next'], HOUR);
    // Alice pulls Bob's segment, then commits.
    cpSync(join(bob, '.GCC', 'events'), join(alice, '.GCC', 'events'), { recursive: true });
    run(alice, ['commit', 'Alice: fixed the crash, after Bob', '--next', 'release']);
    const before = run(alice, ['status']);
    expect(before).toMatch(/Last commit C002 .*Alice: fixed the crash/);
    run(alice, ['verify']);
    run(alice, ['replay']);
    expect(run(alice, ['status'])).toBe(before);
  });

  it('a merge and an abandon made with the clock stepped back an hour keep their ids growing', () => {
    for (let i = 0; i < 2; i++) {
      const dir = tempProject();
      run(dir, ['init']);
      run(dir, ['branch', 'exp', '--purpose', 'p']);
      run(dir, ['abandon', '--reason', 'r'], -HOUR);
      run(dir, ['branch', 'exp2', '--purpose', 'q'], -HOUR);
      run(dir, ['merge', 'exp2', '--synthesis', 's'], -HOUR);
      run(dir, ['commit', 'next']);
      run(dir, ['verify']);
    }
  });
});
