/**
 * Where this clone stands moves only by a gctx command run here: a git checkout that takes a
 * memory branch's events away, a git merge that brings them back, and a teammate's merge of
 * the branch this clone is on are said in status and the briefing, and the next command that
 * records says where it recorded and keeps the clone there. Real git, the real CLI.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempProject } from '../../support/tmp.js';
import { Sandbox } from './support.js';

afterAll(cleanup);

const first = (text: string) => text.split('\n')[0];

/** A memory branch exp made on git branch feat, and main checked out again. */
function flip(): { s: Sandbox; dir: string } {
  const s = new Sandbox(tempProject());
  const dir = join(s.root, 'flip');
  s.git(s.root, 'init', '-q', '-b', 'main', dir);
  s.identity(dir, 'a');
  writeFileSync(join(dir, 'a'), 'a\n');
  s.ok(dir, 'init');
  s.commitAll(dir, 'i');
  s.git(dir, 'checkout', '-qb', 'feat');
  s.ok(dir, 'branch', 'exp', '--purpose', 'experiment on feat');
  s.ok(dir, 'commit', 'exp work');
  s.commitAll(dir, 'f');
  s.git(dir, 'checkout', '-q', 'main');
  return { s, dir };
}

describe("a git merge of this clone's own work", () => {
  for (const how of [['--no-edit'], ['--squash']]) {
    it(`does not move the memory branch (git merge ${how[0]})`, () => {
      const { s, dir } = flip();
      const status = s.ok(dir, 'status');
      expect(first(status)).toMatch(/^On memory branch main/);
      expect(status).toContain(
        'exp, where gctx last put this clone, is not in this checkout (its events are on another git branch): the next commit goes to main',
      );
      const committed = s.ok(dir, 'commit', 'main work 1');
      expect(committed).toMatch(
        /on main: main work 1\nexp, where gctx last put this clone, is not in this checkout .*now on main, and it stays there \(`gctx switch exp` once exp is back\)/,
      );
      s.commitAll(dir, 'm');
      s.git(dir, 'merge', '-q', ...how, 'feat');
      const after = s.ok(dir, 'status');
      expect(first(after)).toMatch(/^On memory branch main/);
      expect(after).not.toMatch(/where gctx last put/);
      expect(s.ok(dir, 'commit', 'main work 2 after merging feat')).toMatch(/^Committed C002 \(\w+\) on main/);
      // exp is back, and open: switching to it is a gctx command.
      expect(s.ok(dir, 'switch', 'exp')).toMatch(/Switched to exp/);
    });
  }
});

describe('a tool call a hook records pins where it recorded', () => {
  it('after a checkout took the branch away, a recorded call keeps the clone where it recorded through a later merge', () => {
    const { s, dir } = flip();
    const r = s.hook(dir, 'claude-code', {
      session_id: 'pin',
      cwd: dir,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo recorded-on-main' },
      tool_response: { stdout: 'ok', stderr: '', interrupted: false, isImage: false },
      tool_use_id: 'toolu_pin',
    });
    expect(r.status, r.stderr).toBe(0);
    s.commitAll(dir, 'm');
    s.git(dir, 'merge', '-q', '--no-edit', 'feat');
    expect(first(s.ok(dir, 'status'))).toMatch(/^On memory branch main/);
    expect(s.ok(dir, 'context', '--log')).toContain('recorded-on-main');
  });
});

describe('a teammate merges the branch this clone is on', () => {
  it('status and the briefing say so and name the commits the merge did not include; the next commit says where it went', () => {
    const s = new Sandbox(tempProject());
    const origin = s.origin();
    const a = s.clone(origin, 'alice');
    s.ok(a, 'branch', 'feat', '--purpose', 'parser');
    s.ok(a, 'commit', 'feat one');
    s.commitAll(a, 'a1');
    s.git(a, 'push', '-q', 'origin', 'main');
    const b = s.clone(origin, 'bob');
    s.ok(b, 'merge', 'feat', '--synthesis', 'took the parser');
    s.commitAll(b, 'bob merges feat');
    s.git(b, 'push', '-q', 'origin', 'main');
    expect(s.ok(a, 'commit', 'feat two after the merge')).toMatch(/on feat/);
    s.commitAll(a, 'a2');
    s.git(a, 'pull', '-q', '--no-rebase', '--no-edit');
    const said =
      'feat, where gctx last put this clone, was merged into main without its later commits C002 "feat two after the merge"; now on main. Read them (`gctx context --commit feat@C002`)';
    const status = s.ok(a, 'status');
    expect(first(status)).toMatch(/^On memory branch main/);
    expect(status).toContain(said);
    expect(status).toMatch(/1 merged; commits made after their merge .*: feat: C002\./);
    const hook = s.hook(a, 'claude-code', {
      session_id: 's1',
      hook_event_name: 'SessionStart',
      source: 'startup',
      cwd: a,
    }).stdout;
    expect(
      (JSON.parse(hook) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext,
    ).toContain(said);
    expect(s.ok(a, 'context', '--commit', 'feat@C002')).toMatch(/feat two after the merge/);
    expect(s.ok(a, 'commit', 'carry on')).toMatch(
      /on main: carry on\n.*was merged into main without its later commits C002/,
    );
    expect(s.ok(a, 'status')).not.toMatch(/where gctx last put/);
  });

  it('merging the branch one is on moves one there, by that command: nothing to say afterwards', () => {
    const s = new Sandbox(tempProject());
    const origin = s.origin();
    const a = s.clone(origin, 'alice');
    s.ok(a, 'branch', 'feat', '--purpose', 'parser');
    s.ok(a, 'commit', 'feat one');
    expect(s.ok(a, 'merge', 'feat', '--synthesis', 'done')).toMatch(/now on main/);
    const status = s.ok(a, 'status');
    expect(status).not.toMatch(/where gctx last put/);
    expect(status).toMatch(/1 merged\./);
  });
});
