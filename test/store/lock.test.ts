/**
 * The lock file, within one process: calls that contend for it take turns, and a release removes
 * only the file this holder created (the processes' side is in test/reliability/filesystem.test.ts).
 */
import { existsSync, mkdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileLock } from '../../src/store/lock.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

function lockPath(): string {
  const dir = join(tempProject('gcc-lock-'), '.local');
  mkdirSync(dir, { recursive: true });
  return join(dir, 'lock');
}

describe('FileLock', () => {
  it('two acquisitions of one lock take turns; the file is gone after the last release', async () => {
    const path = lockPath();
    const lock = new FileLock(path);
    const order: string[] = [];
    const turn = async (who: string) => {
      await lock.acquire({ timeoutMs: 10_000 });
      order.push(`${who} in`);
      await new Promise((r) => setTimeout(r, 20));
      order.push(`${who} out`);
      lock.release();
    };
    await Promise.all([turn('a'), turn('b'), turn('c')]);
    expect(order.join(' ')).toMatch(/^(\w) in \1 out (\w) in \2 out (\w) in \3 out$/);
    expect(lock.isHeld).toBe(false);
    expect(existsSync(path)).toBe(false);
  });

  it('a release leaves alone a lock file that is no longer the one it created', async () => {
    const path = lockPath();
    const lock = new FileLock(path);
    await lock.acquire();
    unlinkSync(path);
    const other = JSON.stringify({ pid: 1, host: 'another', start: null, at: 'now' });
    writeFileSync(path, other);
    lock.release();
    expect(readFileSync(path, 'utf8')).toBe(other);
  });

  it('a second acquisition while the first holds it waits, even when the lock file was removed meanwhile', async () => {
    const path = lockPath();
    const lock = new FileLock(path);
    await lock.acquire();
    unlinkSync(path);
    let second = false;
    const waiting = lock.acquire({ timeoutMs: 10_000 }).then(() => (second = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(second, 'one holder at a time within a process').toBe(false);
    lock.release();
    await waiting;
    expect(existsSync(path)).toBe(true);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });
});

describe('a breaker that died', () => {
  const deadHolder = (path: string) =>
    writeFileSync(path, JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), start: '1', at: '2026-01-01T00:00:00Z' }));

  it('left its own lock empty (killed between create and write): once it is old, the stale lock is taken over', async () => {
    const path = lockPath();
    deadHolder(path);
    writeFileSync(`${path}.break`, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.break`, old, old);
    const lock = new FileLock(path);
    await lock.acquire({ timeoutMs: 2_000 });
    expect(lock.isHeld).toBe(true);
    lock.release();
    expect(existsSync(`${path}.break`)).toBe(false);
  });

  it('an empty breaker lock a moment old may be a live breaker mid-write: left alone', async () => {
    const path = lockPath();
    deadHolder(path);
    writeFileSync(`${path}.break`, '');
    await expect(new FileLock(path).acquire({ timeoutMs: 300 })).rejects.toThrow(/E_LOCKED|held by/);
    expect(existsSync(`${path}.break`)).toBe(true);
  });
});
