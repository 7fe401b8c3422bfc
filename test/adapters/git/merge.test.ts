/**
 * Two clones of a repository diverge in their agent memory — objectives, commits on main,
 * a memory branch created, committed and merged on one side and another abandoned on the
 * other, and a branch both sides merged — then meet through real `git merge` and
 * `git pull --rebase`. No conflict in .GCC/, every event of both sides exactly once, the
 * projections equal a replay as soon as git returns, `gctx verify` passes; and a checkout
 * of an older commit gives that commit's memory.
 */
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import type { Command } from '../../../src/decider/commands.js';
import type { GccEvent } from '../../../src/events/types.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { installGit } from '../../../src/adapters/git/install.js';
import { shellQuote } from '../../../src/adapters/git/git.js';
import { CLI, conflictMarkers, eventsOnDisk, Sandbox, staleProjections } from './support.js';

let box: Sandbox;
let origin: string;
let seedCommit: string;
let seedIds: string[];
let aIds: string[];
let bIds: string[];
let a: string;
let b: string;

async function run(dir: string, cmds: Command[]): Promise<void> {
  const m = await Memory.open(dir);
  try {
    for (const c of cmds) await m.execute(c);
  } finally {
    m.close();
  }
}

const ids = (events: GccEvent[]) => events.map((e) => e.id);

beforeAll(async () => {
  box = new Sandbox(tempProject('gcc-git-'));
  origin = join(box.root, 'origin.git');
  box.git(box.root, 'init', '-q', '--bare', '-b', 'main', origin);
  const seed = box.clone(origin, 'seed');
  expect(box.gctx(seed, 'init', '--git').status).toBe(0);
  await run(seed, [
    { type: 'roadmap', action: 'add', target: 'Ship the parser' },
    { type: 'commit', contribution: 'Scaffolded the project', title: 'Scaffold' },
    { type: 'branch', name: 'shared', purpose: 'An experiment both clones will merge' },
    { type: 'commit', contribution: 'Tried a streaming tokenizer', title: 'Streaming tokenizer' },
    { type: 'switch', name: 'main' },
  ]);
  box.git(seed, 'add', '-A');
  box.git(seed, 'commit', '-qm', 'seed');
  box.git(seed, 'push', '-q', 'origin', 'HEAD:main');
  seedCommit = box.git(seed, 'rev-parse', 'HEAD').trim();
  seedIds = ids(eventsOnDisk(seed));

  a = box.clone(origin, 'a');
  b = box.clone(origin, 'b');
  // In-process (the CLI path is covered by `init --git` above), registering the built CLI.
  for (const dir of [a, b]) installGit(dir, `${shellQuote(process.execPath)} ${shellQuote(CLI)}`);

  await run(a, [
    { type: 'roadmap', action: 'add', target: 'A: support comments' },
    { type: 'commit', contribution: 'Comments are tokens now', title: 'Comments' },
    { type: 'branch', name: 'try-pratt', purpose: 'Pratt parsing for expressions' },
    { type: 'commit', contribution: 'Pratt parser handles precedence', title: 'Pratt' },
    { type: 'merge', branch: 'try-pratt', synthesis: 'Pratt parsing is simpler; adopted' },
    { type: 'merge', branch: 'shared', synthesis: 'A: streaming is worth it' },
  ]);
  box.git(a, 'add', '.GCC');
  box.git(a, 'commit', '-qm', 'memory from a');
  box.git(a, 'push', '-q', 'origin', 'HEAD:main');
  aIds = ids(eventsOnDisk(a));

  await run(b, [
    { type: 'roadmap', action: 'add', target: 'B: error recovery' },
    { type: 'commit', contribution: 'Recover at statement boundaries', title: 'Recovery' },
    { type: 'branch', name: 'try-peg', purpose: 'A PEG grammar instead' },
    { type: 'abandon', branch: 'try-peg', reason: 'Too slow on large inputs' },
    { type: 'merge', branch: 'shared', synthesis: 'B: streaming halves memory' },
  ]);
  box.git(b, 'add', '.GCC');
  box.git(b, 'commit', '-qm', 'memory from b');
  bIds = ids(eventsOnDisk(b));
});

afterAll(cleanup);

/** A copy of clone b (history, config, hooks, local cache) to meet a in one way. */
function copyOfB(name: string): string {
  const dir = join(box.root, name);
  cpSync(b, dir, { recursive: true });
  return dir;
}

function expectMerged(dir: string): void {
  expect(box.git(dir, 'ls-files', '--unmerged')).toBe('');
  expect(conflictMarkers(dir)).toEqual([]);
  const merged = ids(eventsOnDisk(dir));
  expect(new Set(merged).size).toBe(merged.length);
  expect(new Set(merged)).toEqual(new Set([...aIds, ...bIds]));
  // Checked before any gctx call of ours: the hooks already rebuilt them, quietly.
  expect(staleProjections(dir)).toEqual([]);
  expect(existsSync(join(dir, '.GCC', 'aside'))).toBe(false);
  const v = box.gctx(dir, 'verify');
  expect(v.stderr).toBe('');
  expect(v.status).toBe(0);
}

async function expectRules(dir: string): Promise<void> {
  const m = await Memory.open(dir);
  const s = m.state;
  m.close();
  expect(s.objectives.map((o) => o.text).sort()).toEqual(['A: support comments', 'B: error recovery', 'Ship the parser']);
  expect(s.branches['try-pratt']!.status).toBe('merged');
  expect(s.branches['try-peg']!.status).toBe('abandoned');
  expect(s.branches.shared!.status).toBe('merged');
  // Both clones merged `shared`: both synthesis commits are kept, each a milestone.
  const sharedMerges = s.milestones.filter((x) => x.branch === 'shared').map((x) => x.title);
  expect(sharedMerges).toHaveLength(2);
  expect(sharedMerges.join('\n')).toMatch(/A: streaming[\s\S]*B: streaming/);
  // Both clones committed on main after C001: labels repeat, hashes tell them apart.
  const mainCommits = eventsOnDisk(dir).filter((e) => e.type === 'commit.recorded' && e.branch === 'main');
  const labels = mainCommits.map((e) => (e.type === 'commit.recorded' ? e.data.label : ''));
  const hashes = mainCommits.map((e) => (e.type === 'commit.recorded' ? e.data.id : ''));
  expect(labels.filter((l) => l === 'C002').length).toBe(2);
  expect(new Set(hashes).size).toBe(hashes.length);
}

describe('memory shared through git', () => {
  it('git merge: no conflict in .GCC/, the union of both memories, projections rebuilt', async () => {
    const dir = copyOfB('b-merge');
    const pull = box.tryGit(dir, 'pull', '--no-rebase', '--no-edit', 'origin', 'main');
    expect(pull.out).not.toMatch(/CONFLICT/);
    expect(pull.status).toBe(0);
    expectMerged(dir);
    await expectRules(dir);
  });

  it('git pull --rebase: no conflict in .GCC/, the union of both memories, projections rebuilt', async () => {
    const dir = copyOfB('b-rebase');
    const pull = box.tryGit(dir, 'pull', '--rebase', 'origin', 'main');
    expect(pull.out).not.toMatch(/CONFLICT/);
    expect(pull.status).toBe(0);
    expect(box.git(dir, 'rev-list', '--merges', 'HEAD')).toBe('');
    expectMerged(dir);
    await expectRules(dir);
  });

  it('a merge and a rebase of the same histories give the same logs, byte for byte', () => {
    for (const f of ['.GCC/log.md', '.GCC/branches/shared/log.md', '.GCC/branches/try-pratt/log.md']) {
      expect(readFileSync(join(box.root, 'b-merge', f), 'utf8')).toBe(readFileSync(join(box.root, 'b-rebase', f), 'utf8'));
    }
  });

  it('checking out an older commit gives that commit\'s memory, consistent; coming back gives the union', () => {
    const dir = join(box.root, 'b-merge');
    // The rebuilt projections are ordinary changes: commit them like any other file.
    box.git(dir, 'commit', '-qam', 'memory projections after the merge');
    box.git(dir, 'checkout', '-q', seedCommit);
    expect(ids(eventsOnDisk(dir))).toEqual(seedIds);
    // staleProjections compares with a replay of the logs on disk: what `gctx verify` checks.
    expect(staleProjections(dir)).toEqual([]);
    expect(box.git(dir, 'status', '--porcelain')).toBe('');
    box.git(dir, 'checkout', '-q', 'main');
    expect(new Set(ids(eventsOnDisk(dir)))).toEqual(new Set([...aIds, ...bIds]));
    expect(staleProjections(dir)).toEqual([]);
    expect(box.git(dir, 'status', '--porcelain')).toBe('');
  });
});
