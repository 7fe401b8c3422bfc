/**
 * Visiting an older commit — `git checkout <old commit>`, `git bisect` — with real git.
 * Whatever gctx does there leaves a work tree git leaves without -f, and what was recorded
 * there is in the memory when the user comes back.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { eventsOnDisk, Sandbox } from './support.js';

afterAll(cleanup);

const BUNDLE = join(import.meta.dirname, '..', '..', 'fixtures', 'v1-layout', 'history.bundle');
const TIMEOUT = 60_000;

/** Clones of test/fixtures/v1-layout: a memory made by the gctx of the first round. */
function fixture(): { s: Sandbox; clone: (name: string, branch: string) => string } {
  const s = new Sandbox(tempProject('gcc-visit-'));
  return {
    s,
    clone: (name, branch) => {
      s.git(s.root, 'clone', '-q', '-b', branch, BUNDLE, name);
      const dir = join(s.root, name);
      s.identity(dir, name);
      return dir;
    },
  };
}

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
});
