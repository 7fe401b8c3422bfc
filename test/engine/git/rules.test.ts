/**
 * The rules of docs/git.md for histories that disagree, checked on real memories: two copies
 * of one memory diverge (ours acts first, theirs later), and their segments meet — exactly what
 * any git merge does, since each clone writes its own files — and the folded state follows the
 * documented rule.
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../src/decider/commands.js';
import type { MemoryState } from '../../../src/decider/state.js';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';

afterAll(cleanup);

async function run(dir: string, cmds: Command[]): Promise<void> {
  const m = await Memory.open(dir, { create: true });
  try {
    for (const c of cmds) await m.execute(c);
  } finally {
    m.close();
  }
}

/** Seed a memory, copy it twice, let each copy act, then put both copies' segments side by side in a third. */
async function meet(
  seed: Command[],
  ours: Command[],
  theirs: Command[],
): Promise<{ state: MemoryState; types: string[]; problems: number }> {
  const s = tempProject();
  await run(s, seed);
  const [a, b, merged] = [tempProject(), tempProject(), tempProject()];
  for (const d of [a, b]) {
    cpSync(join(s, '.GCC'), join(d, '.GCC'), { recursive: true });
    // A clone gets the committed files only: its own local state starts empty.
    rmSync(join(d, '.GCC', '.local'), { recursive: true, force: true });
  }
  await run(a, ours);
  await run(b, theirs);
  for (const d of [a, b]) cpSync(join(d, '.GCC', 'events'), join(merged, '.GCC', 'events'), { recursive: true });
  const m = await Memory.open(merged);
  const out = { state: m.state, types: m.events().map((e) => e.type), problems: m.verify().length };
  m.close();
  return out;
}

describe('conflict rules after a union', () => {
  it('one side merged a branch, the other later abandoned it: merged (the earlier event decides), both events kept', async () => {
    const r = await meet(
      [
        { type: 'branch', name: 'x', purpose: 'try x' },
        { type: 'commit', contribution: 'x works' },
      ],
      [{ type: 'merge', branch: 'x', synthesis: 'adopted' }],
      [{ type: 'abandon', branch: 'x', reason: 'dropped' }],
    );
    expect(r.problems).toBe(0);
    expect(r.state.branches.x!.life).toBe('merged');
    expect(r.types.filter((t) => t === 'branch.merged' || t === 'branch.abandoned').sort()).toEqual([
      'branch.abandoned',
      'branch.merged',
    ]);
    expect(r.state.defaultBranch).toBe('main');
    // Listed once, as merged and abandoned: readers say both, not "do not retry".
    expect(r.state.failed).toEqual([
      expect.objectContaining({ branch: 'x', reason: 'dropped', merged: { into: 'main', title: 'Merge x: adopted' } }),
    ]);
  });

  it('one side abandoned a branch, the other later merged it: abandoned (the earlier event decides), listed as merged too', async () => {
    const r = await meet(
      [
        { type: 'branch', name: 'x', purpose: 'try x' },
        { type: 'commit', contribution: 'x works' },
      ],
      [{ type: 'abandon', branch: 'x', reason: 'dropped' }],
      [{ type: 'merge', branch: 'x', synthesis: 'adopted' }],
    );
    expect(r.state.branches.x!.life).toBe('abandoned');
    expect(r.state.failed).toEqual([
      expect.objectContaining({ branch: 'x', reason: 'dropped', merged: { into: 'main', title: 'Merge x: adopted' } }),
    ]);
    expect(r.state.failedCount).toBe(1);
  });

  it('both created a branch of one name: one branch, the earlier purpose, commits from both', async () => {
    const r = await meet(
      [],
      [
        { type: 'branch', name: 'same', purpose: 'ours first' },
        { type: 'commit', contribution: 'ours' },
      ],
      [
        { type: 'branch', name: 'same', purpose: 'theirs later' },
        { type: 'commit', contribution: 'theirs' },
      ],
    );
    expect(r.problems).toBe(0);
    expect(r.state.branches.same!.purpose).toBe('ours first');
    expect(r.state.branches.same!.commits).toBe(2);
  });

  it('both committed on main: both kept with their own hashes; the repeated label is known, so readers see it qualified', async () => {
    const r = await meet(
      [{ type: 'commit', contribution: 'base' }],
      [{ type: 'commit', contribution: 'ours' }],
      [{ type: 'commit', contribution: 'theirs' }],
    );
    expect(r.problems).toBe(0);
    const main = r.state.branches.main!;
    expect(main.recent.map((c) => c.label)).toEqual(['C001', 'C002', 'C002']);
    expect(new Set(main.recent.map((c) => c.id)).size).toBe(3);
    expect(main.commits).toBe(3);
    expect(main.dupLabels).toEqual(['C002']);
    expect(main.labels).toEqual([[1, 2]]);
  });

  it('one ticked an objective, the other later unticked it: the later event wins', async () => {
    const r = await meet(
      [{ type: 'roadmap', action: 'add', target: 'goal' }],
      [{ type: 'roadmap', action: 'check', target: 'goal' }],
      [
        { type: 'roadmap', action: 'check', target: 'goal' },
        { type: 'roadmap', action: 'uncheck', target: 'goal' },
      ],
    );
    expect(r.problems).toBe(0);
    expect(r.types.filter((t) => t.startsWith('objective.'))).toEqual([
      'objective.added',
      'objective.checked',
      'objective.checked',
      'objective.unchecked',
    ]);
    expect(r.state.objectives).toEqual([expect.objectContaining({ text: 'goal', done: false })]);
  });
});
