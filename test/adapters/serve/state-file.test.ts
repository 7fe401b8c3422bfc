/**
 * The serve token and state file are trusted only as files this clone made for itself: git
 * checks out a file someone force-added under `.GCC/.local/` (despite `.gitignore`), and a
 * token that came with a clone is one its author knows. Real files, real git, and the real
 * daemon refusing the committed token.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureToken, readState, serveFiles } from '../../../src/adapters/serve/state-file.js';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { raw, startServe } from './served.js';

afterAll(cleanup);

/** The token an attacker committed: known to whoever cloned. */
const KNOWN = 'a'.repeat(64);

async function memory(): Promise<string> {
  const dir = tempProject('gcc-serve-token-');
  (await Memory.open(dir, { create: true })).close();
  return dir;
}

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });

/** A repository with `.GCC/.local/serve.token` (and serve.json) committed by force, mode 0600 as under umask 077. */
async function committedToken(): Promise<string> {
  const dir = await memory();
  git(dir, 'init', '-q', '-b', 'main');
  const f = serveFiles(dir);
  writeFileSync(f.token, `${KNOWN}\n`, { mode: 0o600 });
  chmodSync(f.token, 0o600);
  git(dir, 'add', '-f', '.GCC/.local/serve.token');
  git(dir, '-c', 'user.name=a', '-c', 'user.email=a@e.invalid', 'commit', '-qm', 'token');
  return dir;
}

describe('the serve token is one this clone made', () => {
  it('made once, kept across calls, mode 0600', async () => {
    const dir = await memory();
    const said: string[] = [];
    const t = ensureToken(dir, (w) => said.push(w));
    expect(t).toMatch(/^[0-9a-f]{64}$/);
    expect(ensureToken(dir, (w) => said.push(w))).toBe(t);
    expect(lstatSync(serveFiles(dir).token).mode & 0o777).toBe(0o600);
    expect(said).toEqual([]);
  });

  it('one git tracks is replaced, even at mode 0600, and the caller is told why', async () => {
    const dir = await committedToken();
    const said: string[] = [];
    const t = ensureToken(dir, (w) => said.push(w));
    expect(t).not.toBe(KNOWN);
    expect(readFileSync(serveFiles(dir).token, 'utf8').trim()).toBe(t);
    expect(said.join('\n')).toMatch(/git tracks it.*git rm --cached/);
  });

  it('one readable by others (as git checks files out) is replaced; the chmod of old is not trusted', async () => {
    const dir = await memory();
    const f = serveFiles(dir);
    mkdirSync(f.dir, { recursive: true });
    writeFileSync(f.token, `${KNOWN}\n`);
    chmodSync(f.token, 0o644);
    const said: string[] = [];
    expect(ensureToken(dir, (w) => said.push(w))).not.toBe(KNOWN);
    expect(said.join('\n')).toMatch(/its mode is 0644, not 0600/);
    expect(lstatSync(f.token).mode & 0o777).toBe(0o600);
  });

  it('a link at its name is replaced by a file, and what it leads to is neither read nor written', async () => {
    const dir = await memory();
    const outside = join(tempProject('gcc-serve-outside-'), 'token');
    writeFileSync(outside, `${KNOWN}\n`, { mode: 0o600 });
    symlinkSync(outside, serveFiles(dir).token);
    const said: string[] = [];
    expect(ensureToken(dir, (w) => said.push(w))).not.toBe(KNOWN);
    expect(said.join('\n')).toMatch(/symbolic link/);
    expect(lstatSync(serveFiles(dir).token).isFile()).toBe(true);
    expect(readFileSync(outside, 'utf8')).toBe(`${KNOWN}\n`);
  });

  it('a state file readable by others names no daemon (so none is probed or signalled)', async () => {
    const dir = await memory();
    const f = serveFiles(dir);
    mkdirSync(f.dir, { recursive: true });
    writeFileSync(
      f.state,
      JSON.stringify({ pid: 1, port: 9, url: 'http://127.0.0.1:9/', token: KNOWN, startedAt: 'x' }),
    );
    chmodSync(f.state, 0o644);
    expect(readState(dir)).toBeNull();
    chmodSync(f.state, 0o600);
    expect(readState(dir)).toMatchObject({ pid: 1 });
  });

  it('the daemon refuses the committed token, says why, and answers its own', async () => {
    const dir = await committedToken();
    const d = await startServe(dir);
    try {
      expect(d.state.token).not.toBe(KNOWN);
      expect(
        (await raw(d.state, { path: '/api/overview', headers: { Authorization: `Bearer ${KNOWN}` } })).status,
      ).toBe(401);
      expect((await raw(d.state, { path: '/api/overview' })).status).toBe(200);
      expect(d.stderr()).toMatch(/warning: .*serve\.token was not used as the token \(git tracks it/);
    } finally {
      await d.stop();
    }
  });
});
