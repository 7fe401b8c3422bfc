/**
 * Filesystem trouble: a memory the process may not write, a full disk and failing devices
 * (injected at the node:fs call in a child process), and locks (`.GCC/.local/lock`) left by
 * dead processes or held by live ones. Symbolic links and names that leave the tree are in
 * symlinks.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import type { GccEvent } from '../../src/events/types.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { skipping } from '../support/needs.js';
import { quarantined, SCRIPTS, sleep, start, TIMEOUT, treeState } from './helpers.js';

afterAll(cleanup);

const gcc = (dir: string, ...p: string[]) => join(dir, '.GCC', ...p);
const lockOf = (dir: string) => gcc(dir, '.local', 'lock');

async function memoryWith(commits = 1): Promise<string> {
  const dir = tempProject('gcc-fs-');
  const m = await Memory.open(dir, { create: true });
  for (let i = 0; i < commits; i++) await m.execute({ type: 'commit', contribution: `commit ${i + 1}` });
  m.close();
  return dir;
}

async function refusal(p: Promise<unknown>): Promise<GccError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(GccError);
    return err as GccError;
  }
  throw new Error('expected a refusal');
}

function runJson(script: string, args: string[], cmd: string[] = []): Record<string, unknown> {
  const argv = [...cmd, process.execPath, `${SCRIPTS}${script}`, ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${script} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

// Tests run as root here, and chmod does not stop root from writing. A memory is truly
// read-only for a process of another user: run the child as `nobody` through setpriv.
const asNobody = (() => {
  if (process.getuid?.() !== 0) return null;
  // The other user must also be able to reach node and the built library (a checkout under a
  // private folder would not let it): probe exactly that, else skip.
  const probe = `process.exit(process.getuid() === 65534 && require('node:fs').readFileSync(${JSON.stringify(join(SCRIPTS, '..', '..', '..', 'dist', 'index.js'))}).length > 0 ? 0 : 1)`;
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', probe]);
  return r.status === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : null;
})();
if (!asNobody && process.getuid?.() === 0)
  skipping(
    'test/reliability/filesystem.test.ts',
    "as root a read-only memory needs another user: install Debian's `util-linux` (setpriv), checkout readable by nobody",
  );

describe('filesystem: a memory this process cannot write', () => {
  // As root without a way to drop privileges, nothing can make the memory read-only: skipped.
  it.skipIf(!asNobody && process.getuid?.() === 0)(
    'reads work; writes are refused with E_READ_ONLY; nothing changes',
    { timeout: TIMEOUT },
    async () => {
      const dir = await memoryWith(2);
      chmodSync(dir, 0o755); // let the other user in; every file stays owned by root, 0644
      // Stale views: opening wants to rebuild them, and must go on read-only instead.
      rmSync(gcc(dir, 'main.md'), { force: true });
      const before = treeState(dir);
      const cmd = asNobody ?? [];
      if (!asNobody) chmodSync(gcc(dir), 0o555);
      const out = runJson('as-reader.mjs', [dir], cmd);
      expect(out.opened).toBe(true);
      expect(out.status).toBe(true);
      expect(out.events).toBeGreaterThan(0);
      expect((out.write as { code: string }).code).toBe('E_READ_ONLY');
      expect((out.warnings as string[]).some((w) => w.includes('read-only'))).toBe(true);
      expect(treeState(dir), 'not a byte of the memory changed, no lock left').toEqual(before);
      expect(existsSync(lockOf(dir))).toBe(false);
    },
  );
});

describe('filesystem: full disk and failing devices (injected failing writes)', () => {
  interface Faulty {
    acked: string[];
    failed: { code?: string; accepted?: string[] };
    after?: unknown;
    hits: number;
    warnings: string[];
  }
  /** The operation under the fault creates a branch: one shared event and one local (the switch). */
  const underFault = (events: GccEvent[]) =>
    events.filter(
      (e) =>
        (e.type === 'branch.created' && e.data.name === 'under-the-fault') ||
        (e.type === 'branch.switched' && e.data.to === 'under-the-fault'),
    );

  const run = async (mode: string) => {
    const dir = await memoryWith(1);
    const out = runJson('failing-writes.mjs', [dir, mode]) as unknown as Faulty;
    expect(out.hits, `${mode}: the fault was hit`).toBeGreaterThan(0);
    const m = await Memory.open(dir);
    try {
      const events = m.events();
      const ids = new Set(events.map((e) => e.id));
      for (const id of out.acked) expect(ids.has(id), `${mode}: acknowledged ${id}`).toBe(true);
      expect(out.after, `${mode}: the memory works again once the fault clears`).toBeUndefined();
      expect(out.acked).toHaveLength(2);
      expect(m.verify()).toEqual([]);
      const contributions = events.flatMap((e) => (e.type === 'commit.recorded' ? [e.data.contribution] : []));
      return { out, dir, contributions, faulty: underFault(events) };
    } finally {
      m.close();
    }
  };

  it('ENOSPC on the segment append: E_IO, and the operation leaves no trace', { timeout: TIMEOUT }, async () => {
    const { out, contributions, faulty } = await run('segment-full');
    expect(out.failed.code).toBe('E_IO');
    expect(faulty).toEqual([]);
    expect(contributions).toEqual(['commit 1', 'before the fault', 'after the fault']);
  });

  it('a short write then ENOSPC (a torn append in a live process): E_IO, and no part of it stays', {
    timeout: TIMEOUT,
  }, async () => {
    const { out, contributions, faulty, dir } = await run('segment-short');
    expect(out.failed.code).toBe('E_IO');
    expect(faulty).toEqual([]);
    expect(contributions).toEqual(['commit 1', 'before the fault', 'after the fault']);
    // Cut back at once (nothing to set aside later).
    expect(quarantined(dir)).toEqual([]);
  });

  it('EIO on fsync: the operation is not acknowledged, and does not surface later', { timeout: TIMEOUT }, async () => {
    const { out, contributions, faulty } = await run('segment-fsync');
    expect(out.failed.code).toBe('E_IO');
    expect(faulty).toEqual([]);
    expect(contributions).toEqual(['commit 1', 'before the fault', 'after the fault']);
  });

  it('ENOSPC on the ledger after a durable append: the operation stands whole', { timeout: TIMEOUT }, async () => {
    const { out, faulty } = await run('ledger');
    expect(out.failed.accepted, JSON.stringify(out.failed)).toHaveLength(2);
    expect(faulty.map((e) => e.type)).toEqual(['branch.created', 'branch.switched']);
  });

  it('ENOSPC on the views after a durable append: the operation stands, with a warning, and the views heal', {
    timeout: TIMEOUT,
  }, async () => {
    const { out, contributions, faulty } = await run('views');
    expect(out.failed.accepted, JSON.stringify(out.failed)).toHaveLength(2);
    expect(out.warnings.some((w) => w.includes('the views could not be written'))).toBe(true);
    expect(faulty).toHaveLength(2);
    expect(contributions).toEqual(['commit 1', 'before the fault', 'after the fault']);
  });

  it('ENOSPC on the local log after the shared append: the operation stands whole or leaves no trace', {
    timeout: TIMEOUT,
  }, async () => {
    const { out, faulty } = await run('local-full');
    if (out.failed.code) expect(faulty).toEqual([]);
    else expect(faulty).toHaveLength(2);
  });
});

describe('filesystem: locks', () => {
  it('a lock left by a killed process is taken over, with a warning naming it', { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    const holder = start('lock-holder.mjs', [dir, 'die']);
    const line = await holder.waitFor((l) => l.startsWith('locked'));
    await holder.exited;
    const pid = Number(line.split(' ')[1]);
    expect(JSON.parse(readFileSync(lockOf(dir), 'utf8')).pid).toBe(pid);
    const m = await Memory.open(dir);
    const t0 = Date.now();
    await m.execute({ type: 'commit', contribution: 'after the crash' });
    const ms = Date.now() - t0;
    expect(m.warnings).toContain(`took over a stale lock left by dead process ${pid}`);
    m.close();
    expect(existsSync(lockOf(dir))).toBe(false);
    console.log(`[reliability] stale lock of dead pid ${pid} taken over; commit done in ${ms} ms`);
  });

  it('a lock naming a live pid that was reused by a newer process is stale', { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    writeFileSync(
      lockOf(dir),
      JSON.stringify({ pid: process.pid, host: hostname(), start: '1', at: new Date().toISOString() }),
    );
    const m = await Memory.open(dir);
    await m.execute({ type: 'commit', contribution: 'pid reused' });
    expect(m.warnings.some((w) => w.includes('stale lock'))).toBe(true);
    m.close();
  });

  it('an empty lock file (its creator died before writing it) is waited on while fresh, taken over once old', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = await memoryWith(1);
    writeFileSync(lockOf(dir), '');
    const fresh = await Memory.open(dir, { lockTimeoutMs: 300 });
    expect((await refusal(fresh.execute({ type: 'commit', contribution: 'x' }))).code).toBe('E_LOCKED');
    fresh.close();
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockOf(dir), old, old);
    const m = await Memory.open(dir, { lockTimeoutMs: 300 });
    await m.execute({ type: 'commit', contribution: 'after the empty lock' });
    m.close();
  });

  it("another host's lock is never broken", { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    writeFileSync(
      lockOf(dir),
      JSON.stringify({ pid: 1, host: 'some-other-host', start: null, at: new Date().toISOString() }),
    );
    const m = await Memory.open(dir, { lockTimeoutMs: 300 });
    const e = await refusal(m.execute({ type: 'commit', contribution: 'x' }));
    expect(e.code).toBe('E_LOCKED');
    expect(e.message).toContain('some-other-host');
    m.close();
    expect(existsSync(lockOf(dir))).toBe(true);
  });

  it("a live holder's lock is never broken: a writer waits, then proceeds after the release", {
    timeout: TIMEOUT,
  }, async () => {
    const dir = await memoryWith(1);
    const m = await Memory.open(dir, { lockTimeoutMs: 60_000 });
    const holder = start('lock-holder.mjs', [dir], { stdin: true });
    const pid = Number((await holder.waitFor((l) => l.startsWith('locked'))).split(' ')[1]);
    let settled = false;
    const write = m.execute({ type: 'commit', contribution: 'waited for the lock' }).finally(() => (settled = true));
    // Not a timed assertion on gctx: the writer must still be pending whenever we look while
    // the holder lives; looking after a pause only gives it the chance to go wrong.
    await sleep(500);
    expect(settled, 'the writer must wait while the holder lives').toBe(false);
    expect(JSON.parse(readFileSync(lockOf(dir), 'utf8')).pid).toBe(pid);
    const impatient = await Memory.open(dir, { lockTimeoutMs: 200 });
    const e = await refusal(impatient.execute({ type: 'commit', contribution: 'x' }));
    expect(e.code).toBe('E_LOCKED');
    expect(e.message).toContain(`process ${pid}`);
    impatient.close();
    holder.proc.stdin!.write('release\n');
    await holder.waitFor((l) => l === 'released');
    const r = await write;
    expect(r.events[0]!.type).toBe('commit.recorded');
    expect(await holder.exited).toBe(0);
    expect(m.verify()).toEqual([]);
    m.close();
  });
});
