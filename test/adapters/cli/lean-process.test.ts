/**
 * verify and doctor run in a lean child (lean-process.ts): the same executable and script,
 * started with --v8-pool-size=1 and MALLOC_ARENA_MAX=1; other commands run in the process that
 * was started. Read from what each process reports of its own start, not from memory use or timings.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import { cleanup, tempProject } from '../../support/tmp.js';

afterAll(cleanup);

/** Prints, on exit, how the process was started: its node options and MALLOC_ARENA_MAX. */
const PROBE = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; " +
    "process.on('exit', (code) => writeSync(2, '@@start ' + JSON.stringify({ pid: process.pid, ppid: process.ppid, flags: process.execArgv.filter((a) => a.startsWith('--v8') || a.startsWith('--optimize')), arena: process.env.MALLOC_ARENA_MAX ?? null, code }) + '\\n'));",
)}`;

interface Start {
  pid: number;
  ppid: number;
  flags: string[];
  arena: string | null;
  code: number;
}

function run(dir: string, args: string[]): { code: number; stdout: string; starts: Start[] } {
  const env: NodeJS.ProcessEnv = { ...process.env, GCC_SESSION: '' };
  delete env.MALLOC_ARENA_MAX;
  const r = spawnSync(process.execPath, ['--import', PROBE, CLI, ...args], { cwd: dir, encoding: 'utf8', env });
  const starts = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('@@start '))
    .map((l) => JSON.parse(l.slice('@@start '.length)) as Start);
  return { code: r.status ?? -1, stdout: r.stdout, starts };
}

function memory(): string {
  const dir = tempProject('gcc-lean-');
  for (const args of [
    ['init'],
    ['commit', 'a parser cache that keeps its tail', '--title', 'first step'],
    ['commit', 'the writer syncs the parser cache', '--title', 'second step'],
  ]) {
    const r = spawnSync(process.execPath, [CLI, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GCC_SESSION: '' },
    });
    expect(r.status, r.stderr).toBe(0);
  }
  return dir;
}

const lean = (s: Start) => s.flags.includes('--v8-pool-size=1') && s.arena === '1';

describe('a pass over the whole history runs in a lean child', () => {
  it('verify: the child runs it, started lean, and its exit code is the command’s', () => {
    const dir = memory();
    const r = run(dir, ['verify']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK: /);
    expect(r.stdout.match(/OK: /g)).toHaveLength(1);
    expect(r.starts).toHaveLength(2);
    const [child, parent] = r.starts as [Start, Start];
    expect(child.ppid).toBe(parent.pid);
    expect(lean(child)).toBe(true);
    expect(child.flags).not.toContain('--optimize-for-size');
    expect(lean(parent)).toBe(false);
  });

  it('doctor verifies, so it runs in a lean child too, and says what it found once', () => {
    const dir = memory();
    const r = run(dir, ['doctor']);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/ok {3}integrity: 3 events/g)).toHaveLength(1);
    expect(r.starts).toHaveLength(2);
    expect(r.starts.filter(lean)).toHaveLength(1);
  });

  it('a child stopped by a signal is said in one line, exit 2, rather than passed over', () => {
    const dir = memory();
    const killer = `data:text/javascript,${encodeURIComponent("if (process.env.GCTX_LEAN_CHILD) process.kill(process.pid, 'SIGKILL');")}`;
    const r = spawnSync(process.execPath, ['--import', killer, CLI, 'verify'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GCC_SESSION: '' },
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^gctx: E_INTERNAL: the process running `gctx verify` was stopped by SIGKILL Fix: run it again/,
    );
  });

  it('a search, through search or context --search, runs where it was started', () => {
    const dir = memory();
    for (const args of [
      ['search', 'parser', 'cache'],
      ['context', '--search', 'parser cache'],
      ['context', '--log'],
    ]) {
      const r = run(dir, args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.starts, args.join(' ')).toHaveLength(1);
      expect(lean(r.starts[0]!)).toBe(false);
    }
  });

  it('other commands run in the process that was started', () => {
    const dir = memory();
    const r = run(dir, ['status']);
    expect(r.code).toBe(0);
    expect(r.starts).toHaveLength(1);
    expect(lean(r.starts[0]!)).toBe(false);
  });
});
