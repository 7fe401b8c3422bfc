/**
 * A commit that was pushed and then reset away here: its segments are out of the index but
 * still in `origin/main`. Appending to one of them would make the next pull an add/add
 * conflict, so the next write starts a new segment.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempProject } from '../../support/tmp.js';
import { conflictMarkers, Sandbox } from './support.js';

afterAll(cleanup);

describe('a pushed commit reset away here', () => {
  it('the next write starts a new segment, so the pull after a redo merges without a conflict', () => {
    const s = new Sandbox(tempProject('gcc-git-'));
    const a = s.clone(s.origin(), 'a');
    s.ok(a, 'commit', 'first');
    s.commitAll(a, 'mem1');
    s.git(a, 'push', '-q', 'origin', 'main');
    s.git(a, 'reset', '-q', '--mixed', 'HEAD~1');
    s.ok(a, 'commit', 'second after reset');
    s.commitAll(a, 'redo');
    const pull = s.tryGit(a, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    expect(pull.status, pull.out).toBe(0);
    expect(conflictMarkers(a)).toEqual([]);
    expect(s.ok(a, 'verify')).toMatch(/^OK/);
    const log = s.ok(a, 'context', '--branch', 'main', '--k', '5');
    expect(log).toMatch(/second after reset/);
    expect(log).toMatch(/first/);
  });
});
