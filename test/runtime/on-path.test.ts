/**
 * An executable looked up on PATH is never one the project supplies: a relative PATH entry, an
 * entry inside the project, or a link leading into it does not count.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { onPathOutside } from '../../src/runtime/on-path.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

function exe(dir: string, name = 'gctx'): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, '#!/bin/sh\n');
  chmodSync(p, 0o755);
  return p;
}

describe('onPathOutside', () => {
  it('skips relative entries, entries inside the project and links into it; finds one outside', () => {
    const project = tempProject('gcc-onpath-');
    const outside = tempProject('gcc-onpath-out-');
    exe(join(project, 'node_modules', '.bin'));
    exe(join(project, 'bin'));
    const linked = join(outside, 'linked');
    mkdirSync(linked);
    symlinkSync(join(project, 'bin', 'gctx'), join(linked, 'gctx'));
    const real = exe(join(outside, 'real'));
    const PATH = ['node_modules/.bin', '.', join(project, 'node_modules', '.bin'), linked, join(outside, 'real')].join(
      ':',
    );
    expect(onPathOutside('gctx', { PATH }, project)).toBe(real);
    expect(onPathOutside('gctx', { PATH: PATH.split(':').slice(0, 4).join(':') }, project)).toBeNull();
    // Without a project, only relative entries are refused.
    expect(onPathOutside('gctx', { PATH: `bin:${linked}` }, null)).toBe(join(linked, 'gctx'));
  });
});
