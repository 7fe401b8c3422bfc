/**
 * Real git in temporary repositories for the git tests: an isolated environment (no global or
 * system config, no inherited GIT_* variables, no merge driver anywhere), and the built CLI
 * run with the test's own node.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GccEvent } from '../../../src/events/types.js';
import { parse } from '../../../src/log/codec.js';
import { byId } from '../../../src/store/ids.js';
import { CLI } from '../../support/cli.js';
import { tempProject } from '../../support/tmp.js';

export { CLI };

export function gitEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && k !== 'GCC_SESSION') env[k] = v;
  mkdirSync(home, { recursive: true });
  return { ...env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
}

/** The origin the first `Sandbox.origin()` of this test file built, which later ones copy. */
let builtOrigin: string | undefined;

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

  /** `gctx hook` for an agent, the payload on stdin, as an agent host runs it. */
  hook(dir: string, agent: string, payload: object): { status: number; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [CLI, 'hook', '--agent', agent], {
      cwd: dir,
      env: this.env,
      encoding: 'utf8',
      input: JSON.stringify(payload),
    });
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  /** gctx that must succeed. */
  ok(dir: string, ...args: string[]): string {
    const r = this.gctx(dir, ...args);
    if (r.status !== 0) throw new Error(`gctx ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  }

  /**
   * A bare repository to push to, and an initial commit on main with an initialised memory:
   * built once per test file, then copied (a copy is file writes; building is a dozen processes).
   */
  origin(): string {
    if (builtOrigin === undefined || !existsSync(builtOrigin)) {
      const template = new Sandbox(tempProject('gcc-origin-'));
      builtOrigin = template.buildOrigin();
    }
    const bare = join(this.root, 'origin.git');
    cpSync(builtOrigin, bare, { recursive: true });
    return bare;
  }

  private buildOrigin(): string {
    const bare = join(this.root, 'origin.git');
    this.git(this.root, 'init', '-q', '--bare', '-b', 'main', bare);
    const seed = join(this.root, 'seed');
    this.git(this.root, 'init', '-q', '-b', 'main', seed);
    this.identity(seed, 'seed');
    this.ok(seed, 'init');
    this.ok(seed, 'roadmap', 'add', 'Ship the parser');
    this.git(seed, 'add', '-A');
    this.git(seed, 'commit', '-qm', 'start');
    this.git(seed, 'remote', 'add', 'origin', bare);
    this.git(seed, 'push', '-q', 'origin', 'main');
    return bare;
  }

  /** A clone with an identity and no signing. */
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

  /** Stage and commit everything (memory included). */
  commitAll(dir: string, message: string): void {
    this.git(dir, 'add', '-A');
    this.git(dir, 'commit', '-qm', message);
  }
}

/** Every segment file of a memory. */
export function segmentFiles(dir: string): string[] {
  const root = join(dir, '.GCC', 'events');
  try {
    return readdirSync(root, { recursive: true })
      .map(String)
      .filter((n) => n.endsWith('.md'))
      .sort()
      .map((n) => join(root, n));
  } catch {
    return [];
  }
}

/** Every event of every segment on disk, parsed strictly, once each, in id order. */
export function eventsOnDisk(dir: string): GccEvent[] {
  const byIdMap = new Map<string, GccEvent>();
  for (const f of segmentFiles(dir)) {
    const p = parse(readFileSync(f, 'utf8'), f);
    if (p.tail) throw new Error(`${f} ends in a torn entry`);
    for (const e of p.events) byIdMap.set(e.id, e);
  }
  return [...byIdMap.values()].sort(byId);
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
