/**
 * Mutation checks done by hand (not committed), both caught: dropping the `"` → `'` replacement
 * in mermaidText (3 tests fail: the parser rejects the diagram), and dropping the same-head
 * placeholder commit before a merge (2 tests fail in the Mermaid database emulation).
 */
import { parse } from '@mermaid-js/parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GccEvent, NewEvent } from '../../src/events/types.js';
import { decideBranchOp, initialBranchWorld, type BranchOp, type BranchWorld, type CommitData } from '../../src/machines/branch.js';
import { gitGraphMermaid, gitGraphModel, mermaidText } from '../../src/diagrams/gitgraph.js';

/** What Mermaid's gitGraph database would do with the parsed statements: it throws on these. */
interface Stmt { $type: string; id?: string; name?: string; branch?: string; tags?: string[] }
function mermaidDb(statements: Stmt[]): { commits: string[]; tags: string[] } {
  const heads = new Map<string, string | null>([['main', null]]);
  const commits: string[] = [];
  const tags: string[] = [];
  let cur = 'main';
  for (const s of statements) {
    if (s.$type === 'Commit') {
      if (!s.id || commits.includes(s.id)) throw new Error(`commit id missing or repeated: ${s.id}`);
      commits.push(s.id);
      tags.push(...(s.tags ?? []));
      heads.set(cur, s.id);
    } else if (s.$type === 'Branch') {
      if (heads.has(s.name!)) throw new Error(`branch exists: ${s.name}`);
      heads.set(s.name!, heads.get(cur) ?? null);
      cur = s.name!;
    } else if (s.$type === 'Checkout') {
      if (!heads.has(s.branch!)) throw new Error(`no branch ${s.branch}`);
      cur = s.branch!;
    } else if (s.$type === 'Merge') {
      const other = s.branch!;
      if (other === cur) throw new Error('merge into itself');
      if (!heads.get(cur)) throw new Error(`current branch ${cur} has no commits`);
      if (!heads.has(other) || !heads.get(other)) throw new Error(`branch ${other} missing or empty`);
      if (heads.get(other) === heads.get(cur)) throw new Error('both branches have the same head');
      if (!s.id || commits.includes(s.id)) throw new Error(`merge id missing or repeated: ${s.id}`);
      commits.push(s.id);
      heads.set(cur, s.id);
    }
  }
  return { commits, tags };
}

async function check(text: string): Promise<{ commits: string[]; tags: string[] }> {
  const ast = await parse('gitGraph', text);
  return mermaidDb(ast.statements as unknown as Stmt[]);
}

const HOSTILE = [
  'say "hi"', 'back\\slash \\"', 'two\nlines\r\nand\ttab', '"; commit id: "forged', '%% comment', '--- \n## [C999] fake',
  '-->', '#amp; & <b>bold</b>', 'emoji 😀 and ✓ and 𝔘𝔫𝔦', 'x'.repeat(500), '', "it's", '\u2028sep\u2029', '`tick`',
];

/** Runs ops through decideBranchOp (settling each), wrapping emitted events as a store would. */
function history(ops: BranchOp[]): GccEvent[] {
  let world: BranchWorld = initialBranchWorld();
  const out: GccEvent[] = [];
  let seq = 0;
  for (const op of ops) {
    const before = world.current;
    const r = decideBranchOp(world, op);
    if (!r.ok) continue;
    for (const e of r.emitted) {
      const branch = e.type === 'commit.recorded' ? (op.type === 'merge' ? r.next.current : before) : before;
      const at = new Date(Date.UTC(2025, 0, 1, 0, 0, 0, seq)).toISOString();
      out.push({ ...(e as NewEvent), id: `e${seq}`, seq: ++seq, at, branch } as GccEvent);
    }
    const s = decideBranchOp(r.next, { type: 'settle' });
    world = s.ok ? s.next : r.next;
  }
  return out;
}

let k = 0;
const commit = (title: string, merge?: string): CommitData => ({
  id: `h${++k}`, label: `C${String(k).padStart(3, '0')}`, title, contribution: 'c', purpose: 'p', previous: '', files: [],
  ...(merge ? { merge: { from: merge, tried: 't', learned: 'l', integrated: 'i' } } : {}),
});

describe('gitGraphMermaid', () => {
  it('draws branches, labelled commits, merges and abandoned branches', async () => {
    const events = history([
      { type: 'commit', commit: commit('first step') },
      { type: 'create', name: 'feat', purpose: 'try' },
      { type: 'commit', commit: commit('on feat') },
      { type: 'merge', branch: 'feat', commit: commit('synthesis', 'feat') },
      { type: 'create', name: 'dead', purpose: 'try' },
      { type: 'abandon', branch: 'dead', reason: 'nope' },
    ]);
    const text = gitGraphMermaid(events);
    expect(text).toContain('branch "feat"');
    expect(text).toMatch(/commit id: "C\d{3} on feat"/);
    expect(text).toMatch(/merge "feat" id: "C\d{3} synthesis"/);
    const db = await check(text);
    expect(db.tags).toEqual(['abandoned']);
    expect(gitGraphModel(events).branches.map((b) => `${b.name}:${b.status}`)).toEqual(['main:active', 'feat:merged', 'dead:abandoned']);
  });

  it('merging a branch with no commits of its own still draws', async () => {
    await check(gitGraphMermaid(history([
      { type: 'create', name: 'empty', purpose: 'p' },
      { type: 'merge', branch: 'empty', commit: commit('nothing', 'empty') },
    ])));
  });

  it('every hostile title stays inside its string and parses', async () => {
    const events = history([
      { type: 'create', name: 'commit', purpose: 'a branch named like a keyword' },
      ...HOSTILE.map((t): BranchOp => ({ type: 'commit', commit: commit(t) })),
      ...HOSTILE.map((t): BranchOp => ({ type: 'commit', commit: { ...commit(t), label: 'C001' } })), // repeated ids
    ]);
    const text = gitGraphMermaid(events);
    const db = await check(text);
    expect(db.commits).toHaveLength(1 + 2 * HOSTILE.length);
    expect(text.split('\n').every((l) => (l.match(/"/g) ?? []).length % 2 === 0)).toBe(true);
  });

  it('mermaidText keeps one line, no quote or backslash, and cuts by code point', () => {
    expect(mermaidText('a "b"\nc\\d;')).toBe("a 'b' c/d,");
    expect(mermaidText('😀'.repeat(100), 10)).toBe(`${'😀'.repeat(9)}…`);
  });

  it('random histories with hostile text always parse and satisfy Mermaid (fast-check)', async () => {
    const title = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
    const name = fc.constantFrom('a', 'b', 'feat/x', 'merge', 'we"ird', 'main');
    const op: fc.Arbitrary<BranchOp> = fc.oneof(
      name.map((n) => ({ type: 'create' as const, name: n, purpose: 'p' })),
      name.map((to) => ({ type: 'switch' as const, to })),
      title.map((t) => ({ type: 'commit' as const, commit: commit(t) })),
      fc.tuple(name, title).map(([b, t]) => ({ type: 'merge' as const, branch: b, commit: commit(t, b) })),
      name.map((b) => ({ type: 'abandon' as const, branch: b, reason: 'r' })),
    );
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
      await check(gitGraphMermaid(history(ops)));
    }), { numRuns: 100 });
  });
});
