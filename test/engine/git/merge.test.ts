/**
 * Memory merges on every path people use, with nothing installed: a plain `git merge` (what a
 * teammate's unconfigured clone and a hosting service's merge button do), `--squash`,
 * `pull --rebase`, cherry-pick, revert, three clones merging in a ring — no conflict in
 * .GCC/, every event once, labels unique, and where this clone stands never moved by a pull.
 * No merge driver is configured anywhere in these repositories.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempProject } from '../../support/tmp.js';
import { conflictMarkers, eventsOnDisk, Sandbox } from './support.js';

afterAll(cleanup);

function setup(...names: string[]): { s: Sandbox; dirs: string[] } {
  const s = new Sandbox(tempProject('gcc-git-'));
  const origin = s.origin();
  return { s, dirs: names.map((n) => s.clone(origin, n)) };
}

/** The commits' contributions on a branch, as CONTEXT shows them. */
function contributions(s: Sandbox, dir: string, branch = 'main'): string[] {
  const data = JSON.parse(s.ok(dir, 'context', '--branch', branch, '--k', '100', '--json')) as {
    data: { commits: { contribution: string; label: string }[] };
  };
  return data.data.commits.map((c) => c.contribution).sort();
}

function healthy(s: Sandbox, dir: string): void {
  expect(conflictMarkers(dir)).toEqual([]);
  expect(s.ok(dir, 'verify')).toMatch(/^OK/);
  const ids = eventsOnDisk(dir).map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('a clone whose git converts line endings (core.autocrlf, the Git for Windows default)', () => {
  it("says so and how to mend it; the repair restores git's bytes, and git converts the segments no more in that clone", () => {
    const s = new Sandbox(tempProject('gcc-git-'));
    const origin = s.origin();
    const crlf = join(s.root, 'windows');
    s.git(s.root, 'clone', '-q', '-c', 'core.autocrlf=true', origin, crlf);
    s.identity(crlf, 'windows');
    const r = s.gctx(crlf, 'status');
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/line endings were changed to CRLF .*gctx doctor --repair/);
    expect(s.ok(crlf, 'doctor', '--repair')).toMatch(/restored/);
    expect(s.ok(crlf, 'status')).toMatch(/Objectives: 1 open/);
    // Checked out again, the segments keep git's bytes.
    const segs = s.git(crlf, 'ls-files', '.GCC/events').split('\n').filter(Boolean);
    for (const f of segs) rmSync(join(crlf, f));
    s.git(crlf, 'checkout', '--', '.GCC/events');
    for (const f of segs) expect(readFileSync(join(crlf, f), 'utf8')).not.toContain('\r\n');
    s.ok(crlf, 'commit', 'from the Windows clone');
    healthy(s, crlf);
    expect(
      s
        .git(crlf, 'status', '--porcelain', '--', '.GCC/events')
        .split('\n')
        .filter((l) => l.startsWith(' M')),
    ).toEqual([]);
  });
});

describe('merging memory with plain git, nothing installed', () => {
  it('plain merge of two branches that each recorded memory: no conflict, both kept, labels unique', () => {
    const { s, dirs } = setup('alice', 'bob');
    const [a, b] = dirs as [string, string];
    s.git(a, 'checkout', '-q', '-b', 'feat-a');
    s.ok(a, 'commit', 'alice: config loader');
    s.commitAll(a, 'a');
    s.git(a, 'push', '-q', 'origin', 'feat-a');
    s.git(b, 'checkout', '-q', '-b', 'feat-b');
    s.ok(b, 'commit', 'bob: docs skeleton');
    s.commitAll(b, 'b');
    s.git(b, 'fetch', '-q', 'origin');
    const r = s.tryGit(b, 'merge', '--no-edit', 'origin/feat-a');
    expect(r.status, r.out).toBe(0);
    healthy(s, b);
    expect(contributions(s, b)).toEqual(['alice: config loader', 'bob: docs skeleton']);
    // Both clones numbered their commit C001: the labels readers see are unique, a bare C001 is ambiguous, the hash is stable.
    const labels = (
      JSON.parse(s.ok(b, 'context', '--branch', '--k', '10', '--json')) as { data: { commits: { label: string }[] } }
    ).data.commits.map((c) => c.label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels.every((l) => /^C001\.[0-9a-f]{7}$/.test(l))).toBe(true);
    const bare = s.gctx(b, 'context', '--commit', 'C001');
    expect(bare.status).toBe(1);
    expect(bare.stderr).toMatch(/C001 names 2 commits/);
    expect(s.ok(b, 'context', '--commit', labels[0]!)).toMatch(/## \[C001\./);
  });

  it('--squash, pull --rebase, cherry-pick and revert are conflict-free too', () => {
    const { s, dirs } = setup('a', 'b');
    const [a, b] = dirs as [string, string];
    // squash a feature branch into main, keep working on the branch, squash again
    s.git(a, 'checkout', '-q', '-b', 'feat');
    s.ok(a, 'commit', 'feat: one');
    s.commitAll(a, 'feat one');
    s.git(a, 'checkout', '-q', 'main');
    expect(s.tryGit(a, 'merge', '--squash', 'feat').status).toBe(0);
    s.commitAll(a, 'squash 1');
    s.git(a, 'checkout', '-q', 'feat');
    s.ok(a, 'commit', 'feat: two');
    s.commitAll(a, 'feat two');
    s.git(a, 'checkout', '-q', 'main');
    const again = s.tryGit(a, 'merge', '--squash', 'feat');
    expect(again.status, again.out).toBe(0);
    s.commitAll(a, 'squash 2');
    healthy(s, a);
    expect(contributions(s, a)).toEqual(['feat: one', 'feat: two']);
    s.git(a, 'push', '-q', 'origin', 'main');
    // pull --rebase over a teammate's memory
    s.ok(b, 'commit', 'b: local work');
    s.commitAll(b, 'b local');
    const rebase = s.tryGit(b, 'pull', '-q', '--rebase', 'origin', 'main');
    expect(rebase.status, rebase.out).toBe(0);
    healthy(s, b);
    expect(contributions(s, b)).toEqual(['b: local work', 'feat: one', 'feat: two']);
    // cherry-pick a commit that recorded memory onto another branch
    s.git(b, 'checkout', '-q', '-b', 'side', 'HEAD~1');
    const last = s.git(b, 'rev-parse', 'main').trim();
    const pick = s.tryGit(b, 'cherry-pick', last);
    expect(pick.status, pick.out).toBe(0);
    healthy(s, b);
    expect(contributions(s, b)).toContain('b: local work');
    // revert it: those events leave the memory, quietly (git holds them)
    const rev = s.tryGit(b, 'revert', '--no-edit', 'HEAD');
    expect(rev.status, rev.out).toBe(0);
    healthy(s, b);
    expect(contributions(s, b)).not.toContain('b: local work');
  });

  it('three clones merging in a ring end with the same memory', () => {
    const { s, dirs } = setup('x', 'y', 'z');
    for (const d of dirs) {
      s.ok(d, 'commit', `${d.split('/').pop()}: work`);
      s.commitAll(d, 'work');
    }
    const [x, y, z] = dirs as [string, string, string];
    for (const [to, from] of [
      [y, x],
      [z, y],
      [x, z],
      [y, x],
    ] as const) {
      s.git(to, 'fetch', '-q', from, 'main');
      const r = s.tryGit(to, 'merge', '--no-edit', 'FETCH_HEAD');
      expect(r.status, r.out).toBe(0);
    }
    for (const d of dirs) healthy(s, d);
    expect(contributions(s, x)).toEqual(['x: work', 'y: work', 'z: work']);
    expect(contributions(s, y)).toEqual(contributions(s, x));
  });

  it("a pull never moves where this clone stands: a teammate's branch is theirs to be on", () => {
    const { s, dirs } = setup('me', 'mate');
    const [me, mate] = dirs as [string, string];
    s.ok(mate, 'branch', 'exp', '--purpose', 'teammate experiment');
    s.ok(mate, 'commit', 'mate: on exp');
    s.commitAll(mate, 'mate');
    s.git(mate, 'push', '-q', 'origin', 'main');
    s.git(me, 'pull', '-q', '--no-rebase', 'origin', 'main');
    expect(s.ok(me, 'status')).toMatch(/^On memory branch main/);
    expect(s.ok(me, 'commit', 'mine')).toMatch(/on main/);
    // Local state is not in git at all.
    expect(
      s
        .git(mate, 'ls-files', '.GCC')
        .split('\n')
        .filter(Boolean)
        .every((f) => f === '.GCC/.gitignore' || f.startsWith('.GCC/events/')),
    ).toBe(true);
  });

  it('a pull request shows memory as new files of readable entries; no committed file is ever changed', () => {
    const { s, dirs } = setup('pr');
    const [d] = dirs as [string];
    s.ok(d, 'commit', 'one');
    s.commitAll(d, 'one');
    s.ok(d, 'commit', 'two');
    s.commitAll(d, 'two');
    const stat = s.git(d, 'diff', '--name-status', 'HEAD~1', 'HEAD', '--', '.GCC');
    expect(
      stat
        .trim()
        .split('\n')
        .every((l) => l.startsWith('A\t.GCC/events/')),
    ).toBe(true);
    const diff = s.git(d, 'diff', 'HEAD~1', 'HEAD', '--', '.GCC');
    expect(diff).toMatch(/\+- \*\*Action\*\*: Commit C00\d [0-9a-f]{7}: two/);
  });
});

describe('a conflicted .GCC/ is resolved by union, never refused', () => {
  it('a segment merged by hand with conflict markers opens as the union of both sides', () => {
    const { s, dirs } = setup('h');
    const [d] = dirs as [string];
    s.ok(d, 'commit', 'base');
    const [seg] = readdirSync(join(d, '.GCC', 'events'), { recursive: true })
      .map(String)
      .filter((n) => n.endsWith('.md'))
      .map((n) => join(d, '.GCC', 'events', n));
    const copy = join(tempProject(), 'copy');
    cpSync(d, copy, { recursive: true });
    s.ok(d, 'commit', 'ours');
    s.ok(copy, 'commit', 'theirs');
    const open = readFileSync(join(d, '.GCC', '.local', 'ledger.json'), 'utf8');
    expect(open).toBeTruthy();
    const ours = readFileSync(seg!, 'utf8');
    const theirsSeg = join(copy, seg!.slice(d.length));
    const theirs = existsSync(theirsSeg) ? readFileSync(theirsSeg, 'utf8') : '';
    const base = ours.slice(0, ours.indexOf('**[COMMIT', ours.indexOf('ours') - 300));
    writeFileSync(
      seg!,
      `${base}<<<<<<< HEAD\n${ours.slice(base.length)}=======\n${theirs.slice(base.length)}>>>>>>> theirs\n`,
    );
    const r = s.gctx(d, 'context', '--branch', '--k', '10');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resolved the conflict markers/);
    expect(r.stdout).toMatch(/ours/);
    expect(conflictMarkers(d)).toEqual([]);
  });

  it('two copies of one clone (one writer twice) that pull each other: the add/add conflict is resolved by union whichever side pulls, and a repair keeps both sides', () => {
    for (const repairFirst of [false, true]) {
      const { s, dirs } = setup('a');
      const [a] = dirs as [string];
      s.ok(a, 'commit', 'A1');
      const b = join(s.root, 'b');
      cpSync(a, b, { recursive: true }); // .GCC/.local too: both copies own the same open segment
      s.ok(a, 'commit', 'A2 from the first copy');
      s.commitAll(a, 'a2');
      s.git(a, 'push', '-q', 'origin', 'main');
      s.ok(b, 'commit', 'B2 from the second copy');
      s.commitAll(b, 'b2');
      expect(s.tryGit(b, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main').status).not.toBe(0); // add/add
      if (repairFirst) expect(s.ok(b, 'doctor', '--repair')).toMatch(/resolved the conflict markers .* by union/);
      const r = s.gctx(b, 'context', '--log');
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/A2 from the first copy/);
      expect(r.stdout).toMatch(/B2 from the second copy/);
      healthy(s, b);
      s.commitAll(b, 'merge');
      expect(s.gctx(b, 'status').status).toBe(0);
    }
  });
});
