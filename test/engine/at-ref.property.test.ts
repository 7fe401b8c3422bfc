/**
 * Memory along git ancestry: `context --at R` answers from the segments in R's tree, read from
 * git's objects without a checkout. Over generated histories with real git — memory recorded on
 * branches, git commits, merges, squash merges, rebases, cherry-picks and reverts — the events
 * visible at each ref are exactly those of the segments a checkout of it would hold; a finding
 * recorded on a git branch never merged is absent elsewhere; and, where nothing was reverted,
 * everything committed in a ref's ancestry is there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryAt } from '../../src/engine/at-ref.js';
import { DEFAULT_CONFIG, type GccEvent } from '../../src/events/types.js';
import { parse, serialize } from '../../src/log/codec.js';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { git } from '../support/project.js';
import { call, connect, textOf } from '../adapters/mcp/client.js';
import { runs } from '../support/runs.js';

afterAll(cleanup);

const tryGit = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' }).status === 0;

const BRANCHES = ['main', 'b1', 'b2', 'b3'];

type Op =
  | { op: 'record' }
  | { op: 'commit' }
  | { op: 'branch' | 'checkout' | 'merge' | 'squash' | 'rebase' | 'cherry-pick'; other: string }
  | { op: 'revert' };

const other = fc.constantFrom(...BRANCHES);
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ op: 'record' as const }), weight: 4 },
  { arbitrary: fc.constant({ op: 'commit' as const }), weight: 4 },
  { arbitrary: other.map((o) => ({ op: 'branch' as const, other: o })), weight: 1 },
  { arbitrary: other.map((o) => ({ op: 'checkout' as const, other: o })), weight: 2 },
  { arbitrary: other.map((o) => ({ op: 'merge' as const, other: o })), weight: 1 },
  { arbitrary: other.map((o) => ({ op: 'squash' as const, other: o })), weight: 1 },
  { arbitrary: other.map((o) => ({ op: 'rebase' as const, other: o })), weight: 1 },
  { arbitrary: other.map((o) => ({ op: 'cherry-pick' as const, other: o })), weight: 1 },
  { arbitrary: fc.constant({ op: 'revert' as const }), weight: 1 },
);

let ids = 0;
const nextId = () =>
  `${(Date.now() - 1_000_000 + ++ids).toString(16).padStart(12, '0')}${ids.toString(16).padStart(10, '0')}`;

/** One segment, as the store writes it: a file never appended to once git has seen it. */
function writeSegment(dir: string, events: Omit<GccEvent, 'id' | 'seq' | 'at'>[]): string {
  const n = ++ids;
  const rel = `2026-01/20260101T0000${String(n % 60).padStart(2, '0')}Z-${n.toString(16).padStart(6, '0')}.md`;
  mkdirSync(join(dir, '.GCC', 'events', '2026-01'), { recursive: true });
  const placed = events.map((e, i) => ({ ...e, id: nextId(), seq: i + 1, at: '2026-01-01T00:00:00.000Z' }) as GccEvent);
  writeFileSync(join(dir, '.GCC', 'events', rel), serialize(placed));
  return rel;
}

const titles = (events: readonly GccEvent[]) =>
  events.flatMap((e) => (e.type === 'commit.recorded' ? [e.data.contribution] : [])).sort();

/** What a checkout of `ref` would hold under .GCC/events, read from disk after `git archive`. */
function checkedOut(dir: string, ref: string): string[] {
  const out = tempProject('gcc-archive-');
  const tar = execFileSync('git', ['archive', ref], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] });
  execFileSync('tar', ['-x', '-C', out], { input: tar });
  const events: GccEvent[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d, { withFileTypes: true })) {
      if (f.isDirectory()) walk(join(d, f.name));
      else if (f.name.endsWith('.md')) events.push(...parse(readFileSync(join(d, f.name))).events);
    }
  };
  try {
    walk(join(out, '.GCC', 'events'));
  } catch {
    /* no memory at this ref */
  }
  return [...new Set(titles(events))];
}

function history(ops: readonly Op[]): { dir: string; made: Map<string, string>; reverted: boolean; local: string[] } {
  const dir = tempProject('gcc-at-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@e.invalid');
  git(dir, 'config', 'user.name', 'T');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeSegment(dir, [{ branch: 'main', type: 'memory.initialized', data: { format: 2, config: DEFAULT_CONFIG } }]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  /** Finding → the git commit that first held it. */
  const made = new Map<string, string>();
  const pending: string[] = [];
  let reverted = false;
  let n = 0;
  for (const o of ops) {
    const here = git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
    switch (o.op) {
      case 'record': {
        const text = `finding ${++n} on ${here}`;
        writeSegment(dir, [
          {
            branch: 'main',
            type: 'commit.recorded',
            data: {
              id: `abc${String(n).padStart(4, '0')}`,
              label: `C${String(n).padStart(3, '0')}`,
              title: text,
              contribution: text,
              purpose: '',
              previous: '',
              files: [],
            },
          },
        ]);
        pending.push(text);
        break;
      }
      case 'commit':
        git(dir, 'add', '-A');
        if (tryGit(dir, 'commit', '-qm', `c${n}`)) {
          const head = git(dir, 'rev-parse', 'HEAD').trim();
          for (const t of pending.splice(0)) made.set(t, head);
        }
        break;
      case 'branch':
        tryGit(dir, 'checkout', '-q', '-b', o.other);
        break;
      case 'checkout':
        tryGit(dir, 'checkout', '-q', o.other);
        break;
      case 'merge':
        if (!tryGit(dir, 'merge', '-q', '--no-edit', o.other)) tryGit(dir, 'merge', '--abort');
        break;
      case 'squash':
        if (tryGit(dir, 'merge', '-q', '--squash', o.other)) tryGit(dir, 'commit', '-qm', `squash ${o.other}`);
        else tryGit(dir, 'reset', '-q', '--merge');
        break;
      case 'rebase':
        if (!tryGit(dir, 'rebase', '-q', o.other)) tryGit(dir, 'rebase', '--abort');
        reverted = true; // commits are rewritten: ancestry of the first ones no longer says anything
        break;
      case 'cherry-pick':
        if (!tryGit(dir, 'cherry-pick', '--keep-redundant-commits', o.other)) tryGit(dir, 'cherry-pick', '--abort');
        break;
      case 'revert':
        if (tryGit(dir, 'revert', '--no-edit', 'HEAD')) reverted = true;
        else tryGit(dir, 'revert', '--abort');
        break;
    }
  }
  return { dir, made, reverted, local: pending };
}

describe('memory at a git ref', () => {
  it("shows exactly the segments in the ref's tree, whatever git did to the history", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 3, maxLength: 14 }), (ops) => {
        const { dir, made, reverted, local } = history(ops);
        const refs = BRANCHES.filter((b) => tryGit(dir, 'rev-parse', '--verify', '-q', b));
        for (const ref of refs) {
          const at = memoryAt(dir, ref);
          const seen = titles(at.events);
          const there = checkedOut(dir, ref);
          expect(seen).toEqual(there);
          // Never committed to git: at no ref.
          for (const t of local) if (![...made.keys()].includes(t)) expect(seen).not.toContain(t);
          if (!reverted) {
            for (const [t, commit] of made)
              expect(seen.includes(t)).toBe(
                tryGit(dir, 'merge-base', '--is-ancestor', commit, ref) || there.includes(t),
              );
          }
          // Folded by the decider: the state counts what the ref holds.
          expect(at.state.branches.main!.commits).toBe(seen.length);
        }
      }),
      { numRuns: runs(4, 30) },
    );
  });

  it('a finding on a git branch never merged is absent at main, present at the branch; --at answers without a checkout', async () => {
    const dir = tempProject('gcc-at-');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.email', 't@e.invalid');
    git(dir, 'config', 'user.name', 'T');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', contribution: 'The cache is an LRU of 512 entries' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'one');
    git(dir, 'checkout', '-qb', 'side');
    await m.execute({ type: 'commit', contribution: 'Sharded the cache by tenant' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'two');
    const log = (at: string) => m.context({ level: 'log' }, { at }).text;
    expect(log('main')).toContain('LRU of 512');
    expect(log('main')).not.toContain('Sharded');
    expect(log('side')).toContain('Sharded');
    expect(m.context({ level: 'status' }, { at: 'main' }).text).toContain('LRU of 512');
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('side');
    expect(() => m.context({ level: 'log' }, { at: '--output=/tmp/x' })).toThrow(/not a git ref/);
    expect(() => m.context({ level: 'log' }, { at: 'no-such-ref' })).toThrow(/no git ref/);
    m.close();
  });

  it('the MCP context tool takes `at`, and stale marks show there too', async () => {
    const dir = tempProject('gcc-at-');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.email', 't@e.invalid');
    git(dir, 'config', 'user.name', 'T');
    writeFileSync(join(dir, 'cache.ts'), 'export const SIZE = 512;\n');
    const m = await Memory.open(dir, { create: true });
    await m.execute({
      type: 'commit',
      contribution: 'The cache is an LRU of 512 entries',
      files: [{ path: 'cache.ts', added: 1, removed: 0 }],
    });
    m.close();
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'one');
    git(dir, 'checkout', '-qb', 'side');
    writeFileSync(join(dir, 'cache.ts'), 'export const SIZE = 64;\nexport const SHARDS = 8;\n');
    const c = await connect(dir);
    try {
      await call(c.client, 'commit', { contribution: 'Sharded the cache by tenant' });
      const atMain = textOf(await call(c.client, 'context', { level: 'log', at: 'main' }));
      expect(atMain).toContain('LRU of 512');
      expect(atMain).not.toContain('Sharded');
      const commit = textOf(await call(c.client, 'context', { level: 'commit', id: 'C001', at: 'main' }));
      expect(commit).toContain('stale: cache.ts changed since (+2 −1)');
    } finally {
      await c.close();
    }
  });
});
