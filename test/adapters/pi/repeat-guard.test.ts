/**
 * The repeat guard in the real Pi host: Pi's tool_call cannot add context, so a call that retries
 * an abandoned approach gets it on its result — the call still runs — and an ordinary call nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/index.js';
import { call, createHost, type Host, say, tempDir } from './harness.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

describe('Pi extension on the real host: repeat guard', () => {
  it('adds the failed approach and its reason to the result of a call that retries it', async () => {
    const dir = tempDir('gcc-pi-project-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'branch', name: 'try-pgroll', purpose: 'Use pgroll for zero-downtime migrations' });
    await m.execute({
      type: 'abandon',
      branch: 'try-pgroll',
      reason: "PgBouncer transaction pooling rejects pgroll's search_path option",
    });
    m.close();
    const h = await createHost({ cwd: dir });
    hosts.push(h);
    expect(h.loadErrors).toEqual([]);
    await h.turn('retry', [
      call('bash', { command: 'echo pgroll start --schema public' }),
      call('bash', { command: 'ls' }),
      say('done'),
    ]);
    const [retry, plain] = h.toolResults();
    expect(retry?.isError).toBe(false);
    expect(retry?.text).toContain('pgroll start');
    expect(retry?.text).toContain(
      "try-pgroll was abandoned: PgBouncer transaction pooling rejects pgroll's search_path option",
    );
    expect(plain?.text).not.toContain('abandoned');
  });
});
