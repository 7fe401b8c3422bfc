/**
 * What COMMIT asks git for the files touched: one `git status` while HEAD stays where the
 * last memory commit left it, whatever the work tree holds — lines are counted in-process
 * against the blobs git or the baseline keeps — and nothing but git objects and gctx's own
 * cache is written. Real git, run through a shim on PATH that counts its calls.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/index.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { git } from '../support/project.js';

afterAll(cleanup);

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

let calls = '';
const oldPath = process.env.PATH;
beforeAll(() => {
  const shim = tempProject('gcc-shim-');
  calls = join(shim, 'calls');
  writeFileSync(join(shim, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(shim, 'git'), 0o755);
  process.env.PATH = `${shim}:${oldPath}`;
});
afterAll(() => {
  process.env.PATH = oldPath;
});

/** The git subcommands run by `f`, without the safety options put before them. */
async function counted(f: () => Promise<unknown>): Promise<string[]> {
  rmSync(calls, { force: true });
  await f();
  let lines: string[] = [];
  try {
    lines = readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    /* none */
  }
  return lines.map((l) => l.replace(/^(--no-pager |-c \S+ )*/, '').split(' ')[0]!);
}

const filesOf = (m: Memory) =>
  (
    m.context({ level: 'branch', k: 1 }).data as {
      commits: { files: { path: string; added: number; removed: number }[] }[];
    }
  ).commits[0]!.files.map(({ path, added, removed }) => `${path} +${added} -${removed}`);

describe('COMMIT asks git once', () => {
  it('one status per commit while HEAD stays; edits, a revert and a new file count against the baseline', async () => {
    const dir = tempProject();
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.email', 't@e.invalid');
    git(dir, 'config', 'user.name', 'T');
    writeFileSync(join(dir, 'a.ts'), 'one\ntwo\n');
    writeFileSync(join(dir, 'b.ts'), 'b\n');
    git(dir, 'add', '.');
    git(dir, 'commit', '-qm', 'start');
    const m = await Memory.open(dir, { create: true });
    // The first append looks once at what git's index holds of the memory's segment (store/append.ts).
    await m.execute({ type: 'commit', contribution: 'baseline' });
    writeFileSync(join(dir, 'a.ts'), 'one\nTWO\nthree\n');
    expect(await counted(() => m.execute({ type: 'commit', contribution: 'edited a' }))).toEqual(['status']);
    expect(filesOf(m)).toEqual(['a.ts +2 -1']);
    // a.ts edited again, b.ts edited, then a new file: each counted from where the last commit saw it.
    writeFileSync(join(dir, 'a.ts'), 'one\nTWO\nthree\nfour\n');
    writeFileSync(join(dir, 'b.ts'), 'B\n');
    writeFileSync(join(dir, 'c.ts'), 'c\nc\n');
    expect(await counted(() => m.execute({ type: 'commit', contribution: 'more' }))).toEqual(['status']);
    expect(filesOf(m)).toEqual(['a.ts +1 -0', 'b.ts +1 -1', 'c.ts +2 -0']);
    // Put back as HEAD has it, and the new file removed: both are changes since the last commit.
    writeFileSync(join(dir, 'a.ts'), 'one\ntwo\n');
    rmSync(join(dir, 'c.ts'));
    expect(await counted(() => m.execute({ type: 'commit', contribution: 'reverted' }))).toEqual(['status']);
    expect(filesOf(m)).toEqual(['a.ts +1 -3', 'c.ts +0 -2']);
    // Nothing since: nothing recorded.
    expect(await counted(() => m.execute({ type: 'commit', contribution: 'nothing' }))).toEqual(['status']);
    expect(filesOf(m)).toEqual([]);
    m.close();
  });
});
