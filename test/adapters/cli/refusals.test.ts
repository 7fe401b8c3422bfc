/** No silent surprises: commands that would quietly do something else than asked refuse and say so. Spawned for real. */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gctx } from '../../support/cli.js';
import { cleanup, tempProject } from '../../support/tmp.js';

afterAll(cleanup);

describe('gctx init inside another memory', () => {
  it('refuses, naming the enclosing memory, unless --nested', () => {
    const outer = tempProject('gcc-nested-');
    expect(gctx(outer, ['init']).code).toBe(0);
    const inner = join(outer, 'pkg', 'sub');
    mkdirSync(inner, { recursive: true });
    const r = gctx(inner, ['init']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`E_ALREADY_INITIALIZED: ${inner} is inside the memory of ${outer}`);
    expect(r.stderr).toContain('gctx init --nested');
    expect(existsSync(join(inner, '.GCC'))).toBe(false);
    expect(gctx(inner, ['init', '--nested']).code).toBe(0);
    expect(existsSync(join(inner, '.GCC'))).toBe(true);
    // Again in a folder that holds its own memory: nothing to refuse.
    expect(gctx(inner, ['init']).code).toBe(0);
    expect(gctx(outer, ['init']).code).toBe(0);
  });
});

describe('gctx serve with no memory', () => {
  it('says so and exits 1, creating nothing', () => {
    const dir = tempProject('gcc-serve-none-');
    const r = gctx(dir, ['serve', '--port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`E_NOT_INITIALIZED: no memory in ${dir} to serve`);
    expect(r.stderr).toContain('gctx serve --init');
    expect(existsSync(join(dir, '.GCC'))).toBe(false);
  });
});

describe('an error that quotes the words it was given', () => {
  it('redacts a token among them, on stderr and in --json', () => {
    const dir = tempProject('gcc-refusal-secret-');
    expect(gctx(dir, ['init']).code).toBe(0);
    const token = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;
    for (const args of [
      ['switch', 'a', 'b', token],
      ['switch', 'a', 'b', token, '--json'],
    ]) {
      const r = gctx(dir, args);
      expect(r.code).toBe(1);
      expect(`${r.stdout}${r.stderr}`).toContain('unexpected words');
      expect(`${r.stdout}${r.stderr}`).not.toContain(token);
    }
  });
});
