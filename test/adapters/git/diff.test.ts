/**
 * Reviewers read memory in pull requests: after one operation, `git diff` of .GCC/ holds
 * only the new log entries and the projection lines that operation touched.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installGit } from '../../../src/adapters/git/install.js';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { Sandbox } from './support.js';

afterAll(cleanup);

function numstat(box: Sandbox, dir: string): Record<string, { added: number; removed: number }> {
  const out: Record<string, { added: number; removed: number }> = {};
  for (const line of box.git(dir, 'diff', '--numstat', '--', '.GCC').trim().split('\n').filter(Boolean)) {
    const [added, removed, path] = line.split('\t');
    out[path!] = { added: Number(added), removed: Number(removed) };
  }
  return out;
}

describe('git diff of .GCC/ after one operation', () => {
  it('a commit adds log entries and a commit.md entry, and touches only the main.md lines it changes', async () => {
    const box = new Sandbox(tempProject('gcc-diff-'));
    const dir = join(box.root, 'repo');
    box.git(box.root, 'init', '-q', dir);
    box.identity(dir, 'r');
    const m = await Memory.open(dir, { create: true });
    installGit(dir, 'true');
    await m.execute({ type: 'roadmap', action: 'add', target: 'Parse comments' });
    await m.execute({ type: 'roadmap', action: 'add', target: 'Write the docs' });
    await m.execute({ type: 'commit', contribution: 'Tokenizer in place', title: 'Tokenizer' });
    box.git(dir, 'add', '-A');
    box.git(dir, 'commit', '-qm', 'memory');

    await m.execute({ type: 'commit', contribution: 'Comments become trivia tokens', title: 'Comments', check: ['Parse comments'] });
    m.close();

    const stat = numstat(box, dir);
    expect(Object.keys(stat).sort()).toEqual(['.GCC/commit.md', '.GCC/log.md', '.GCC/main.md']);
    // Append-only files: nothing removed, one entry's worth added.
    expect(stat['.GCC/log.md']!.removed).toBe(0);
    expect(stat['.GCC/log.md']!.added).toBeLessThanOrEqual(14);
    expect(stat['.GCC/commit.md']).toEqual({ added: 9, removed: 0 });
    // main.md: the ticked objective and the new milestone, nothing else.
    const diff = box.git(dir, 'diff', '-U0', '--', '.GCC/main.md');
    const changed = diff.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) [ab/]/.test(l));
    expect(changed.filter((l) => l.startsWith('-'))).toEqual(['-- [ ] Parse comments']);
    expect(changed.filter((l) => l.startsWith('+'))).toEqual(['+- [x] Parse comments', '+### M2: Comments', '+- Branch: main', '+- Commits: C002', '+- Status: committed', expect.stringMatching(/^\+- Date: /), '+']);
    expect(box.git(dir, 'diff', '--', '.GCC/log.md')).toContain('Comments become trivia tokens');
  });
});
