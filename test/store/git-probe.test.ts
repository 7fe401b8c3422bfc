/**
 * A repository's own config chooses no program for the git commands gctx runs. A repository
 * that names one for every way git can run one (an fsmonitor hook, hooks, an external diff,
 * a textconv filter, gpg for `log.showSignature`, a pager) is driven through what runs
 * unasked (the SessionStart hook, `gctx status`, the PreToolUse guard) and what runs the most
 * git (a commit with git's changed files, verify, a damaged segment git is asked about): none
 * runs. And every git command gctx started, seen through a `git` on PATH that logs its
 * arguments, carries the options that say so — the proof for the versions of git that would
 * run the external diff even for `diff --quiet` (2.46 and later, with trustExitCode).
 * Real git, the real CLI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { devNull } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { safeGit } from '../../src/store/git-probe.js';
import { runHook } from '../adapters/hook/run.js';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const SESSION = '3f1c9a52-7be0-4d3e-9b8a-1c2d3e4f5a6b';

/** A project in git whose .git/config names a program for every way git runs one; each leaves a file in `marks` if it runs. */
function hostileRepo(): { dir: string; marks: string; env: NodeJS.ProcessEnv; calls: () => string[][] } {
  const root = tempProject('gcc-git-config-');
  const dir = join(root, 'project');
  const marks = join(root, 'marks');
  const bin = join(root, 'bin');
  const hooks = join(root, 'hooks');
  for (const d of [dir, marks, bin, hooks]) mkdirSync(d);
  const home = join(root, 'home');
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_') && k !== 'GCC_SESSION')),
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const git = (...args: string[]) => execFileSync(REAL_GIT, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@e.invalid');
  git('config', 'user.name', 'T');
  writeFileSync(join(dir, 'code.txt'), 'one\n');
  git('add', 'code.txt');
  git('commit', '-qm', 'code');
  expect(gctx(dir, ['init'], undefined, env).code).toBe(0);
  expect(gctx(dir, ['commit', 'first'], undefined, env).code).toBe(0);
  git('add', '-A');
  git('commit', '-qm', 'memory');
  // What the repository names, only now: setting the memory up above ran none of it.
  const mark = (name: string) => `touch ${join(marks, name)}; false`;
  git('config', 'core.fsmonitor', mark('fsmonitor'));
  git('config', 'diff.external', mark('external-diff'));
  git('config', 'diff.trustExitCode', 'true');
  git('config', 'diff.conv.textconv', `touch ${join(marks, 'textconv')}; cat`);
  git('config', 'diff.conv.command', mark('diff-driver'));
  git('config', 'log.showSignature', 'true');
  git('config', 'gpg.program', join(bin, 'gpg'));
  git('config', 'core.pager', mark('pager'));
  git('config', 'core.hooksPath', hooks);
  for (const h of [
    'reference-transaction',
    'post-index-change',
    'pre-commit',
    'post-commit',
    'post-checkout',
    'pre-auto-gc',
  ]) {
    writeFileSync(join(hooks, h), `#!/bin/sh\ntouch ${join(marks, `hook-${h}`)}\n`);
    chmodSync(join(hooks, h), 0o755);
  }
  writeFileSync(join(bin, 'gpg'), `#!/bin/sh\ntouch ${join(marks, 'gpg')}\n`);
  chmodSync(join(bin, 'gpg'), 0o755);
  writeFileSync(join(dir, '.gitattributes'), '* diff=conv\n');
  // git on PATH logs each command it is given, then runs the real one.
  const log = join(root, 'git-calls');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\037' "$a"; done >> '${log}'\nprintf '\\n' >> '${log}'\nexec '${REAL_GIT}' "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  appendFileSync(log, '');
  env.PATH = `${bin}:${process.env.PATH}`;
  const calls = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\u001f').slice(0, -1));
  return { dir, marks, env, calls };
}

describe('git commands gctx runs: repository config chooses no program', () => {
  it('safeGit: config first, hooks off unless asked, no external diff or textconv on what can diff', () => {
    expect(safeGit(['status', '--porcelain'])).toEqual([
      '--no-pager',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'log.showSignature=false',
      '-c',
      `core.hooksPath=${devNull}`,
      'status',
      '--porcelain',
    ]);
    expect(safeGit(['diff', '--quiet', '--', 'x'])).toEqual(
      expect.arrayContaining(['diff', '--no-ext-diff', '--no-textconv', '--quiet']),
    );
    for (const cmd of ['diff-tree', 'show', 'log'])
      expect(safeGit([cmd, 'HEAD']).slice(-4)).toEqual([cmd, '--no-ext-diff', '--no-textconv', 'HEAD']);
    expect(safeGit(['rev-parse', '--git-path', 'hooks'], true)).not.toContain(`core.hooksPath=${devNull}`);
  });

  it('none runs for the SessionStart hook, status, the PreToolUse guard, a commit, verify and a damaged segment; every git call carries the options', () => {
    const { dir, marks, env, calls } = hostileRepo();
    const session = JSON.stringify({
      session_id: SESSION,
      cwd: dir,
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    expect(runHook(['--agent', 'claude-code'], session, dir, env as Record<string, string>).status).toBe(0);
    expect(gctx(dir, ['status'], undefined, env).code).toBe(0);
    // A git work-tree command: the guard lets it through without running git.
    const guard = JSON.stringify({
      session_id: SESSION,
      cwd: dir,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git stash -u' },
    });
    expect(runHook(['--agent', 'claude-code'], guard, dir, env as Record<string, string>).status).toBe(0);
    // A commit: git's changed files (one status, which could run the fsmonitor hook).
    writeFileSync(join(dir, 'code.txt'), 'one\ntwo\n');
    expect(gctx(dir, ['commit', 'second'], undefined, env).code).toBe(0);
    expect(gctx(dir, ['verify'], undefined, env).code).toBe(0);
    // A committed segment changed by hand, with no journal copy (another clone's): git is asked whether it explains the change.
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    const seg = readdirSync(join(dir, '.GCC', 'events'), { recursive: true })
      .map(String)
      .find((n) => n.endsWith('.md'))!;
    const path = join(dir, '.GCC', 'events', seg);
    writeFileSync(path, readFileSync(path, 'utf8').replace('first', 'FIRST'));
    expect(gctx(dir, ['status'], undefined, env).code).toBe(2);

    expect(readdirSync(marks), 'programs the repository named that ran').toEqual([]);
    const all = calls();
    const subcommands = new Set(
      all.map((a) => a[a.findIndex((x, i) => x !== '-c' && a[i - 1] !== '-c' && !x.startsWith('--'))]),
    );
    // The flows above did run the commands that could have run those programs.
    for (const c of ['status', 'diff', 'ls-files']) expect(subcommands, c).toContain(c);
    for (const a of all) {
      expect(a.slice(0, 5), a.join(' ')).toEqual([
        '--no-pager',
        '-c',
        'core.fsmonitor=false',
        '-c',
        'log.showSignature=false',
      ]);
      expect(a.slice(5, 7), a.join(' ')).toEqual(['-c', `core.hooksPath=${devNull}`]);
      const cmd = a[7]!;
      if (['diff', 'diff-tree', 'show', 'log'].includes(cmd))
        expect(a.slice(8, 10), a.join(' ')).toEqual(['--no-ext-diff', '--no-textconv']);
    }
  });

  it('the same repository without those options: the fsmonitor hook and a hook do run (the test can see them)', () => {
    const { dir, marks, env } = hostileRepo();
    spawnSync('git', ['status', '--porcelain'], { cwd: dir, env });
    writeFileSync(join(dir, 'code.txt'), 'changed\n');
    spawnSync('git', ['update-ref', 'refs/gcc/probe', 'HEAD'], { cwd: dir, env });
    expect(existsSync(join(marks, 'fsmonitor'))).toBe(true);
    expect(existsSync(join(marks, 'hook-reference-transaction'))).toBe(true);
  });
});
