/**
 * The conflict rules of docs/git.md, checked on real memories: two copies of one memory
 * diverge (ours acts first, theirs later), their logs are unioned file by file as the
 * merge driver does, and the replayed state must follow the documented rule.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unionLogs } from '../../../src/adapters/git/union.js';
import type { Command } from '../../../src/decider/commands.js';
import { Memory } from '../../../src/engine/memory.js';
import type { MemoryState } from '../../../src/projections/state.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { logFiles } from './support.js';

afterAll(cleanup);

async function run(dir: string, cmds: Command[]): Promise<void> {
  const m = await Memory.open(dir, { create: true });
  try {
    for (const c of cmds) await m.execute(c);
  } finally {
    m.close();
  }
}

/** Seed a memory, copy it twice, let each copy act, then union every log into a third. */
async function meet(seed: Command[], ours: Command[], theirs: Command[]): Promise<{ state: MemoryState; types: string[]; problems: number }> {
  const s = tempProject();
  await run(s, seed);
  const [a, b, merged] = [tempProject(), tempProject(), tempProject()];
  for (const d of [a, b]) cpSync(join(s, '.GCC'), join(d, '.GCC'), { recursive: true });
  await run(a, ours);
  await run(b, theirs);
  const rels = new Set([...logFiles(a), ...logFiles(b)].map((f) => relative(f.startsWith(a) ? a : b, f)));
  for (const rel of rels) {
    const side = (d: string) => (existsSync(join(d, rel)) ? readFileSync(join(d, rel), 'utf8') : '');
    mkdirSync(dirname(join(merged, rel)), { recursive: true });
    writeFileSync(join(merged, rel), unionLogs(side(a), side(b), rel).text);
  }
  const m = await Memory.open(merged, { create: true });
  const out = { state: m.state, types: m.events().map((e) => e.type), problems: m.verify().length };
  m.close();
  return out;
}

describe('conflict rules after a union', () => {
  it('one side merged a branch, the other later abandoned it: merged (the earlier event decides), both events kept', async () => {
    const r = await meet(
      [{ type: 'branch', name: 'x', purpose: 'try x' }, { type: 'commit', contribution: 'x works' }],
      [{ type: 'merge', branch: 'x', synthesis: 'adopted' }],
      [{ type: 'abandon', branch: 'x', reason: 'dropped' }],
    );
    expect(r.problems).toBe(0);
    expect(r.state.branches.x!.status).toBe('merged');
    expect(r.types.filter((t) => t === 'branch.merged' || t === 'branch.abandoned').sort()).toEqual(['branch.abandoned', 'branch.merged']);
    expect(r.state.defaultBranch).toBe('main');
  });

  it('both created a branch of one name: one branch, the earlier purpose, commits from both', async () => {
    const r = await meet(
      [],
      [{ type: 'branch', name: 'same', purpose: 'ours first' }, { type: 'commit', contribution: 'ours' }],
      [{ type: 'branch', name: 'same', purpose: 'theirs later' }, { type: 'commit', contribution: 'theirs' }],
    );
    expect(r.problems).toBe(0);
    expect(r.state.branches.same!.purpose).toBe('ours first');
    expect(r.state.branches.same!.commits).toBe(2);
  });

  it('both committed on main: both kept with their own hashes; the labels repeat; the next label follows the count', async () => {
    const r = await meet([{ type: 'commit', contribution: 'base' }], [{ type: 'commit', contribution: 'ours' }], [{ type: 'commit', contribution: 'theirs' }]);
    expect(r.problems).toBe(0);
    const recent = r.state.branches.main!.recent;
    expect(recent.map((c) => c.label)).toEqual(['C001', 'C002', 'C002']);
    expect(new Set(recent.map((c) => c.id)).size).toBe(3);
    expect(r.state.branches.main!.commits).toBe(3);
  });

  it('one ticked an objective, the other later unticked it: the later event wins', async () => {
    const r = await meet([{ type: 'roadmap', action: 'add', target: 'goal' }], [{ type: 'roadmap', action: 'check', target: 'goal' }], [
      { type: 'roadmap', action: 'check', target: 'goal' },
      { type: 'roadmap', action: 'uncheck', target: 'goal' },
    ]);
    expect(r.problems).toBe(0);
    expect(r.types.filter((t) => t.startsWith('objective.'))).toEqual(['objective.added', 'objective.checked', 'objective.checked', 'objective.unchecked']);
    expect(r.state.objectives).toEqual([expect.objectContaining({ text: 'goal', done: false })]);
  });
});
