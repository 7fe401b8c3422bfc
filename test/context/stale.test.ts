/**
 * Citations re-checked at read: a commit keeps the git blob of every file it cites (from git,
 * hooks' edits and --files alike), and every read that shows it says `stale` with the files and
 * how much changed once they changed — never while they are unchanged — with one git call at most
 * per read. Real git; git runs through a shim on PATH that counts its calls.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitsPage } from '../../src/adapters/serve/api.js';
import { Memory } from '../../src/index.js';
import { staleChecker, staleText } from '../../src/context/stale.js';
import type { FileChange } from '../../src/events/types.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { git } from '../support/project.js';

afterAll(cleanup);

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

let shim = '';
let calls = '';
const oldPath = process.env.PATH;
beforeAll(() => {
  shim = tempProject('gcc-shim-');
  calls = join(shim, 'calls');
  writeFileSync(join(shim, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(shim, 'git'), 0o755);
  process.env.PATH = `${shim}:${oldPath}`;
});
afterAll(() => {
  process.env.PATH = oldPath;
});
const gitCalls = (): string[] => {
  try {
    return readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
const counting = <T>(f: () => T): [T, number] => {
  rmSync(calls, { force: true });
  const r = f();
  return [r, gitCalls().length];
};

async function project(): Promise<{ dir: string; m: Memory }> {
  const dir = tempProject();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@e.invalid');
  git(dir, 'config', 'user.name', 'T');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'cache.ts'), 'export const SIZE = 512;\nexport const KIND = "lru";\n');
  writeFileSync(join(dir, 'src', 'other.ts'), 'a\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'start');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'commit', contribution: 'baseline' });
  writeFileSync(
    join(dir, 'src', 'cache.ts'),
    'export const SIZE = 512;\nexport const KIND = "lru"; // an LRU of 512 entries\n',
  );
  writeFileSync(join(dir, 'notes.txt'), 'untracked\n');
  await m.execute({
    type: 'commit',
    contribution: 'The cache is an LRU of 512 entries',
    files: [
      { path: 'src/other.ts', added: 0, removed: 0 },
      { path: 'notes.txt', added: 0, removed: 0 },
    ],
  });
  return { dir, m };
}

const text = (m: Memory, q: Parameters<Memory['context']>[0]) => m.context(q).text;

describe('stale citations', () => {
  it('a commit keeps the blob of each file it cites, from git and from --files', async () => {
    const { dir, m } = await project();
    const files = (m.context({ level: 'commit', id: 'C002' }).data as { files: FileChange[] }).files;
    const blob = (p: string) => git(dir, 'hash-object', p).trim();
    expect(files).toEqual([
      { path: 'notes.txt', added: 1, removed: 0, blob: blob('notes.txt') },
      { path: 'src/cache.ts', added: 1, removed: 1, blob: blob('src/cache.ts') },
      { path: 'src/other.ts', added: 0, removed: 0, blob: blob('src/other.ts') },
    ]);
    m.close();
  });

  it('no read marks a milestone whose files are unchanged; every read marks one whose files changed', async () => {
    const { dir, m } = await project();
    const reads = () => [
      text(m, { level: 'status' }),
      m.briefing(),
      text(m, { level: 'log' }),
      text(m, { level: 'branch' }),
      text(m, { level: 'commit', id: 'C002' }),
    ];
    for (const r of reads()) expect(r).not.toContain('stale');
    writeFileSync(
      join(dir, 'src', 'cache.ts'),
      'export const SIZE = 64;\nexport const KIND = "lru"; // an LRU of 512 entries\nexport const TTL = 5;\n',
    );
    rmSync(join(dir, 'notes.txt'));
    for (const r of reads()) expect(r).toContain('stale: notes.txt deleted, src/cache.ts changed since (+2 −1)');
    const data = m.context({ level: 'branch' }).data as { commits: { stale?: string }[] };
    expect(data.commits[0]!.stale).toMatch(/^stale: /);
    // The page's commits carry it in their data.
    expect(commitsPage(m, { branch: undefined, before: undefined, limit: 5 }).items.map((c) => c.stale ?? '')).toEqual([
      'stale: notes.txt deleted, src/cache.ts changed since (+2 −1)',
      '',
    ]);
    // Put back as it was: unchanged again.
    writeFileSync(
      join(dir, 'src', 'cache.ts'),
      'export const SIZE = 512;\nexport const KIND = "lru"; // an LRU of 512 entries\n',
    );
    writeFileSync(join(dir, 'notes.txt'), 'untracked\n');
    for (const r of reads()) expect(r).not.toContain('stale');
    m.close();
  });

  it('checks many milestones with one git call at most, and none while nothing changed or the counts are cached', async () => {
    const { dir } = await project();
    const blob = (p: string) => git(dir, 'hash-object', p).trim();
    const lists: FileChange[][] = [
      [{ path: 'src/cache.ts', added: 0, removed: 0, blob: blob('src/cache.ts') }],
      [
        { path: 'src/other.ts', added: 0, removed: 0, blob: blob('src/other.ts') },
        { path: 'src/cache.ts', added: 0, removed: 0, blob: blob('src/cache.ts') },
      ],
      [
        { path: 'no-blob.ts', added: 0, removed: 0 },
        { path: '../outside', added: 0, removed: 0, blob: blob('src/other.ts') },
      ],
    ];
    const check = staleChecker(dir, join(dir, '.GCC', '.local', 'cache'));
    const [fresh, none] = counting(() => check(lists));
    expect(fresh).toEqual([[], [], []]);
    expect(none).toBe(0);
    writeFileSync(join(dir, 'src', 'cache.ts'), 'changed\n');
    writeFileSync(join(dir, 'src', 'other.ts'), 'a\nb\n');
    const [stale, once] = counting(() => check(lists));
    expect(stale.map((l) => staleText(l))).toEqual([
      'stale: src/cache.ts changed since (+1 −2)',
      'stale: src/other.ts changed since (+1 −0), src/cache.ts changed since (+1 −2)',
      '',
    ]);
    expect(once).toBe(1);
    const [again, cached] = counting(() => staleChecker(dir, join(dir, '.GCC', '.local', 'cache'))(lists));
    expect(again).toEqual(stale);
    expect(cached).toBe(0);
  });

  it('a CRLF checkout of a file git holds with LF is unchanged', async () => {
    const { dir } = await project();
    const lf = 'one\ntwo\n';
    writeFileSync(join(dir, 'w.txt'), lf);
    const blob = git(dir, 'hash-object', 'w.txt').trim();
    writeFileSync(join(dir, 'w.txt'), lf.replaceAll('\n', '\r\n'));
    expect(staleChecker(dir, null)([[{ path: 'w.txt', added: 0, removed: 0, blob }]])).toEqual([[]]);
  });
});
