/**
 * Git's own operations, as a team uses them, are never damage: a teammate's revert however it
 * arrives, merge commits and rebases seen by the installed hooks, branches a revert removed;
 * and one clone's own moves do not shift the views every clone shares. Real git, a bare
 * remote, several clones, the built CLI.
 */
import { prng } from '../../reliability/helpers.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { Sandbox } from './support.js';

afterAll(cleanup);

/** Push this clone's memory: commit it, pull (merge or rebase), push. */
function share(s: Sandbox, dir: string, rebase = false): void {
  s.git(dir, 'add', '-A');
  if (s.tryGit(dir, 'diff', '--cached', '--quiet').status !== 0) s.git(dir, 'commit', '-qm', 'memory');
  for (let i = 0; i < 3; i++) {
    const pull = s.tryGit(dir, 'pull', '-q', rebase ? '--rebase' : '--no-rebase', 'origin', 'main');
    expect(pull.status, pull.out).toBe(0);
    if (s.tryGit(dir, 'push', '-q', 'origin', 'HEAD:main').status === 0) return;
  }
  throw new Error('push kept failing');
}

/** A teammate's revert of a memory commit, after this clone had the segment, reaching it through a merge. */
function revertThroughMerge(s: Sandbox) {
  const origin = s.origin();
  const alice = s.clone(origin, 'alice');
  const bob = s.clone(origin, 'bob');
  const carol = s.clone(origin, 'carol');
  for (const d of [alice, bob, carol]) s.ok(d, 'status');
  s.ok(alice, 'branch', 'exp', '--purpose', 'Try the streaming tokenizer');
  s.ok(alice, 'commit', 'tokenizer streams', '--title', 'Stream tokens');
  s.commitAll(alice, 'alice memory');
  s.git(alice, 'push', '-q', 'origin', 'main');
  s.git(bob, 'pull', '-q');
  expect(s.ok(bob, 'context', '--log', '--on', 'exp')).toMatch(/Stream tokens/);
  expect(existsSync(join(bob, '.GCC', 'branches', 'exp', 'log.md'))).toBe(true);
  s.ok(bob, 'switch', 'exp'); // this clone's own move: it must not keep the branch alive once reverted
  s.git(alice, 'revert', '--no-edit', 'HEAD');
  s.git(alice, 'push', '-q', 'origin', 'main');
  // Carol never pulled the segment: her merge's first parent never had it.
  writeFileSync(join(carol, 'code.txt'), 'c\n');
  s.commitAll(carol, 'carol code');
  s.git(carol, 'pull', '-q', '--no-rebase', 'origin', 'main');
  s.git(carol, 'push', '-q', 'origin', 'main');
  return { alice, bob, carol };
}

describe("a teammate's revert", () => {
  it('reaching this clone through a merge whose first parent never had the segment: not damage, not a loss', () => {
    const s = new Sandbox(tempProject());
    const { bob } = revertThroughMerge(s);
    s.git(bob, 'pull', '-q');
    const status = s.gctx(bob, 'status');
    expect(status.status, status.stderr).toBe(0);
    expect(status.stderr).not.toMatch(/git checkout/);
    expect(s.ok(bob, 'verify')).toMatch(/^OK/);
    const repair = s.gctx(bob, 'doctor', '--repair');
    expect(repair.stdout).toMatch(/repair: nothing to repair/);
    const log = s.ok(bob, 'context', '--log');
    expect(log).not.toMatch(/Repaired|lost/);
    expect(s.gctx(bob, 'context', '--log', '--on', 'exp').status).toBe(1);
    expect(readFileSync(join(bob, '.GCC', 'metadata.yaml'), 'utf8')).not.toMatch(/exp/);
    expect(readFileSync(join(bob, '.GCC', 'main.md'), 'utf8')).toMatch(/^> This clone: on `main`\.$/m);
    // The views of the branch the revert removed are gone, and no fix brought its events back.
    expect(existsSync(join(bob, '.GCC', 'branches', 'exp'))).toBe(false);
    expect(s.git(bob, 'status', '--porcelain')).toBe('');
  }, 300_000);

  it('verify reports a view of a branch no longer in memory, and replay removes it', () => {
    const s = new Sandbox(tempProject());
    const { bob } = revertThroughMerge(s);
    s.git(bob, 'pull', '-q');
    s.ok(bob, 'status');
    const ghost = join(bob, '.GCC', 'branches', 'gone', 'log.md');
    mkdirSync(join(bob, '.GCC', 'branches', 'gone'), { recursive: true });
    writeFileSync(ghost, '# Log\n');
    const v = s.gctx(bob, 'verify');
    expect(v.status).toBe(2);
    expect(v.stdout + v.stderr).toMatch(/branches\/gone\/log\.md: view of gone, which is no longer in memory/);
    s.ok(bob, 'replay');
    expect(existsSync(ghost)).toBe(false);
    expect(s.ok(bob, 'verify')).toMatch(/^OK/);
  }, 300_000);
});

/** A memory commit that also changed code.txt, a later change to code.txt, and a revert of the first stopped on the conflict. */
function conflictedRevert(s: Sandbox): { dir: string; seg: string } {
  const dir = join(s.root, 'solo');
  s.git(s.root, 'init', '-q', '-b', 'main', dir);
  s.identity(dir, 'solo');
  writeFileSync(join(dir, 'code.txt'), '1\n');
  s.ok(dir, 'init');
  s.commitAll(dir, 'start');
  s.ok(dir, 'log', '--observation', 'a note to be reverted');
  writeFileSync(join(dir, 'code.txt'), '2\n');
  s.commitAll(dir, 'note and code');
  const seg = s.git(dir, 'show', '--name-only', '--format=', 'HEAD', '--', '.GCC/events').trim();
  writeFileSync(join(dir, 'code.txt'), '3\n');
  s.commitAll(dir, 'more code');
  expect(s.tryGit(dir, 'revert', '--no-edit', 'HEAD~1').status).not.toBe(0);
  return { dir, seg };
}

describe('a revert stopped on a conflict', () => {
  it('mid-revert the segment is read, not written back; once continued, the revert stays', () => {
    const s = new Sandbox(tempProject('gcc-git-'));
    const { dir, seg } = conflictedRevert(s);
    expect(existsSync(join(dir, seg))).toBe(false);
    const mid = s.gctx(dir, 'context', '--log');
    expect(mid.status, mid.stderr).toBe(0);
    expect(mid.stdout).toContain('a note to be reverted');
    expect(existsSync(join(dir, seg))).toBe(false);
    writeFileSync(join(dir, 'code.txt'), '3\n');
    s.git(dir, 'add', 'code.txt');
    s.git(dir, '-c', 'core.editor=true', 'revert', '--continue');
    const after = s.gctx(dir, 'context', '--log');
    expect(after.status, after.stderr).toBe(0);
    expect(after.stdout).not.toContain('a note to be reverted');
    expect(after.stderr).toMatch(/removed by commit [0-9a-f]{7}: 1 event no longer in memory/);
    expect(existsSync(join(dir, seg))).toBe(false);
    expect(s.git(dir, 'status', '--porcelain')).toBe('');
    expect(s.gctx(dir, 'verify').status).toBe(0);
  });
});

describe('a long-lived process (MCP server, daemon) after git took events away', () => {
  const noted = (m: Memory) => m.events().some((e) => JSON.stringify(e.data).includes('to be taken away'));

  it('a revert, then a checkout of a line without the branch: reads and the next operation fold what git left', async () => {
    const s = new Sandbox(tempProject('gcc-git-'));
    const dir = join(s.root, 'long');
    s.git(s.root, 'init', '-q', '-b', 'main', dir);
    s.identity(dir, 'long');
    s.ok(dir, 'init');
    s.commitAll(dir, 'start');
    const m = await Memory.open(dir);
    try {
      await m.execute({ type: 'log', observation: 'to be taken away', thought: 't', action: 'a' });
      s.commitAll(dir, 'note');
      s.git(dir, 'revert', '--no-edit', 'HEAD');
      m.refresh();
      expect(noted(m)).toBe(false);
      await m.execute({ type: 'log', observation: 'after the revert', thought: 't', action: 'a' });
      expect(noted(m)).toBe(false);
      expect(m.warnings.join('\n')).toMatch(/removed by commit [0-9a-f]{7}: 1 event no longer in memory/);

      s.git(dir, 'checkout', '-qb', 'feat');
      await m.execute({ type: 'branch', name: 'exp', purpose: 'only on feat' });
      s.commitAll(dir, 'exp');
      s.git(dir, 'checkout', '-q', 'main');
      m.refresh();
      expect(m.state.branches.exp).toBeUndefined();
      await m.execute({ type: 'log', observation: 'back on main', thought: 't', action: 'a' });
      expect(m.state.branches.exp).toBeUndefined();
    } finally {
      m.close();
    }
    expect(s.ok(dir, 'verify')).toMatch(/^OK/);
  });
});

describe('the installed hooks refresh the views after every pull', () => {
  for (const how of ['--no-rebase', '--rebase'] as const) {
    it(`git pull ${how} that makes a new commit: the views show the teammate's entry with no gctx call`, () => {
      const s = new Sandbox(tempProject());
      const origin = s.origin();
      const alice = s.clone(origin, 'alice');
      const bob = s.clone(origin, 'bob');
      s.ok(alice, 'status');
      s.ok(alice, 'git', 'install');
      s.ok(bob, 'log', '--action', 'bob found the lock order');
      s.commitAll(bob, 'bob memory');
      s.git(bob, 'push', '-q', 'origin', 'main');
      writeFileSync(join(alice, 'code.txt'), 'a\n');
      s.commitAll(alice, 'alice code');
      const pull = s.tryGit(alice, 'pull', '-q', how, 'origin', 'main');
      expect(pull.status, pull.out).toBe(0);
      expect(s.git(alice, 'rev-list', '--count', 'HEAD').trim()).toBe(how === '--rebase' ? '3' : '4');
      expect(readFileSync(join(alice, '.GCC', 'log.md'), 'utf8')).toMatch(/bob found the lock order/);
    }, 300_000);
  }
});

/** Every view of a memory, by path under .GCC/, main.md's one line of this clone's own cut out. */
function views(dir: string): Map<string, string> {
  const gcc = join(dir, '.GCC');
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(gcc, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!['events', '.local', 'aside', 'quarantine'].includes(r)) walk(r);
      } else if (r !== '.gitignore') {
        const text = readFileSync(join(gcc, r), 'utf8');
        out.set(r, r === 'main.md' ? text.replace(/^> This clone: .*\n/m, '') : text);
      }
    }
  };
  walk('');
  return out;
}

describe("one clone's own moves do not shift the shared views", () => {
  for (const seed of [7]) {
    it(`three clones, seed ${seed}: commits, branches, switches, merges, pulls and pushes; then every view is the same`, () => {
      const s = new Sandbox(tempProject());
      const origin = s.origin();
      const clones = ['ann', 'ben', 'cat'].map((n) => s.clone(origin, n));
      const rand = prng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const branches = ['main'];
      for (let step = 0; step < 30; step++) {
        const dir = pick(clones);
        const r = rand();
        let out: { status: number; stdout: string; stderr: string } | null = null;
        if (r < 0.25) out = s.gctx(dir, 'commit', `step ${step}: progress`);
        else if (r < 0.35) out = s.gctx(dir, 'log', '--action', `step ${step}: looked`);
        else if (r < 0.45) {
          const name = `b${step}`;
          out = s.gctx(dir, 'branch', name, '--purpose', `try ${name}`);
          if (out.status === 0) branches.push(name);
        } else if (r < 0.6) out = s.gctx(dir, 'switch', pick(branches));
        else if (r < 0.7) out = s.gctx(dir, 'merge', pick(branches), '--synthesis', `step ${step}: kept`);
        else share(s, dir, rand() < 0.5);
        // A command may be refused (no such branch here): never for damage.
        if (out) expect(out.status, `${out.stdout}${out.stderr}`).not.toBe(2);
      }
      for (let round = 0; round < 2; round++) for (const dir of clones) share(s, dir, round === 0);
      for (const dir of clones) {
        s.git(dir, 'pull', '-q', 'origin', 'main');
        expect(s.ok(dir, 'verify')).toMatch(/^OK/);
      }
      const [first, ...rest] = clones.map(views);
      for (const other of rest) {
        expect([...other.keys()].sort()).toEqual([...first!.keys()].sort());
        for (const [path, text] of first!) expect(other.get(path), path).toBe(text);
      }
      // Each clone still says where it stands.
      for (const dir of clones) {
        expect(readFileSync(join(dir, '.GCC', 'main.md'), 'utf8')).toMatch(/^> This clone: on `[^`]+`\.$/m);
        expect(s.ok(dir, 'status')).toMatch(/^On memory branch /);
      }
    }, 900_000);
  }
});
