/**
 * Real git in temporary repositories for the git adapter tests: an isolated environment
 * (no global or system config, no inherited GIT_* variables), the built CLI run with the
 * test's own node, and a replay computed from the log files alone to compare projections
 * against without opening (and so repairing) the memory.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GccEvent } from '../../../src/events/types.js';
import { parse } from '../../../src/log/codec.js';
import { evolve } from '../../../src/projections/evolve.js';
import { allFiles } from '../../../src/projections/files.js';
import { joined } from '../../../src/store/text-file.js';
import { initialState } from '../../../src/projections/state.js';
import { layout } from '../../../src/store/paths.js';
import { byId } from '../../../src/store/store.js';

import { CLI } from '../../support/cli.js';

export { CLI };

export function gitEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  mkdirSync(home, { recursive: true });
  return { ...env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
}

export class Sandbox {
  readonly env: NodeJS.ProcessEnv;
  constructor(readonly root: string) {
    this.env = gitEnv(join(root, 'home'));
  }

  git(dir: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd: dir, env: this.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** git that may fail: status and both streams. */
  tryGit(dir: string, ...args: string[]): { status: number; out: string } {
    const r = spawnSync('git', args, { cwd: dir, env: this.env, encoding: 'utf8' });
    return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
  }

  gctx(dir: string, ...args: string[]): { status: number; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: this.env, encoding: 'utf8' });
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  /** A clone with an identity and no signing, set up for gctx. */
  clone(origin: string, name: string): string {
    this.git(this.root, 'clone', '-q', origin, name);
    const dir = join(this.root, name);
    this.identity(dir, name);
    return dir;
  }

  identity(dir: string, name: string): void {
    this.git(dir, 'config', 'user.name', name);
    this.git(dir, 'config', 'user.email', `${name}@example.com`);
    this.git(dir, 'config', 'commit.gpgsign', 'false');
  }
}

/** Every log.md of a memory (skipping gctx's local folders). */
export function logFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const ent of readdirSync(d, { withFileTypes: true })) {
      if (ent.isDirectory() && !['.cache', 'aside', 'quarantine'].includes(ent.name)) walk(join(d, ent.name));
      else if (ent.isFile() && ent.name === 'log.md') out.push(join(d, ent.name));
    }
  };
  walk(join(dir, '.GCC'));
  return out.sort();
}

/** Every event of every log on disk, parsed strictly (a torn tail fails the test). */
export function eventsOnDisk(dir: string): GccEvent[] {
  const all: GccEvent[] = [];
  for (const f of logFiles(dir)) {
    const p = parse(readFileSync(f, 'utf8'), f);
    if (p.tail) throw new Error(`${f} ends in a torn entry`);
    all.push(...p.events);
  }
  return all.sort(byId);
}

/** Projection files that differ from a replay of the logs on disk, by path. */
export function staleProjections(dir: string): string[] {
  const events = eventsOnDisk(dir);
  const want = allFiles(layout(dir), evolve(initialState(), events), events);
  const bad: string[] = [];
  for (const [path, content] of want) {
    let have: string | null = null;
    try {
      have = readFileSync(path, 'utf8');
    } catch {
      /* missing */
    }
    if (have !== joined(content)) bad.push(path.slice(dir.length + 1));
  }
  return bad;
}

/** Files under .GCC/ holding git conflict markers. */
export function conflictMarkers(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const ent of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, ent.name);
      if (ent.isDirectory()) walk(p);
      else if (/^(<{7}|={7}|>{7})( |$)/m.test(readFileSync(p, 'utf8'))) out.push(p);
    }
  };
  walk(join(dir, '.GCC'));
  return out;
}
