/**
 * A memory in the first layout — made by the gctx of commit 37b42b2, kept as a git bundle in
 * test/fixtures/v1-layout — moves into writer-owned segments on the first command, losing
 * nothing; clones made before and after the migration meet with plain git.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, tempProject } from '../../support/tmp.js';
import { conflictMarkers, eventsOnDisk, type Sandbox, v1Clones } from './support.js';

afterAll(cleanup);

const fixture = () => v1Clones(tempProject('gcc-mig-'));

const texts = (s: Sandbox, dir: string) => s.ok(dir, 'context', '--log', '100', '--on', 'main') + s.ok(dir, 'context', '--branch', 'main', '--k', '100');

describe('migration from the first layout', () => {
  it('reads it as it is; `gctx migrate` (or the first write on a branch) moves every event into segments and stages the change', () => {
    const { s, clone } = fixture();
    const d = clone('m', 'main');
    const r = s.gctx(d, 'status');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/first layout of \.GCC\/ \(on branch main\)/);
    expect(r.stdout).toMatch(/try-redis .* dropped: Redis dependency too heavy/);
    expect(texts(s, d)).toMatch(/Unicode tokenizer[\s\S]*Keep the cache/);
    expect(s.ok(d, 'verify')).toMatch(/^OK: 14 events/);
    // Reads change nothing git tracks.
    expect(s.git(d, 'status', '--porcelain')).toBe('');
    const m = s.gctx(d, 'migrate');
    expect(m.status, m.stderr).toBe(0);
    expect(m.stdout).toMatch(/moved 14 events of the old layout/);
    expect(s.git(d, 'diff', '--name-only')).toBe('');
    expect(s.ok(d, 'verify')).toMatch(/^OK: 14 events/);
    s.commitAll(d, 'migrate memory');
    const tracked = s.git(d, 'ls-files', '.GCC').trim().split('\n');
    expect(tracked.every((f) => f === '.GCC/.gitignore' || f.startsWith('.GCC/events/'))).toBe(true);
    expect(s.ok(d, 'migrate')).toMatch(/Nothing to migrate/);
  });

  it('two old-layout branches merged as text (conflict markers in log.md) open as their union', () => {
    const { s, clone } = fixture();
    const d = clone('t', 'bob');
    s.git(d, 'fetch', '-q', 'origin', 'alice');
    expect(s.tryGit(d, 'merge', '--no-edit', 'FETCH_HEAD').status).not.toBe(0);
    expect(conflictMarkers(d).length).toBeGreaterThan(0);
    const r = s.gctx(d, 'verify');
    expect(r.status, r.stderr).toBe(0);
    const all = texts(s, d);
    expect(all).toMatch(/Alice: config loader reads YAML/);
    expect(all).toMatch(/Bob: docs skeleton/);
    expect(r.stdout).toMatch(/^OK: 19 events/);
    expect(s.ok(d, 'migrate')).toMatch(/moved 19 events/);
    // 19 events in all: the session a hook started is local state, in .GCC/.local/, not in a segment.
    expect(eventsOnDisk(d)).toHaveLength(18);
    expect(s.ok(d, 'verify')).toMatch(/^OK: 19 events/);
    s.commitAll(d, 'merge alice');
  });

  it('a clone from before the migration merges one from after it, losing nothing', () => {
    const { s, clone } = fixture();
    const after = clone('after', 'alice');
    s.ok(after, 'commit', 'after: first commit in the new layout');
    s.commitAll(after, 'migrated');
    const before = clone('before', 'bob');
    s.git(before, 'fetch', '-q', after, 'alice');
    // The old log.md was changed on bob's side and removed on alice's: git cannot merge that.
    expect(s.tryGit(before, 'merge', '--no-edit', 'FETCH_HEAD').status).not.toBe(0);
    const r = s.gctx(before, 'verify');
    expect(r.status, r.stderr).toBe(0);
    const all = texts(s, before);
    for (const t of ['Alice: config loader reads YAML', 'Bob: docs skeleton', 'after: first commit in the new layout', 'Keep the cache']) expect(all).toContain(t);
    // The merge is under way on a branch: the first write resolves the old log by union.
    s.ok(before, 'commit', 'before: merging across the migration');
    s.git(before, 'add', '-A');
    expect(s.git(before, 'diff', '--name-only', '--diff-filter=U')).toBe('');
    s.git(before, 'commit', '-qm', 'merge across the migration');
    expect(s.ok(before, 'verify')).toMatch(/^OK/);
    expect(s.git(before, 'ls-files', '.GCC').split('\n').filter(Boolean).every((f) => f === '.GCC/.gitignore' || f.startsWith('.GCC/events/'))).toBe(true);
  });
});
