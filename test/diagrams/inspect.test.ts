/**
 * Live inspection reaches all three machines: the branch and session machines' pure steps in
 * the engine are recorded as actors' snapshots, from a real `gctx` process, and a command or a
 * hook delivers them to a real WebSocket relay before it exits.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { type WsListener, wsListener } from './ws-listener.js';

afterAll(cleanup);

describe('GCC_INSPECT_FILE', () => {
  it('records every step of the branch machine, and of a session, as the engine takes them', () => {
    const dir = tempProject();
    const file = join(dir, 'inspect.jsonl');
    const env = { GCC_INSPECT_FILE: file };
    expect(gctx(dir, ['init'], undefined, env).code).toBe(0);
    expect(gctx(dir, ['branch', 'exp', '--purpose', 'p'], undefined, env).code).toBe(0);
    expect(gctx(dir, ['abandon', 'exp', '--reason', 'r'], undefined, env).code).toBe(0);
    expect(
      gctx(dir, ['hook'], JSON.stringify({ host: 'pi', session: 's1', event: 'session-start', reason: 'startup' }), env)
        .code,
    ).toBe(0);
    const steps = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { type: string; actor: string; from: string; to: string; origin: string; event: string },
      );
    const decided = steps.filter((s) => s.type === '@gcc.step' && s.origin === 'decide');
    expect(decided).toContainEqual(
      expect.objectContaining({ actor: 'branch:exp', event: 'branch.created', from: 'unborn', to: 'active' }),
    );
    expect(decided).toContainEqual(
      expect.objectContaining({ actor: 'branch:exp', event: 'branch.abandoned', from: 'active', to: 'abandoned' }),
    );
    expect(decided).toContainEqual(
      expect.objectContaining({ actor: 'session:s1', event: 'OPENED', from: 'opening', to: 'ready' }),
    );
  });
});

/** `gctx` as a real child process, asynchronously (the listener lives in this process). */
function gctxAsync(dir: string, args: string[], env: Record<string, string>, input?: string): Promise<number | null> {
  const options = {
    cwd: dir,
    env: { ...process.env, GCC_SESSION: '', ...env },
    stdio: ['pipe', 'ignore', 'ignore'] as const,
  };
  const child = spawn(process.execPath, [CLI, ...args], { ...options, stdio: [...options.stdio] });
  child.stdin!.end(input ?? '');
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('GCC_INSPECT from a short-lived process', () => {
  let relay: WsListener;
  beforeAll(async () => {
    relay = await wsListener();
  });
  afterAll(() => relay?.close());

  const actors = () =>
    relay.messages
      .map((m) => JSON.parse(m) as { type: string; sessionId?: string })
      .filter((m) => m.type === '@xstate.actor')
      .map((m) => m.sessionId);

  it('delivers what a command and a hook inspected before they exit', async () => {
    const dir = tempProject();
    const env = { GCC_INSPECT: relay.url };
    expect(gctx(dir, ['init']).code).toBe(0);
    expect(await gctxAsync(dir, ['branch', 'seen', '--purpose', 'p'], env)).toBe(0);
    expect(actors()).toContain('branch:seen');
    const start = JSON.stringify({ host: 'pi', session: 's-live', event: 'session-start', reason: 'startup' });
    expect(await gctxAsync(dir, ['hook'], env, start)).toBe(0);
    expect(actors()).toContain('session:s-live');
  });

  it('exits as usual when no relay answers', async () => {
    const dir = tempProject();
    expect(gctx(dir, ['init']).code).toBe(0);
    expect(await gctxAsync(dir, ['branch', 'unseen', '--purpose', 'p'], { GCC_INSPECT: 'ws://127.0.0.1:9' })).toBe(0);
  });
});
