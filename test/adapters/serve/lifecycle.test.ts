/**
 * `gctx serve` as a person runs it, each step a real process of the built gctx: start, a
 * second start, status, stop, a state file left by a daemon that died, and SIGTERM while hooks
 * are in flight (the memory must verify afterwards, every answered hook logged, the lock and
 * the state file gone).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { gctx } from '../../support/cli.js';
import { cleanup } from '../../support/tmp.js';
import { fixture } from '../hook/run.js';
import { postHook, raw, readServeState, type Served, startServe, stateFile } from './served.js';
import { initialized as project } from '../../support/project.js';

/** Tool calls logged, and what is wrong with the logs (each byte checked against the ledger). */
async function check(dir: string): Promise<{ tools: number; problems: string[] }> {
  const m = await Memory.open(dir);
  try {
    let tools = 0;
    m.events().forEach((e) => {
      if (e.type === 'tool.recorded') tools++;
    });
    const problems = m.verify().map((p) => `${p.file}: ${p.message}`);
    return { tools, problems };
  } finally {
    m.close();
  }
}

describe('gctx serve: start, status, stop', () => {
  const running: Served[] = [];
  afterAll(async () => {
    for (const d of running) await d.stop();
    cleanup();
  });

  it('starts once; a second start says where the first runs; status and stop answer for it', async () => {
    const dir = await project('gcc-serve-life-');
    const d = await startServe(dir);
    running.push(d);
    expect(d.stdout()).toContain(`listening on ${d.state.url}`);

    const second = gctx(dir, ['serve', '--port', '0']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`already running at ${d.state.url} (pid ${d.state.pid})`);
    expect(readServeState(dir)?.pid).toBe(d.state.pid);

    const status = gctx(dir, ['serve', 'status', '--json']);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(Object.keys(s).sort()).toEqual(['page', 'pid', 'token', 'url']);
    expect(s).toMatchObject({
      url: d.state.url,
      token: d.state.token,
      pid: d.state.pid,
      page: `http://127.0.0.1:${d.state.port}/?token=${d.state.token}`,
    });
    // `page` opens as is: the daemon trades its token for the cookie the page then uses.
    const opened = await raw(d.state, {
      path: new URL(s.page as string).pathname + new URL(s.page as string).search,
      anonymous: true,
    });
    expect(opened.status).toBe(303);

    const stop = gctx(dir, ['serve', 'stop']);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(`stopped gctx serve at ${d.state.url} (pid ${d.state.pid})`);
    expect(await d.exited).toBe(0);
    expect(existsSync(stateFile(dir))).toBe(false);

    const after = gctx(dir, ['serve', 'status', '--json']);
    expect(after.code).toBe(1);
    expect(JSON.parse(after.stdout)).toMatchObject({ error: { code: 'E_NOT_RUNNING' } });
    expect(gctx(dir, ['serve', 'stop']).stdout).toContain('not running');
  });

  it('takes over from a daemon that died without cleaning up; never signals a pid that does not answer as one', async () => {
    const dir = await project('gcc-serve-stale-');
    // A live process that is no daemon (this test runner), and a port nothing answers on, in a
    // state file as a daemon writes it (mode 0600: one readable by others is not trusted at all).
    const impostor = {
      pid: process.pid,
      port: 9,
      url: 'http://127.0.0.1:9/',
      token: 'x',
      startedAt: '2026-01-01T00:00:00Z',
    };
    writeFileSync(stateFile(dir), JSON.stringify(impostor), { mode: 0o600 });
    for (const verb of ['status', 'stop']) {
      const r = gctx(dir, ['serve', verb]);
      expect(r.code, verb).toBe(1);
      expect(r.stderr, verb).toContain(`process ${process.pid} is named in`);
    }
    expect(readServeState(dir)).toEqual(impostor);
    // A pid no process has: the file is stale.
    writeFileSync(stateFile(dir), JSON.stringify({ ...impostor, pid: 2 ** 22 + 7 }));
    const d = await startServe(dir);
    running.push(d);
    expect(readServeState(dir)?.pid).toBe(d.state.pid);
    expect(await d.stop()).toBe(0);
  });

  it('refuses --host: it listens on 127.0.0.1 only', async () => {
    const dir = await project('gcc-serve-host-');
    const r = gctx(dir, ['serve', '--host', '0.0.0.0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('127.0.0.1 only');
    expect(existsSync(stateFile(dir))).toBe(false);
  });

  it('on SIGTERM lets hooks in flight finish, writes nothing half, and leaves no lock or state file', async () => {
    const dir = await project('gcc-serve-term-');
    const d = await startServe(dir);
    running.push(d);
    const payload = fixture('post-tool-use-edit', dir);
    const answers = Array.from({ length: 40 }, () =>
      postHook(d.state, 'claude-code', payload).then(
        (r) => r.status,
        () => 'refused',
      ),
    );
    // Stop once the daemon is busy with them.
    await answers[0];
    d.child.kill('SIGTERM');
    const statuses = await Promise.all(answers);
    expect(await d.exited).toBe(0);
    expect(statuses.every((s) => s === 200 || s === 'refused')).toBe(true);
    expect(existsSync(stateFile(dir))).toBe(false);
    expect(existsSync(join(dir, '.GCC/.local/lock'))).toBe(false);
    // Every hook answered was logged, and nothing else; no log holds a torn entry.
    const after = await check(dir);
    expect(after.problems).toEqual([]);
    expect(after.tools).toBe(statuses.filter((s) => s === 200).length);
    expect(after.tools).toBeGreaterThan(0);
  });
});
