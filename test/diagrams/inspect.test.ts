/**
 * Live inspection reaches all three machines: the branch and session machines' pure steps in
 * the engine are recorded as actors' snapshots, from a real `gctx` process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

describe('GCC_INSPECT_FILE', () => {
  it('records every step of the branch machine, and of a session, as the engine takes them', () => {
    const dir = tempProject();
    const file = join(dir, 'inspect.jsonl');
    const env = { GCC_INSPECT_FILE: file };
    expect(gctx(dir, ['init'], undefined, env).code).toBe(0);
    expect(gctx(dir, ['branch', 'exp', '--purpose', 'p'], undefined, env).code).toBe(0);
    expect(gctx(dir, ['abandon', 'exp', '--reason', 'r'], undefined, env).code).toBe(0);
    expect(gctx(dir, ['hook'], JSON.stringify({ host: 'pi', session: 's1', event: 'session-start', reason: 'startup' }), env).code).toBe(0);
    const steps = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; actor: string; from: string; to: string; origin: string; event: string });
    const decided = steps.filter((s) => s.type === '@gcc.step' && s.origin === 'decide');
    expect(decided).toContainEqual(expect.objectContaining({ actor: 'branch:exp', event: 'branch.created', from: 'unborn', to: 'active' }));
    expect(decided).toContainEqual(expect.objectContaining({ actor: 'branch:exp', event: 'branch.abandoned', from: 'active', to: 'abandoned' }));
    expect(decided).toContainEqual(expect.objectContaining({ actor: 'session:s1', event: 'OPENED', from: 'opening', to: 'ready' }));
  });
});
