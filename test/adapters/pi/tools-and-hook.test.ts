import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/index.js';
import { operationsFor } from '../../../src/operations/index.js';
import { readEvents } from '../../support/events.js';
import { call, createHost, type Host, say, tempDir } from './harness.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

async function project(config?: Record<string, number | boolean>): Promise<string> {
  const dir = tempDir('gcc-pi-project-');
  const m = await Memory.open(dir, { create: true });
  for (const [key, value] of Object.entries(config ?? {})) await m.execute({ type: 'config', key, value });
  m.close();
  return dir;
}

async function host(cwd: string): Promise<Host> {
  const h = await createHost({ cwd });
  hosts.push(h);
  expect(h.loadErrors).toEqual([]);
  return h;
}

const events = readEvents;

describe('Pi extension on the real host: tools and hook bridge', () => {
  it('runs on Node 22', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
  });

  it('lets the model commit on the first turn of a new session', async () => {
    const dir = await project();
    const h = await host(dir);
    await h.turn('do the thing', [
      call('gcc_commit', { contribution: 'Set up the parser skeleton', title: 'Parser skeleton' }),
      say('done'),
    ]);
    // The memory tools Pi declares are the catalogue's operations offered to Pi, in its order.
    const declared = (h.requests[0]?.tools ?? []).filter((t) => t.startsWith('gcc_'));
    expect(declared).toEqual(operationsFor('pi').map((op) => `gcc_${op.name}`));
    expect(declared).toContain('gcc_log');
    // Search is a level of gcc_context, not a tool of its own.
    expect(declared).not.toContain('gcc_search');
    const [r] = h.toolResults();
    expect(r?.isError, r?.text).toBe(false);
    expect(readFileSync(join(dir, '.GCC/commit.md'), 'utf8')).toContain('Set up the parser skeleton');
    expect(h.errors).toEqual([]);
  });

  it('logs every tool call Pi runs as an entry in log.md, with files and line counts for edits', async () => {
    const dir = await project();
    writeFileSync(join(dir, 'notes.txt'), 'one\ntwo\nthree\n');
    const h = await host(dir);
    await h.turn('work', [
      call('bash', { command: 'echo hello from bash' }),
      call('read', { path: 'notes.txt' }),
      call('write', { path: 'src.txt', content: 'a\nb\nc\n' }),
      call('edit', { path: 'notes.txt', edits: [{ oldText: 'two\n', newText: 'TWO\n2\n' }] }),
      call('bash', { command: 'echo token=supersecretvalue123' }),
      say('done'),
    ]);
    expect(h.toolResults().map((r) => r.isError)).toEqual([false, false, false, false, false]);
    const recorded = (await events(dir)).filter((e) => e.type === 'tool.recorded');
    expect(recorded.map((e) => e.data.tool)).toEqual(['bash', 'read', 'write', 'edit', 'bash']);
    expect(recorded.every((e) => e.data.host === 'pi')).toBe(true);
    expect(recorded[0]?.data.result).toContain('hello from bash');
    expect(recorded[2]?.data.files).toEqual([{ path: 'src.txt', added: 3, removed: 0 }]);
    expect(recorded[3]?.data.files).toEqual([{ path: 'notes.txt', added: 2, removed: 1 }]);
    // Secrets never reach the log, neither from the input nor from the output.
    const log = readFileSync(join(dir, '.GCC/log.md'), 'utf8');
    expect(log).toContain('echo hello from bash');
    expect(log).not.toContain('supersecretvalue123');
    // COMMIT fills Files touched from what was logged.
    const m = await Memory.open(dir);
    expect(m.pendingWork().files).toEqual(['notes.txt', 'src.txt']);
    m.close();
  });

  it("blocks Pi's write, edit and bash into .GCC/ with the reason, and leaves the files alone", async () => {
    const dir = await project();
    const before = readFileSync(join(dir, '.GCC/commit.md'), 'utf8');
    const h = await host(dir);
    await h.turn('tamper', [
      call('write', { path: '.GCC/commit.md', content: '# forged\n' }),
      call('edit', { path: '.GCC/commit.md', edits: [{ oldText: '#', newText: '##' }] }),
      call('bash', { command: 'echo forged >> .GCC/log.md' }),
      call('bash', { command: 'cat .GCC/commit.md' }),
      say('ok'),
    ]);
    const results = h.toolResults();
    expect(results.slice(0, 3).map((r) => r.isError)).toEqual([true, true, true]);
    for (const r of results.slice(0, 3)) expect(r.text).toMatch(/generated from the memory log.*Use the memory tools/s);
    // Reading is fine.
    expect(results[3]?.isError).toBe(false);
    expect(readFileSync(join(dir, '.GCC/commit.md'), 'utf8')).toBe(before);
    // The log holds the blocked attempt as an entry, never the appended line itself.
    expect(readFileSync(join(dir, '.GCC/log.md'), 'utf8')).not.toMatch(/^forged$/m);
    // The attempts themselves are remembered.
    const blocked = (await events(dir)).filter(
      (e) => e.type === 'tool.recorded' && e.data.isError && e.data.result.startsWith('blocked'),
    );
    expect(blocked).toHaveLength(3);
  });

  it('suggests a commit once, on the call that crosses the threshold', async () => {
    const dir = await project({ commit_after_edits: 2, commit_after_turns: 100 });
    const h = await host(dir);
    await h.turn('write files', [
      call('write', { path: 'a.txt', content: 'a\n' }),
      call('write', { path: 'b.txt', content: 'b\n' }),
      call('write', { path: 'c.txt', content: 'c\n' }),
      call('bash', { command: 'ls' }),
      say('done'),
    ]);
    const nudged = h.toolResults().map((r) => /record it with the memory commit tool \(gcc_commit/.test(r.text));
    expect(nudged).toEqual([false, true, false, false]);
    // After a commit the counts reset, and the next crossing nudges again.
    await h.turn('more', [
      call('gcc_commit', { contribution: 'Wrote a, b and c' }),
      call('write', { path: 'd.txt', content: 'd\n' }),
      call('write', { path: 'e.txt', content: 'e\n' }),
      say('done'),
    ]);
    expect(
      h
        .toolResults()
        .slice(4)
        .map((r) => /record it with the memory commit tool \(gcc_commit/.test(r.text)),
    ).toEqual([false, false, true]);
  });

  it('keeps two Pi sessions on the same repository on their own memory branches', async () => {
    const dir = await project();
    const agentDir = tempDir('gcc-pi-agent-shared-');
    const a = await createHost({ cwd: dir, agentDir });
    const b = await createHost({ cwd: dir, agentDir });
    hosts.push(a, b);
    await a.turn('explore', [
      call('gcc_branch', { name: 'try-cache', purpose: 'see whether caching helps' }),
      say('branched'),
    ]);
    await b.turn('main work', [call('gcc_commit', { contribution: 'Fixed the tokenizer on main' }), say('ok')]);
    await a.turn('more', [call('gcc_commit', { contribution: 'Cache prototype works' }), say('ok')]);
    expect([...a.toolResults(), ...b.toolResults()].map((r) => r.isError)).toEqual([false, false, false]);
    const commits = (await events(dir)).filter((e) => e.type === 'commit.recorded');
    const byBranch = Object.fromEntries(commits.map((e) => [e.data.contribution, e.branch]));
    expect(byBranch).toEqual({ 'Fixed the tokenizer on main': 'main', 'Cache prototype works': 'try-cache' });
    expect(a.toolResults()[1]?.details).toMatchObject({ branch: 'try-cache' });
    expect(b.toolResults()[0]?.details).toMatchObject({ branch: 'main' });
    // Merging shows the branch as it stood, framed as project data, and brings A back to main.
    await a.turn('merge', [
      call('gcc_merge', { branch: 'try-cache', synthesis: 'Caching helps; kept the LRU' }),
      say('merged'),
    ]);
    const merged = a.toolResults()[2];
    expect(merged?.isError, merged?.text).toBe(false);
    expect(merged?.text).toMatch(/<gcc-memory[^]*Cache prototype works[^]*<\/gcc-memory>/);
    expect(merged?.details).toMatchObject({ branch: 'main' });
  });

  it('gcc_log records one Observation–Thought–Action entry, and only that (no tool entry for itself)', async () => {
    const dir = await project();
    const h = await host(dir);
    await h.turn('note it', [
      call('gcc_log', {
        observation: 'the cache misses on cold start',
        thought: 'warm it at boot',
        action: 'add a warm-up step',
      }),
      say('noted'),
    ]);
    const [r] = h.toolResults();
    expect(r?.isError, r?.text).toBe(false);
    expect(r?.text).toBe('Logged on main');
    expect(r?.details).toMatchObject({ ok: true, branch: 'main' });
    const logged = (await events(dir)).filter((e) => e.type === 'ota.logged' || e.type === 'tool.recorded');
    expect(logged.map((e) => [e.type, e.branch, e.data])).toEqual([
      [
        'ota.logged',
        'main',
        { observation: 'the cache misses on cold start', thought: 'warm it at boot', action: 'add a warm-up step' },
      ],
    ]);
    expect(readFileSync(join(dir, '.GCC/log.md'), 'utf8')).toContain('the cache misses on cold start');
  });

  it('answers a bad memory call with a readable tool error carrying the engine code', async () => {
    const dir = await project();
    const h = await host(dir);
    await h.turn('oops', [
      call('gcc_switch', { name: 'nope' }),
      call('gcc_context', { level: 'commit' }),
      call('gcc_commit', { title: 'no text' }),
      say('recovered'),
    ]);
    const [sw, cx, cm] = h.toolResults();
    expect(sw?.isError).toBe(true);
    expect(sw?.text).toMatch(/^E_BRANCH_NOT_FOUND/);
    expect(cx?.isError).toBe(true);
    expect(cx?.text).toMatch(/^E_INVALID_ARGUMENT/);
    // Pi checks arguments against the declared schema (the catalogue's) before the tool runs.
    expect(cm?.isError).toBe(true);
    expect(cm?.text).toMatch(/gcc_commit[^]*contribution: missing/);
    // The turn went on to its end.
    expect(h.session().messages.at(-1)?.role).toBe('assistant');
  });
});
