/**
 * Project folders for the tests that run gctx for real: one with memory set up in this process
 * (no child process to start), a git repository with an identity, gctx that must succeed, and
 * copies of a project built once per test file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { gctx } from './cli.js';
import { tempProject } from './tmp.js';

/** A temporary folder with an initialised memory; `setup` runs operations on it first. */
export async function initialized(prefix = 'gcc-test-', setup?: (m: Memory) => Promise<unknown>): Promise<string> {
  const dir = tempProject(prefix);
  const m = await Memory.open(dir, { create: true });
  try {
    await setup?.(m);
  } finally {
    m.close();
  }
  return dir;
}

/** Real git in `cwd`, its output as text; throws when git fails. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Makes `dir` a git repository on `main` with a committer identity. */
export function gitRepo(dir: string): string {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@example.invalid');
  git(dir, 'config', 'user.name', 'T');
  return dir;
}

/** The built gctx in `dir`, which must exit 0; its stdout. */
export function ok(dir: string, ...args: string[]): string {
  const r = gctx(dir, args);
  expect(r.code, `gctx ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The segment files under .GCC/events/, as full paths, oldest first. */
export function segments(dir: string): string[] {
  const root = join(dir, '.GCC', 'events');
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((n) => n.endsWith('.md'))
    .sort()
    .map((n) => join(root, n));
}

/**
 * A project `build` makes once per test file, handed out as fresh copies: a copy is a few file
 * writes where building it again is several processes (git, gctx). Every copied file has a new
 * inode and change time, so git's index is refreshed for the copy to read as clean as the original.
 */
export function template(build: (dir: string) => void, prefix = 'gcc-test-'): () => string {
  let made: string | undefined;
  return () => {
    if (made === undefined || !existsSync(made)) {
      made = tempProject(`${prefix}template-`);
      build(made);
    }
    const dir = tempProject(prefix);
    cpSync(made, dir, { recursive: true, preserveTimestamps: true });
    if (existsSync(join(dir, '.git')))
      spawnSync('git', ['update-index', '-q', '--refresh'], { cwd: dir, stdio: 'ignore' });
    return dir;
  };
}
