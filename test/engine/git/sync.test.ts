/**
 * The hooks `gctx git install` writes stay quiet while git is mid-operation: a rebase that set
 * a staged segment aside in its autostash is not damage, and the memory is whole once git is
 * done. Real git, the real CLI, the installed hooks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempProject } from '../../support/tmp.js';
import { Sandbox } from './support.js';

afterAll(cleanup);

describe('git sync from the hooks', () => {
  it('`git pull --rebase --autostash` with a staged segment: no alarm mid-rebase, and verify is clean after', () => {
    const s = new Sandbox(tempProject());
    const origin = s.origin();
    const alice = s.clone(origin, 'alice');
    const bob = s.clone(origin, 'bob');
    s.ok(alice, 'git', 'install');
    s.ok(bob, 'commit', 'bob remembers');
    s.commitAll(bob, 'bob');
    s.git(bob, 'push', '-q', 'origin', 'main');
    writeFileSync(join(alice, 'a.txt'), 'a\n');
    s.commitAll(alice, 'alice code');
    s.ok(alice, 'commit', 'alice remembers');
    s.git(alice, 'add', '-A');
    writeFileSync(join(alice, 'a.txt'), 'a\ndirty\n');
    const pull = s.tryGit(alice, 'pull', '--rebase', '--autostash');
    expect(pull.status, pull.out).toBe(0);
    expect(pull.out).toMatch(/autostash/i);
    expect(pull.out).not.toMatch(/E_CORRUPT|gctx:/);
    expect(s.ok(alice, 'verify')).toMatch(/^OK/);
    const log = s.ok(alice, 'context', '--branch', '--k', '5');
    expect(log).toMatch(/alice remembers/);
    expect(log).toMatch(/bob remembers/);
  });
});
