/**
 * Visiting an older commit — `git checkout <old commit>`, `git bisect` across the migration, a
 * branch nobody migrated, a commit from before the memory — with real git and the v1 fixture
 * (made by the gctx of the first round, test/fixtures/v1-layout). Whatever gctx does there
 * (reads, writes, agent hooks, the post-checkout hook, a process that stays open) leaves a
 * work tree git leaves without -f, and what was recorded there is in the memory when the user
 * comes back (docs/git.md: visiting an old commit).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { eventsOnDisk, Sandbox, v1Clones } from './support.js';

afterAll(cleanup);

const TIMEOUT = 60_000;

const fixture = () => v1Clones(tempProject('gcc-visit-'));

/** `git status`, untracked files one by one. */
const status = (s: Sandbox, d: string) => s.git(d, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean);
/** Only new segments, untracked: what a visit may leave. */
const onlyNewSegments = (lines: string[]) => lines.every((l) => /^\?\? \.GCC\/events\/\d{4}-\d{2}\/[^/]+\.md$/.test(l));
const head = (s: Sandbox, d: string) => s.git(d, 'rev-parse', 'HEAD').trim();
const ids = (d: string) => eventsOnDisk(d).map((e) => e.id);
const memoryText = (s: Sandbox, d: string) => s.ok(d, 'context', '--log', '200', '--on', 'main') + s.ok(d, 'context', '--branch', 'main', '--k', '100');

function toolCall(dir: string, tag: string) {
  return {
    session_id: 'visiting-session',
    transcript_path: '/tmp/visit.jsonl',
    cwd: dir,
    permission_mode: 'default',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: `echo ${tag}`, description: 'probe' },
    tool_response: { stdout: tag, stderr: '', interrupted: false, isImage: false },
    tool_use_id: `toolu_${tag}`,
  };
}

/** Upgrade a clone of the first layout the way a user does: a write migrates, the migration and one more commit of memory are committed. */
function upgrade(s: Sandbox, d: string, who: string): void {
  s.ok(d, 'commit', `${who}: first commit in the new layout`);
  s.commitAll(d, 'migrate memory');
  s.ok(d, 'commit', `${who}: after the migration`);
  s.commitAll(d, 'more memory');
}

describe('visiting an older commit', () => {
  it('a read changes nothing; a write and a hook record into an untracked segment; checkout back works and the memory is whole', { timeout: TIMEOUT }, () => {
    const { s, clone } = fixture();
    const d = clone('v', 'main');
    const old = head(s, d);
    upgrade(s, d, 'main');
    const before = ids(d);
    expect(before.length).toBeGreaterThan(14);

    s.git(d, 'checkout', '-q', old);
    // main's views and this clone's state, left by git at the old commit, are ignored there too.
    expect(status(s, d)).toEqual([]);
    const read = s.gctx(d, 'status');
    expect(read.status, read.stderr).toBe(0);
    expect(read.stderr).toMatch(/first layout of \.GCC\/ \(at a detached HEAD\)/);
    expect(read.stdout).toMatch(/Keep the cache/);
    expect(s.ok(d, 'context', '--log', '50', '--on', 'main')).toMatch(/Unicode tokenizer|tokenizer/i);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
    expect(status(s, d)).toEqual([]);

    s.ok(d, 'commit', 'Recorded while visiting the old commit');
    const hook = s.hook(d, 'claude-code', toolCall(d, 'visit-probe'));
    expect(hook.status, hook.stderr).toBe(0);
    expect(hook.stderr).not.toMatch(/E_/);
    // Nothing git tracks changed, staged or not; what was recorded is an untracked segment.
    expect(s.git(d, 'diff', 'HEAD', '--name-status')).toBe('');
    expect(status(s, d).length).toBeGreaterThan(0);
    expect(onlyNewSegments(status(s, d)), status(s, d).join('\n')).toBe(true);

    const back = s.tryGit(d, 'checkout', 'main');
    expect(back.status, back.out).toBe(0);
    const after = ids(d);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.length).toBe(before.length + 2);
    const text = memoryText(s, d);
    for (const t of ['Recorded while visiting the old commit', 'visit-probe', 'main: after the migration', 'main: first commit in the new layout', 'Keep the cache']) expect(text).toContain(t);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
    expect(onlyNewSegments(status(s, d))).toBe(true);

    // The next commit on main takes the visit's segment with it.
    s.ok(d, 'commit', 'Back on main');
    s.commitAll(d, 'back on main');
    expect(status(s, d)).toEqual([]);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
    expect(s.git(d, 'ls-files', '.GCC').split('\n').filter(Boolean).every((f) => f === '.GCC/.gitignore' || f.startsWith('.GCC/events/'))).toBe(true);
    expect(memoryText(s, d)).toContain('Recorded while visiting the old commit');
  });

  it('git bisect across the migration, with the hooks installed and a hook writing at every step; old-to-old checkouts too', { timeout: TIMEOUT }, () => {
    const { s, clone } = fixture();
    const d = clone('b', 'alice');
    const [v1, a1] = [s.git(d, 'rev-parse', 'HEAD~1').trim(), head(s, d)];
    s.ok(d, 'git', 'install');
    upgrade(s, d, 'alice');
    const migration = s.git(d, 'rev-parse', 'HEAD~1').trim();
    s.ok(d, 'commit', 'alice: one more');
    s.commitAll(d, 'one more');
    const before = ids(d);

    // alice's old commit tracks the views of a branch the older one does not: main's views of
    // it, left by git at the older commit, must not stop the step.
    let written = 0;
    for (const rev of [v1, a1, v1]) {
      const r = s.tryGit(d, 'checkout', '-q', rev);
      expect(r.status, r.out).toBe(0);
      expect(r.out).toBe('');
      expect(s.gctx(d, 'status').status).toBe(0);
      expect(s.hook(d, 'claude-code', toolCall(d, `step-${++written}`)).status).toBe(0);
      expect(onlyNewSegments(status(s, d)), status(s, d).join('\n')).toBe(true);
    }
    expect(s.tryGit(d, 'checkout', '-q', 'alice').status).toBe(0);

    // The first commit holding .GCC/events/ is the "bad" one.
    let said = s.git(d, 'bisect', 'start', 'alice', v1);
    for (let step = 0; step < 10 && !said.includes('is the first bad commit'); step++) {
      expect(s.gctx(d, 'status').status).toBe(0);
      expect(s.hook(d, 'claude-code', toolCall(d, `step-${++written}`)).status).toBe(0);
      const bad = s.git(d, 'ls-tree', '--name-only', 'HEAD', '.GCC/events').trim() !== '';
      said = s.git(d, 'bisect', bad ? 'bad' : 'good');
    }
    expect(said).toContain(`${migration} is the first bad commit`);
    const reset = s.tryGit(d, 'bisect', 'reset');
    expect(reset.status, reset.out).toBe(0);
    expect(s.git(d, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/alice');

    const after = ids(d);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.length).toBe(before.length + written);
    const text = memoryText(s, d);
    for (let i = 1; i <= written; i++) expect(text).toContain(`step-${i}`);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
    s.commitAll(d, 'what the bisect recorded');
    expect(status(s, d)).toEqual([]);
  });

  it('a branch nobody migrated: a read leaves it for `git switch -`; a write migrates it and stages the whole change', { timeout: TIMEOUT }, () => {
    const { s, clone } = fixture();
    const d = clone('o', 'alice');
    s.git(d, 'branch', '-q', 'bob', 'origin/bob');
    upgrade(s, d, 'alice');

    s.git(d, 'switch', '-q', 'bob');
    const read = s.gctx(d, 'status');
    expect(read.status, read.stderr).toBe(0);
    expect(read.stderr).toMatch(/on branch bob\).*the next command that records something/);
    expect(memoryText(s, d)).toContain('Bob: docs skeleton');
    expect(status(s, d)).toEqual([]);
    expect(s.tryGit(d, 'switch', '-').status).toBe(0);
    expect(s.git(d, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/alice');

    s.git(d, 'switch', '-q', 'bob');
    const w = s.gctx(d, 'commit', 'bob: upgraded');
    expect(w.status, w.stderr).toBe(0);
    expect(w.stderr).toMatch(/moved \d+ events of the old layout/);
    // Staged, .gitignore included: nothing is left changed but not staged.
    expect(s.git(d, 'diff', '--name-only')).toBe('');
    expect(s.git(d, 'diff', '--cached', '--name-status')).toMatch(/^M\t\.GCC\/\.gitignore$/m);
    s.commitAll(d, 'bob migrates');
    expect(s.git(d, 'ls-files', '.GCC').split('\n').filter(Boolean).every((f) => f === '.GCC/.gitignore' || f.startsWith('.GCC/events/'))).toBe(true);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
    expect(s.tryGit(d, 'merge', '-q', '--no-edit', 'alice').status).toBe(0);
    const text = memoryText(s, d);
    for (const t of ['bob: upgraded', 'alice: after the migration', 'Bob: docs skeleton', 'Alice: config loader reads YAML']) expect(text).toContain(t);
  });

  it('between two commits of the first layout, the views and local state a newer commit left are ignored, so git steps on', { timeout: TIMEOUT }, () => {
    const { s, clone } = fixture();
    const d = clone('x', 'alice');
    const [v1, a1] = [s.git(d, 'rev-parse', 'HEAD~1').trim(), head(s, d)];
    upgrade(s, d, 'alice');
    // alice's old commit tracks the views of a branch (alice-exp) the older one does not:
    // the newer commit's views of it stay in the work tree at the older one.
    s.git(d, 'checkout', '-q', v1);
    expect(status(s, d)).toEqual([]);
    for (const rev of [a1, v1, 'alice']) {
      const r = s.tryGit(d, 'checkout', '-q', rev);
      expect(r.status, r.out).toBe(0);
    }
    expect(s.git(d, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/alice');
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
  });

  it('views git took away, leaving a commit of the first layout that tracked them, are rebuilt on the next command', { timeout: TIMEOUT }, () => {
    const { s, clone } = fixture();
    const d = clone('w', 'main');
    const old = head(s, d);
    upgrade(s, d, 'main');
    // No gctx runs at the old commit: git writes its tracked views, and takes them away again.
    s.git(d, 'checkout', '-q', old);
    s.git(d, 'checkout', '-q', 'main');
    expect(s.gctx(d, 'status').status).toBe(0);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
  });

  it('a process that stays open across the checkout (serve, MCP) writes nothing git tracks at the old commit', { timeout: TIMEOUT }, async () => {
    const { s, clone } = fixture();
    const d = clone('p', 'main');
    const old = head(s, d);
    upgrade(s, d, 'main');
    const m = await Memory.open(d);
    try {
      s.git(d, 'checkout', '-q', old);
      m.refresh();
      expect(m.state.branches['try-redis']?.life).toBe('abandoned');
      await m.execute({ type: 'commit', contribution: 'From a process opened before the checkout' } as never);
      expect(s.git(d, 'diff', 'HEAD', '--name-status')).toBe('');
      expect(onlyNewSegments(status(s, d)), status(s, d).join('\n')).toBe(true);
      expect(s.tryGit(d, 'checkout', '-q', 'main').status).toBe(0);
      m.refresh();
      await m.execute({ type: 'commit', contribution: 'Back on main, same process' } as never);
    } finally {
      m.close();
    }
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
    const text = memoryText(s, d);
    for (const t of ['From a process opened before the checkout', 'Back on main, same process', 'main: after the migration']) expect(text).toContain(t);
  });

  it('a process opened on a branch nobody migrated, then moved to a detached HEAD, does not migrate there', { timeout: TIMEOUT }, async () => {
    const { s, clone } = fixture();
    const d = clone('q', 'main');
    const m = await Memory.open(d);
    try {
      s.git(d, 'checkout', '-q', '--detach');
      await m.execute({ type: 'commit', contribution: 'Written at the detached HEAD' } as never);
      expect(s.git(d, 'diff', 'HEAD', '--name-status')).toBe('');
      expect(s.tryGit(d, 'checkout', '-q', 'main').status).toBe(0);
    } finally {
      m.close();
    }
    expect(memoryText(s, d)).toContain('Written at the detached HEAD');
  });

  it('the new layout too: an open segment committed on the branch left is never written again at an older commit', { timeout: TIMEOUT }, () => {
    const s = new Sandbox(tempProject('gcc-visit-'));
    const d = join(s.root, 'n');
    s.git(s.root, 'init', '-q', '-b', 'main', d);
    s.identity(d, 'n');
    s.ok(d, 'init');
    s.commitAll(d, 'memory');
    const older = head(s, d);
    // Recorded into the open segment, which the next commit takes: git has it on main only.
    s.ok(d, 'commit', 'On main, committed');
    s.commitAll(d, 'more memory');
    s.git(d, 'checkout', '-q', older);
    s.ok(d, 'commit', 'At the older commit');
    expect(onlyNewSegments(status(s, d)), status(s, d).join('\n')).toBe(true);
    const back = s.tryGit(d, 'checkout', '-q', 'main');
    expect(back.status, back.out).toBe(0);
    const text = memoryText(s, d);
    for (const t of ['On main, committed', 'At the older commit']) expect(text).toContain(t);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
  });

  it('a commit from before the memory: nothing is opened or initialised there, and checkout back works', { timeout: TIMEOUT }, async () => {
    const s = new Sandbox(tempProject('gcc-visit-'));
    const d = join(s.root, 'p');
    s.git(s.root, 'init', '-q', '-b', 'main', d);
    s.identity(d, 'p');
    s.git(d, 'commit', '-q', '--allow-empty', '-m', 'before the memory');
    const before = head(s, d);
    s.ok(d, 'init');
    s.ok(d, 'git', 'install');
    s.ok(d, 'config', 'set', 'commit_after_edits', '3');
    s.commitAll(d, 'memory');
    const events = ids(d).length;

    const there = s.tryGit(d, 'checkout', '-q', before);
    expect(there.status, there.out).toBe(0);
    expect(there.out).toBe('');
    const r = s.gctx(d, 'status');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/E_NOT_INITIALIZED.*at this commit/);
    expect(s.hook(d, 'claude-code', toolCall(d, 'before-memory')).status).toBe(0);
    // An agent front that creates a memory on its own (MCP, Pi) does not start one here either.
    await expect(Memory.open(d, { create: 'if-new' })).rejects.toMatchObject({ code: 'E_NOT_INITIALIZED' });
    expect(status(s, d)).toEqual([]);
    expect(s.tryGit(d, 'checkout', '-q', 'main').status).toBe(0);
    expect(ids(d)).toHaveLength(events);
    expect(s.ok(d, 'config', 'get', 'commit_after_edits')).toMatch(/3/);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
  });

  it('a commit from before the memory, with the segment not yet committed left in the work tree: no memory there, its events back on return', { timeout: TIMEOUT }, () => {
    const s = new Sandbox(tempProject('gcc-visit-'));
    const d = join(s.root, 'p');
    s.git(s.root, 'init', '-q', '-b', 'main', d);
    s.identity(d, 'p');
    s.git(d, 'commit', '-q', '--allow-empty', '-m', 'before the memory');
    const before = head(s, d);
    s.ok(d, 'init');
    s.ok(d, 'roadmap', 'add', 'Parse configs');
    s.commitAll(d, 'memory');
    // Written after git saw the first segment: a new one, untracked, which a checkout leaves.
    s.ok(d, 'commit', 'work not committed to git yet');
    const events = ids(d).length;
    expect(s.tryGit(d, 'checkout', '-q', before).status).toBe(0);
    const r = s.gctx(d, 'status');
    // Not a near-empty memory made of that one segment (it has no initialisation, no objective).
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/E_NOT_INITIALIZED.*at this commit.*\.GCC\/events\/.*only holds events not committed yet/);
    expect(r.stderr).toMatch(/Fix: check out a commit that holds the memory/);
    expect(s.tryGit(d, 'checkout', '-q', 'main').status).toBe(0);
    expect(ids(d)).toHaveLength(events);
    expect(s.ok(d, 'status')).toMatch(/Parse configs[\s\S]*work not committed to git yet/);
    expect(s.ok(d, 'verify')).toMatch(/^OK: /);
  });
});
