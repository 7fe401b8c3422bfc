/**
 * Paths that lead out of the memory: symbolic links in place of `.GCC` or any folder or file
 * gctx reads or writes under it, and branch names that would leave the tree. Each is refused
 * (E_PATH_ESCAPE, E_BRANCH_NAME) and nothing outside `.GCC/` is read into the memory or
 * written: the whole temporary root is compared before and after.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from '../../src/decider/commands.js';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { CLI, openSegment, segmentsOf, TIMEOUT, treeState } from './helpers.js';

afterAll(cleanup);

const gcc = (dir: string, ...p: string[]) => join(dir, '.GCC', ...p);

/** A memory in `<root>/project`, with a folder `<root>/outside` beside it. */
async function memory(): Promise<{ root: string; dir: string; outside: string }> {
  const root = tempProject('gcc-links-');
  const dir = join(root, 'project');
  const outside = join(root, 'outside');
  mkdirSync(dir);
  mkdirSync(outside);
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'commit', contribution: 'commit 1' });
  await m.execute({ type: 'branch', name: 'exp', purpose: 'p' });
  await m.execute({ type: 'switch', name: 'main' });
  m.close();
  return { root, dir, outside };
}

async function refusal(p: Promise<unknown>): Promise<GccError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(GccError);
    return err as GccError;
  }
  throw new Error('expected a refusal');
}

/** Move what is at `.GCC/<rel>` outside and leave a link to it in its place. */
function linkOut(dir: string, outside: string, rel: string): void {
  const target = join(outside, rel.replaceAll('/', '__'));
  renameSync(gcc(dir, rel), target);
  symlinkSync(target, gcc(dir, rel));
}

/** Each path under .GCC/ that gctx reads or writes, found in a memory as it stands. */
const LINKED: Record<string, (dir: string) => string> = {
  'the events folder': () => 'events',
  'a month folder': (dir) =>
    segmentsOf(dir)[0]!
      .split('/')
      .slice(2, 3)
      .map((m) => `events/${m}`)[0]!,
  'the open segment': (dir) => openSegment(dir)!.slice('.GCC/'.length),
  'the local folder': () => '.local',
  'the local log': () => '.local/local.md',
  'the ledger': () => '.local/ledger.json',
  'the sealed ledger': () => '.local/ledger.json.sealed',
  'the cache folder': () => '.local/cache',
  'the branches folder': () => 'branches',
};

describe('symbolic links out of .GCC/ are refused, and nothing is written outside', () => {
  it('.GCC itself a link', async () => {
    const { root, dir, outside } = await memory();
    renameSync(gcc(dir), join(outside, 'real'));
    symlinkSync(join(outside, 'real'), gcc(dir));
    const before = treeState(root);
    expect((await refusal(Memory.open(dir))).code).toBe('E_PATH_ESCAPE');
    expect(treeState(root)).toEqual(before);
  });

  for (const [what, rel] of Object.entries(LINKED)) {
    it(`${what} a link: opening is refused and not a byte changes anywhere`, async () => {
      const { root, dir, outside } = await memory();
      const path = rel(dir);
      linkOut(dir, outside, path);
      const before = treeState(root);
      const e = await refusal(Memory.open(dir));
      expect(e.code).toBe('E_PATH_ESCAPE');
      expect(e.message).toContain(`.GCC/${path} is a symbolic link`);
      if (path === 'events' || path === '.local') {
        // The CLI says so in one line, exit 1 (a user's setup, not damage).
        const cli = spawnSync(process.execPath, [CLI, 'commit', 'through the link', '--dir', dir], {
          encoding: 'utf8',
        });
        expect(cli.status, cli.stderr).toBe(1);
        expect(cli.stderr).toMatch(/E_PATH_ESCAPE/);
      }
      expect(treeState(root)).toEqual(before);
    });
  }

  // A link put in place after the open: the write that would follow it is refused (the
  // ledger's write is not the operation's: its events are durable inside .GCC/ by then, so
  // the operation stands and only the ledger is left behind).
  const WHILE_OPEN: [string, 'refused' | 'stands', Command][] = [
    ['the events folder', 'refused', { type: 'commit', contribution: 'through the link' }],
    ['a month folder', 'refused', { type: 'commit', contribution: 'through the link' }],
    ['the open segment', 'refused', { type: 'commit', contribution: 'through the link' }],
    ['the local log', 'refused', { type: 'switch', name: 'exp' }],
    ['the ledger', 'stands', { type: 'commit', contribution: 'ledger left behind' }],
  ];
  for (const [what, outcome, op] of WHILE_OPEN) {
    it(`${what} replaced by a link while a process has the memory open: nothing is written through it`, async () => {
      const { dir, outside } = await memory();
      const m = await Memory.open(dir);
      try {
        linkOut(dir, outside, LINKED[what]!(dir));
        const before = treeState(outside);
        if (outcome === 'refused') expect((await refusal(m.execute(op))).code).toBe('E_PATH_ESCAPE');
        else await m.execute(op);
        expect(treeState(outside), 'nothing written outside').toEqual(before);
      } finally {
        m.close();
      }
    });
  }

  it('aside/ and quarantine/ links: refused on open, so nothing is ever set aside outside', async () => {
    for (const folder of ['aside', 'quarantine']) {
      const { root, dir, outside } = await memory();
      mkdirSync(gcc(dir, folder));
      linkOut(dir, outside, folder);
      writeFileSync(join(dir, '.GCC', 'main.md'), 'edited by hand\n');
      const before = treeState(root);
      expect((await refusal(Memory.open(dir))).code).toBe('E_PATH_ESCAPE');
      expect(treeState(root)).toEqual(before);
    }
  });

  // A link git checked out (one committed under .GCC/.local/ comes with a clone like any file):
  // SQLite would write the search database, or its journal, wherever it leads.
  it('the search database or its journal a link: gctx search is refused, nothing outside is written', {
    timeout: TIMEOUT,
  }, async () => {
    const { root, dir, outside } = await memory();
    for (const name of ['search.db', 'search.db-wal']) {
      const target = join(outside, name);
      writeFileSync(target, 'a file of the place the link leads to\n');
      mkdirSync(gcc(dir, '.local', 'cache'), { recursive: true });
      symlinkSync(target, gcc(dir, '.local', 'cache', name));
      const before = treeState(root);
      const cli = spawnSync(process.execPath, [CLI, 'search', 'commit', '--dir', dir], { encoding: 'utf8' });
      expect(cli.status, cli.stdout).toBe(1);
      expect(cli.stderr).toMatch(/E_PATH_ESCAPE.*search\.db(-wal)? is a symbolic link/);
      expect(treeState(root)).toEqual(before);
      rmSync(gcc(dir, '.local', 'cache', name));
    }
  });

  it('the cache folder replaced by a link while a process has the memory open: the search is refused, nothing outside changes', async () => {
    const { dir, outside } = await memory();
    const m = await Memory.open(dir);
    try {
      expect(m.context({ level: 'search', text: 'commit' }, { budget: 2000 }).text).toMatch(/commit 1/);
      linkOut(dir, outside, '.local/cache');
      await m.execute({ type: 'commit', contribution: 'another commit' });
      const before = treeState(outside);
      expect(() => m.context({ level: 'search', text: 'another' }, { budget: 2000 })).toThrow(
        /\.local\/cache is a symbolic link/,
      );
      expect(treeState(outside), 'nothing written or removed outside').toEqual(before);
    } finally {
      m.close();
    }
  });

  it("a link at .gitignore's name is not written through", async () => {
    const { root, dir, outside } = await memory();
    spawnSync('git', ['init', '-q'], { cwd: dir });
    (await Memory.open(dir)).close();
    const target = join(outside, 'target');
    writeFileSync(target, 'kept\n');
    rmSync(gcc(dir, '.gitignore'));
    symlinkSync(join(outside, 'made-by-gctx'), gcc(dir, '.gitignore')); // leads nowhere yet
    const m = await Memory.open(dir);
    m.close();
    expect(readFileSync(target, 'utf8')).toBe('kept\n');
    expect(existsSync(join(outside, 'made-by-gctx'))).toBe(false);
    expect(treeState(root, (r) => !r.startsWith('outside'))).toEqual(
      new Map([
        ['outside', expect.stringMatching(/^dir/)],
        ['outside/target', expect.stringMatching(/^file/)],
      ]),
    );
  });

  it('main.md, metadata.yaml or commit.md a link to a file outside: that file is never read into memory nor written', async () => {
    for (const [file, secret] of [
      ['main.md', '# Project Roadmap\n\n## Notes\n\nSECRET-TOKEN-1234 from outside the tree\n'],
      ['metadata.yaml', 'config:\n  proactive_commits: false\n  commit_after_edits: 3\n# SECRET-TOKEN-5678\n'],
      ['commit.md', 'outside\n'],
    ] as const) {
      const { dir, outside } = await memory();
      const target = join(outside, file);
      writeFileSync(target, secret);
      rmSync(gcc(dir, file));
      symlinkSync(target, gcc(dir, file));
      try {
        const m = await Memory.open(dir);
        await m.execute({ type: 'commit', contribution: 'after the link' });
        m.close();
      } catch (err) {
        expect((err as GccError).code, file).toBe('E_PATH_ESCAPE');
      }
      expect(readFileSync(target, 'utf8'), file).toBe(secret);
      for (const seg of segmentsOf(dir))
        expect(readFileSync(join(dir, seg), 'utf8'), file).not.toMatch(/SECRET-TOKEN|config\.set/);
    }
  });
});

describe('names that would leave the tree are refused', () => {
  const bad = [
    '..',
    '../escape',
    '../../etc/passwd',
    '/abs',
    '/tmp/x',
    'a/../../x',
    'a/./b',
    './a',
    'x\u0000y',
    'x\ny',
    'C:\\win',
    'a\\b',
    'con',
    'NUL',
    'aux.txt',
    'lpt1',
    'trailing.',
    'trailing ',
    'a//b',
    'a/',
    '',
    '.hidden',
    'log.md',
    'x.lock',
    'main',
    '__proto__',
  ];

  it('through the library: E_BRANCH_NAME naming the rule, nothing created', async () => {
    const { root, dir } = await memory();
    const before = treeState(root, (r) => r.startsWith('project/.GCC/.local'));
    const m = await Memory.open(dir);
    for (const name of bad) {
      const e = await refusal(m.execute({ type: 'branch', name, purpose: 'escape' }));
      expect(e.code, JSON.stringify(name)).toBe('E_BRANCH_NAME');
      expect(e.message.split(': ').length, 'the message names the rule').toBeGreaterThan(1);
    }
    expect(Object.keys(m.state.branches).sort()).toEqual(['exp', 'main']);
    m.close();
    expect(treeState(root, (r) => r.startsWith('project/.GCC/.local'))).toEqual(before);
    expect(readdirSync(root).sort()).toEqual(['outside', 'project']);
  });

  it('through the CLI: exit 1 and one clear line', { timeout: TIMEOUT }, async () => {
    const { root, dir } = await memory();
    const r = spawnSync(process.execPath, [CLI, 'branch', '../../escape', '--purpose', 'x', '--dir', dir], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /E_BRANCH_NAME: invalid branch name "..\/..\/escape": a branch name cannot contain `.` or `..` segments/,
    );
    expect(existsSync(join(root, 'escape'))).toBe(false);
    expect(existsSync(join(dir, '..', '..', 'escape'))).toBe(false);
  });
});
