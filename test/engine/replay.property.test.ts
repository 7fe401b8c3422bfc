/**
 * Model-based property: random operation sequences (branch, switch, commit, merge,
 * abandon, roadmap, log, reopen with and without the snapshot, views deleted) against a small
 * reference model. Each operation either succeeds as the model says or fails with the model's
 * error code; after every step every view on disk equals a rebuild from the logs, byte for
 * byte (the incremental path and replay agree), and every log is as acknowledged.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import type { GccEvent } from '../../src/events/types.js';
import { hostileText } from '../support/arbitraries.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { runs } from '../support/runs.js';

interface Model {
  branches: Map<string, { status: 'active' | 'merged' | 'abandoned'; parent: string; into?: string }>;
  current: string;
  /** Objective texts as the engine keeps them (one line, control characters dropped). */
  objectives: string[];
  /** Which of them are checked off. */
  done: boolean[];
}
interface Real {
  memory: Memory;
  dir: string;
}

const NAMES = ['a', 'b', 'feat/x', 'B', 'main'];

async function attempt(r: Real, run: () => Promise<unknown>, expected: string | null): Promise<void> {
  let code: string | null = null;
  try {
    await run();
  } catch (e) {
    if (!(e instanceof GccError)) throw e;
    code = e.code;
  }
  expect(code).toBe(expected);
  expect(r.memory.verify()).toEqual([]);
}

/** Where a pointer lands: an open branch; a merged one's target, an abandoned one's parent, in turn. */
/** The branch and commit events the history graph draws, gathered. */
function historyOf(memory: Memory): GccEvent[] {
  const out: GccEvent[] = [];
  memory.eachHistoryEvent((e) => out.push(e));
  return out;
}

function current(m: Model): string {
  let cur = m.current;
  for (let i = 0; i < 20; i++) {
    const b = m.branches.get(cur);
    if (!b) return 'main';
    if (b.status === 'active') return cur;
    cur = b.status === 'merged' ? (b.into ?? 'main') : b.parent;
  }
  return 'main';
}

class BranchCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly name: string,
    readonly purpose: string,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const exists = [...m.branches.keys()].some((n) => n.toLowerCase() === this.name.toLowerCase());
    const expected =
      this.name === 'main'
        ? 'E_BRANCH_NAME'
        : exists
          ? 'E_BRANCH_EXISTS'
          : this.purpose.trim() === ''
            ? 'E_INVALID_ARGUMENT'
            : null;
    await attempt(r, () => r.memory.execute({ type: 'branch', name: this.name, purpose: this.purpose }), expected);
    if (expected === null) {
      m.branches.set(this.name, { status: 'active', parent: current(m) });
      m.current = this.name;
    }
    expect(r.memory.currentBranch()).toBe(current(m));
  }
  toString = () => `Branch(${this.name})`;
}

class SwitchCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly name: string) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const b = m.branches.get(this.name);
    const expected = !b ? 'E_BRANCH_NOT_FOUND' : b.status !== 'active' ? 'E_BRANCH_CLOSED' : null;
    await attempt(r, () => r.memory.execute({ type: 'switch', name: this.name }), expected);
    if (expected === null) m.current = this.name;
    expect(r.memory.currentBranch()).toBe(current(m));
  }
  toString = () => `Switch(${this.name})`;
}

class CommitCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly text: string) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    const expected = this.text.trim() === '' ? 'E_INVALID_ARGUMENT' : null;
    await attempt(r, () => r.memory.execute({ type: 'commit', contribution: this.text }), expected);
  }
  toString = () => `Commit(${JSON.stringify(this.text)})`;
}

class MergeCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly name: string) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const b = m.branches.get(this.name);
    const into = b && m.branches.get(b.parent)?.status === 'active' ? b.parent : 'main';
    const expected =
      this.name === 'main'
        ? 'E_MERGE_MAIN'
        : !b
          ? 'E_BRANCH_NOT_FOUND'
          : b.status !== 'active'
            ? 'E_BRANCH_CLOSED'
            : into === this.name
              ? 'E_MERGE_SELF'
              : null;
    await attempt(
      r,
      () => r.memory.execute({ type: 'merge', branch: this.name, synthesis: 'learned things' }),
      expected,
    );
    if (expected === null && b) {
      b.status = 'merged';
      b.into = into;
      m.current = into; // MERGE switches the caller to the target, wherever it was
    }
    expect(r.memory.currentBranch()).toBe(current(m));
  }
  toString = () => `Merge(${this.name})`;
}

class AbandonCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly name: string) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const b = m.branches.get(this.name);
    const expected =
      this.name === 'main'
        ? 'E_ABANDON_MAIN'
        : !b
          ? 'E_BRANCH_NOT_FOUND'
          : b.status !== 'active'
            ? 'E_BRANCH_CLOSED'
            : null;
    await attempt(r, () => r.memory.execute({ type: 'abandon', branch: this.name, reason: 'dead end' }), expected);
    if (expected === null && b) b.status = 'abandoned';
    expect(r.memory.currentBranch()).toBe(current(m));
  }
  toString = () => `Abandon(${this.name})`;
}

/** Lone surrogates cannot be stored as UTF-8 and come back as U+FFFD. */
/** As the engine keeps it: one clean line, control characters (C0, DEL, C1) dropped. */
const line = (text: string) =>
  text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ')
    .trim()
    .toWellFormed();

/** A number names the objective at that place, else one whose text is it, else one whose text holds it, if only one does: its index, or -1. */
function found(objectives: readonly string[], n: number): number {
  if (n <= objectives.length) return n - 1;
  const exact = objectives.indexOf(String(n));
  if (exact !== -1) return exact;
  const holding = objectives.flatMap((t, i) => (t.toLowerCase().includes(String(n)) ? [i] : []));
  return holding.length === 1 ? holding[0]! : -1;
}

/** An objective open with the same text, case aside, is not added twice. */
const openTwice = (m: Model, text: string) =>
  m.objectives.some((t, i) => !m.done[i] && t.toLowerCase() === line(text).toLowerCase());

class RoadmapCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly action: 'add' | 'check',
    readonly text: string,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    if (this.action === 'add') {
      const refused =
        line(this.text) === '' ? 'E_INVALID_ARGUMENT' : openTwice(m, this.text) ? 'E_OBJECTIVE_EXISTS' : null;
      await attempt(r, () => r.memory.execute({ type: 'roadmap', action: 'add', target: this.text }), refused);
      if (!refused) {
        m.objectives.push(line(this.text));
        m.done.push(false);
      }
    } else {
      const n = (this.text.length % 4) + 1;
      const i = found(m.objectives, n);
      await attempt(
        r,
        () => r.memory.execute({ type: 'roadmap', action: 'check', target: String(n) }),
        i !== -1 ? null : 'E_OBJECTIVE_NOT_FOUND',
      );
      if (i !== -1) m.done[i] = true;
    }
    expect(r.memory.state.objectives.map((o) => o.text)).toEqual(m.objectives);
  }
  toString = () => `Roadmap(${this.action}, ${JSON.stringify(this.text)})`;
}

class LogCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly text: string) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    await attempt(
      r,
      () => r.memory.execute({ type: 'log', observation: this.text, thought: 'because', action: 'did' }),
      null,
    );
  }
  toString = () => `Log(${JSON.stringify(this.text)})`;
}

class ReopenCmd implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    const before = r.memory.state;
    r.memory.close();
    r.memory = await Memory.open(r.dir);
    expect(r.memory.state).toEqual(before);
    expect(r.memory.currentBranch()).toBe(current(m));
  }
  toString = () => 'Reopen';
}

/** Reopen with the cache gone (no snapshot, so every log is streamed), or the views gone too. */
class ColdReopenCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly views: boolean) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const before = r.memory.state;
    const history = historyOf(r.memory);
    r.memory.close();
    rmSync(join(r.dir, '.GCC', '.local', 'cache'), { recursive: true, force: true });
    if (this.views)
      for (const v of ['main.md', 'metadata.yaml', 'commit.md', 'log.md', 'branches'])
        rmSync(join(r.dir, '.GCC', v), { recursive: true, force: true });
    r.memory = await Memory.open(r.dir);
    expect(r.memory.state).toEqual(before);
    expect(historyOf(r.memory)).toEqual(history);
    expect(r.memory.currentBranch()).toBe(current(m));
    expect(r.memory.verify()).toEqual([]);
  }
  toString = () => `ColdReopen(${this.views ? 'views too' : 'cache'})`;
}

const name = fc.constantFrom(...NAMES);
const commands = [
  fc.tuple(name, fc.oneof(hostileText, fc.constant('purpose'))).map(([n, p]) => new BranchCmd(n, p)),
  name.map((n) => new SwitchCmd(n)),
  fc.oneof(hostileText, fc.constant('work')).map((t) => new CommitCmd(t)),
  name.map((n) => new MergeCmd(n)),
  name.map((n) => new AbandonCmd(n)),
  fc.tuple(fc.constantFrom('add' as const, 'check' as const), hostileText).map(([a, t]) => new RoadmapCmd(a, t)),
  hostileText.map((t) => new LogCmd(t)),
  fc.constant(new ReopenCmd()),
  fc.boolean().map((v) => new ColdReopenCmd(v)),
];

describe('engine against a reference model', () => {
  afterAll(cleanup);
  it('every operation succeeds or fails as the model says, and files always equal a replay', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 20 }), async (cmds) => {
        const dir = tempProject();
        const real: Real = { dir, memory: await Memory.open(dir, { create: true }) };
        const model: Model = {
          branches: new Map([['main', { status: 'active', parent: 'main' }]]),
          current: 'main',
          objectives: [],
          done: [],
        };
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
        } finally {
          real.memory.close();
        }
      }),
      { numRuns: Number(process.env.GCC_RUNS ?? runs(15, 100)) },
    );
  });
});
