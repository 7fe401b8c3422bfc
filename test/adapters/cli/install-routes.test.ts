/**
 * The install routes the README gives, each run for real: from a clone (`npm install -g .`,
 * which links the clone) and from the packed tarball (its files alone run the executable).
 * The installed `gctx` then runs with a PATH holding only node's folder and the system's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempProject } from '../../support/tmp.js';
import { NODE, REPO } from '../mcp/client.js';

afterAll(cleanup);

const NPM = join(dirname(NODE), 'npm');
const npm = (args: string[], cwd: string) =>
  execFileSync(existsSync(NPM) ? NPM : 'npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A PATH with node and the system's programs (git, env), nothing of this repository. */
const PATH = `${dirname(realpathSync(NODE))}:/usr/bin:/bin`;

function runs(bin: string): void {
  const project = tempProject('gcc-installed-');
  execFileSync('git', ['init', '-q'], { cwd: project });
  const run = (...args: string[]) =>
    spawnSync(bin, args, { cwd: project, encoding: 'utf8', env: { PATH, HOME: project } });
  for (const args of [['init'], ['commit', 'installed and working'], ['status']]) {
    const r = run(...args);
    expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
  expect(run('status').stdout).toContain('installed and working');
}

describe('install routes', () => {
  it('from a clone: npm install -g . links an executable gctx', () => {
    const prefix = tempProject('gcc-prefix-');
    npm(['install', '-g', '--prefix', prefix, '--offline', '--ignore-scripts', '--no-audit', '--no-fund', REPO], REPO);
    runs(join(prefix, 'bin', 'gctx'));
  });

  it('from the packed tarball: its files alone run gctx', () => {
    const out = tempProject('gcc-pack-');
    npm(['pack', '--ignore-scripts', '--pack-destination', out], REPO);
    const tgz = readdirSync(out).find((f) => f.endsWith('.tgz'))!;
    const unpacked = join(out, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', join(out, tgz), '-C', unpacked]);
    runs(join(unpacked, 'package', 'dist', 'bin', 'gctx.js'));
  });
});
