/**
 * Filesystem trouble: a memory the process may not write, a full disk and failing
 * devices, locks left by dead processes and held by live ones, symbolic links leading out
 * of .GCC/, and branch names that try to leave the tree.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { CLI, SCRIPTS, sleep, start, TIMEOUT } from './helpers.js';

afterAll(cleanup);

const gcc = (dir: string, ...p: string[]) => join(dir, '.GCC', ...p);

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

describe('filesystem: a memory this process cannot write', () => {
  // As root without a way to drop privileges, nothing can make the memory read-only: skipped.
  it.skipIf(!asNobody && process.getuid?.() === 0)('reads work; writes are refused with E_READ_ONLY; nothing changes', { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(2);
    chmodSync(dir, 0o755); // let the other user in; every file stays owned by root, 0644
    const log = readFileSync(gcc(dir, 'log.md'));
    // A stale projection: opening wants to rebuild it, and must go on read-only instead.
    rmSync(gcc(dir, '.cache', 'checkpoint'), { force: true });
    const cmd = asNobody ?? [];
    if (!asNobody) chmodSync(gcc(dir), 0o555);
    const out = runJson('as-reader.mjs', [dir], cmd);
    expect(out.opened).toBe(true);
    expect(out.status).toBe(true);
    expect(out.events).toBeGreaterThan(0);
    expect((out.write as { code: string }).code).toBe('E_READ_ONLY');
    expect((out.warnings as string[]).some((w) => w.includes('read-only'))).toBe(true);
    expect(readFileSync(gcc(dir, 'log.md')).equals(log)).toBe(true);
    expect(existsSync(gcc(dir, '.lock'))).toBe(false);
  });
});

describe('filesystem: full disk and failing devices (injected failing writes)', () => {
  const check = async (mode: string) => {
    const dir = await memoryWith(1);
    const out = runJson('failing-writes.mjs', [dir, mode]) as { acked: string[]; failed: { code?: string; accepted?: string[] }; after?: unknown; warnings: string[] };
    const m = await Memory.open(dir);
    try {
      const ids = new Set(m.events().map((e) => e.id));
      for (const id of out.acked) expect(ids.has(id), `${mode}: acknowledged ${id}`).toBe(true);
      expect(out.after, `${mode}: the memory works again once the fault clears`).toBeUndefined();
      expect(out.acked).toHaveLength(2);
      expect(m.verify()).toEqual([]);
      return { out, m, dir, contributions: m.events().flatMap((e) => (e.type === 'commit.recorded' ? [e.data.contribution] : [])) };
    } finally {
      m.close();
    }
  };

  it('ENOSPC on the log write: the commit fails with E_IO and leaves no trace', { timeout: TIMEOUT }, async () => {
    const { out, contributions } = await check('log-full');
    expect(out.failed.code).toBe('E_IO');
    expect(contributions).toEqual(['commit 1', 'before the fault', 'after the fault']);
  });

  it('a short write then ENOSPC (a torn append in a live process): E_IO, and no part of it stays in the log', { timeout: TIMEOUT }, async () => {
    const { out, contributions, dir } = await check('log-short');
    expect(out.failed.code).toBe('E_IO');
    expect(contributions).toEqual(['commit 1', 'before the fault', 'after the fault']);
    // Either cut back at once, or set aside as a torn tail before the next append.
    const q = existsSync(gcc(dir, 'quarantine')) ? readdirSync(gcc(dir, 'quarantine')) : [];
    expect(q.length).toBeLessThanOrEqual(1);
  });

  it('EIO on fsync: the commit is not acknowledged, and does not surface later', { timeout: TIMEOUT }, async () => {
    const { out, contributions } = await check('log-fsync');
    expect(out.failed.code).toBe('E_IO');
    expect(contributions).toEqual(['commit 1', 'before the fault', 'after the fault']);
  });

  it('ENOSPC while writing projections after a durable append: the commit stands, with a warning, and projections heal', { timeout: TIMEOUT }, async () => {
    const { out, contributions } = await check('projection');
    expect(out.failed.accepted, JSON.stringify(out.failed)).toHaveLength(1);
    expect(out.warnings.some((w) => w.includes('projections could not be written'))).toBe(true);
    expect(contributions).toEqual(['commit 1', 'before the fault', 'under the fault', 'after the fault']);
  });
});

describe('filesystem: locks', () => {
  it('a lock left by a killed process is taken over, with a warning naming it', { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    const holder = start('lock-holder.mjs', [dir, 'die']);
    const line = await holder.waitFor((l) => l.startsWith('locked'));
    await holder.exited;
    const pid = Number(line.split(' ')[1]);
    expect(JSON.parse(readFileSync(gcc(dir, '.lock'), 'utf8')).pid).toBe(pid);
    const m = await Memory.open(dir);
    const t0 = Date.now();
    await m.execute({ type: 'commit', contribution: 'after the crash' });
    const ms = Date.now() - t0;
    expect(m.warnings).toContain(`took over a stale lock left by dead process ${pid}`);
    m.close();
    expect(existsSync(gcc(dir, '.lock'))).toBe(false);
    console.log(`[reliability] stale lock of dead pid ${pid} taken over; commit done in ${ms} ms`);
  });

  it('a lock naming a live pid that was reused by a newer process is stale', { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    writeFileSync(gcc(dir, '.lock'), JSON.stringify({ pid: process.pid, host: hostname(), start: '1', at: new Date().toISOString() }));
    const m = await Memory.open(dir);
    await m.execute({ type: 'commit', contribution: 'pid reused' });
    expect(m.warnings.some((w) => w.includes('stale lock'))).toBe(true);
    m.close();
  });

  it('an empty lock file (its creator died before writing it) is taken over once old, waited on while fresh', { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    writeFileSync(gcc(dir, '.lock'), '');
    const fresh = await Memory.open(dir, { lockTimeoutMs: 300 });
    expect((await refusal(fresh.execute({ type: 'commit', contribution: 'x' }))).code).toBe('E_LOCKED');
    fresh.close();
    const old = new Date(Date.now() - 60_000);
    utimesSync(gcc(dir, '.lock'), old, old);
    const m = await Memory.open(dir, { lockTimeoutMs: 300 });
    await m.execute({ type: 'commit', contribution: 'after the empty lock' });
    m.close();
  });

  it("another host's lock is never broken", { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    writeFileSync(gcc(dir, '.lock'), JSON.stringify({ pid: 1, host: 'some-other-host', start: null, at: new Date().toISOString() }));
    const m = await Memory.open(dir, { lockTimeoutMs: 300 });
    const e = await refusal(m.execute({ type: 'commit', contribution: 'x' }));
    expect(e.code).toBe('E_LOCKED');
    expect(e.message).toContain('some-other-host');
    m.close();
    expect(existsSync(gcc(dir, '.lock'))).toBe(true);
  });

  it("a live holder's lock is never broken: a writer waits, then proceeds after the release", { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    const m = await Memory.open(dir, { lockTimeoutMs: 60_000 });
    const holder = start('lock-holder.mjs', [dir], { stdin: true });
    const pid = Number((await holder.waitFor((l) => l.startsWith('locked'))).split(' ')[1]);
    let settled = false;
    const write = m.execute({ type: 'commit', contribution: 'waited for the lock' }).finally(() => (settled = true));
    await sleep(800);
    expect(settled, 'the writer must wait while the holder lives').toBe(false);
    expect(JSON.parse(readFileSync(gcc(dir, '.lock'), 'utf8')).pid).toBe(pid);
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

describe('filesystem: symbolic links out of .GCC/ are refused', () => {
  it('.GCC itself a link', async () => {
    const dir = await memoryWith(1);
    const other = tempProject('gcc-elsewhere-');
    execFileSync('mv', [gcc(dir), join(other, 'real')]);
    symlinkSync(join(other, 'real'), gcc(dir));
    expect((await refusal(Memory.open(dir))).code).toBe('E_PATH_ESCAPE');
  });

  it('.GCC/branches a link: creating a branch is refused and nothing is written outside', async () => {
    const dir = await memoryWith(1);
    const outside = tempProject('gcc-outside-');
    symlinkSync(outside, gcc(dir, 'branches'));
    const m = await Memory.open(dir);
    const e = await refusal(m.execute({ type: 'branch', name: 'escape', purpose: 'write outside' }));
    expect(e.code).toBe('E_PATH_ESCAPE');
    m.close();
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a branch's log.md replaced by a link: opening is refused", async () => {
    const dir = await memoryWith(1);
    const m = await Memory.open(dir);
    await m.execute({ type: 'branch', name: 'exp', purpose: 'p' });
    m.close();
    const outside = join(tempProject('gcc-outside-'), 'log.md');
    writeFileSync(outside, readFileSync(gcc(dir, 'branches', 'exp', 'log.md')));
    rmSync(gcc(dir, 'branches', 'exp', 'log.md'));
    symlinkSync(outside, gcc(dir, 'branches', 'exp', 'log.md'));
    expect((await refusal(Memory.open(dir))).code).toBe('E_PATH_ESCAPE');
  });

  it('main.md a link to a file outside: that file is never read into memory nor written', async () => {
    const dir = await memoryWith(1);
    const outside = join(tempProject('gcc-outside-'), 'secret.md');
    const secret = '# Project Roadmap\n\n## Notes\n\nSECRET-TOKEN-1234 from outside the tree\n';
    writeFileSync(outside, secret);
    rmSync(gcc(dir, 'main.md'));
    symlinkSync(outside, gcc(dir, 'main.md'));
    let refused: GccError | null = null;
    try {
      const m = await Memory.open(dir);
      await m.execute({ type: 'roadmap', action: 'add', target: 'after the link' });
      m.close();
    } catch (err) {
      refused = err as GccError;
    }
    if (refused) expect(refused.code).toBe('E_PATH_ESCAPE');
    expect(readFileSync(outside, 'utf8')).toBe(secret);
    expect(readFileSync(gcc(dir, 'log.md'), 'utf8')).not.toContain('SECRET-TOKEN-1234');
  });

  it('metadata.yaml a link to a file outside: never read into memory', async () => {
    const dir = await memoryWith(1);
    const outside = join(tempProject('gcc-outside-'), 'settings.yaml');
    const secret = 'config:\n  proactive_commits: false\n  commit_after_edits: 3\n# SECRET-TOKEN-5678\n';
    writeFileSync(outside, secret);
    rmSync(gcc(dir, 'metadata.yaml'));
    symlinkSync(outside, gcc(dir, 'metadata.yaml'));
    try {
      const m = await Memory.open(dir);
      await m.execute({ type: 'commit', contribution: 'after the link' });
      m.close();
    } catch (err) {
      expect((err as GccError).code).toBe('E_PATH_ESCAPE');
    }
    expect(readFileSync(outside, 'utf8')).toBe(secret);
    expect(readFileSync(gcc(dir, 'log.md'), 'utf8')).not.toMatch(/config\.set|SECRET-TOKEN/);
  });

  it('commit.md a link to a file outside: a commit never appends to it', async () => {
    const dir = await memoryWith(1);
    const outside = join(tempProject('gcc-outside-'), 'notes.md');
    writeFileSync(outside, 'outside\n');
    rmSync(gcc(dir, 'commit.md'));
    symlinkSync(outside, gcc(dir, 'commit.md'));
    try {
      const m = await Memory.open(dir);
      await m.execute({ type: 'commit', contribution: 'must not land outside' });
      m.close();
    } catch (err) {
      expect((err as GccError).code).toBe('E_PATH_ESCAPE');
    }
    expect(readFileSync(outside, 'utf8')).toBe('outside\n');
  });

  it('aside/ a link to a folder outside: a replaced projection is never copied there', async () => {
    const dir = await memoryWith(1);
    const outside = tempProject('gcc-outside-');
    symlinkSync(outside, gcc(dir, 'aside'));
    writeFileSync(gcc(dir, 'commit.md'), 'edited by hand\n');
    try {
      const m = await Memory.open(dir);
      await m.replay();
      m.close();
    } catch (err) {
      expect((err as GccError).code).toBe('E_PATH_ESCAPE');
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  it('quarantine/ a link to a folder outside: a torn tail is never written there', async () => {
    const dir = await memoryWith(2);
    const outside = tempProject('gcc-outside-');
    symlinkSync(outside, gcc(dir, 'quarantine'));
    const log = gcc(dir, 'log.md');
    truncateSync(log, readFileSync(log).length - 10);
    try {
      (await Memory.open(dir)).close();
    } catch (err) {
      expect((err as GccError).code).toBe('E_PATH_ESCAPE');
    }
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('filesystem: branch names that would leave the tree are refused', () => {
  const bad = ['..', '../escape', '../../etc/passwd', '/abs', '/tmp/x', 'a/../../x', 'a/./b', './a', 'x\u0000y', 'x\ny', 'C:\\win', 'a\\b', 'con', 'NUL', 'aux.txt', 'lpt1', 'trailing.', 'trailing ', 'a//b', 'a/', '', '.hidden', 'log.md', 'x.lock', 'main'];

  it('through the library: E_BRANCH_NAME naming the rule, nothing created', async () => {
    const dir = await memoryWith(1);
    const m = await Memory.open(dir);
    for (const name of bad) {
      const e = await refusal(m.execute({ type: 'branch', name, purpose: 'escape' }));
      expect(e.code, JSON.stringify(name)).toBe('E_BRANCH_NAME');
      expect(e.message).toContain('invalid branch name');
      expect(e.message.split(': ').length, 'the message names the rule').toBeGreaterThan(1);
    }
    expect(Object.keys(m.state.branches)).toEqual(['main']);
    m.close();
    expect(existsSync(gcc(dir, 'branches'))).toBe(false);
    expect(readdirSync(join(dir))).toEqual(['.GCC']);
  });

  it('through the CLI: exit 1 and one clear line', { timeout: TIMEOUT }, async () => {
    const dir = await memoryWith(1);
    const r = spawnSync(process.execPath, [CLI, 'branch', '../../escape', '--purpose', 'x', '--dir', dir], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/E_BRANCH_NAME: invalid branch name "..\/..\/escape": a branch name cannot contain `.` or `..` segments/);
    mkdirSync(join(dir, 'probe'));
    expect(existsSync(join(dir, '..', 'escape'))).toBe(false);
  });
});
