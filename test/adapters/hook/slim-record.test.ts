/**
 * The hook process's slim path (src/adapters/hook/slim-record.ts): a recorded call leaves the
 * memory exactly as the engine's execute would — the same events, views equal to a rebuild, the
 * same pending work and nudge — and anything it is not sure of is left to the engine.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSlim, slimRecord } from '../../../src/adapters/hook/slim-record.js';
import { runHook } from '../../../src/adapters/hook/run-hook.js';
import { Memory } from '../../../src/engine/memory.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function project(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'gcc-slim-'));
  dirs.push(dir);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'config', key: 'commit_after_edits', value: 3 });
  await m.execute({ type: 'record-tool', tool: 'Bash', input: 'ls', result: 'a', isError: false, files: [] });
  m.close();
  return dir;
}

const call = (i: number) => ({
  type: 'record-tool' as const,
  tool: 'Edit',
  input: `edit ${i}`,
  result: i === 2 ? 'token=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' : 'ok',
  isError: false,
  files: [{ path: `src/f${i % 2}.ts`, added: i, removed: 1 }],
  host: 'claude-code',
});

const shape = (m: Memory) => m.events().map((e) => JSON.stringify({ type: e.type, branch: e.branch, data: e.data }));

describe('the slim path of a hook process', () => {
  it('records what the engine records: same events and pending work, views equal to a rebuild', async () => {
    const slim = await project();
    const engine = await project();
    for (let i = 0; i < 5; i++) {
      const s = readSlim(slim);
      expect(s).not.toBeNull();
      expect(await slimRecord(s!, call(i), undefined, 3_000)).not.toBeNull();
      const m = await Memory.open(engine);
      await m.execute(call(i));
      m.close();
    }
    const a = await Memory.open(slim);
    const b = await Memory.open(engine);
    expect(a.verify()).toEqual([]);
    expect(shape(a)).toEqual(shape(b));
    expect(a.pendingWork()).toEqual(b.pendingWork());
    expect(shape(a).join('\n')).not.toContain('ghp_0123456789');
    a.close();
    b.close();
  });

  it('leaves to the engine a memory that is not as acknowledged, and writes nothing', async () => {
    const dir = await project();
    const m = await Memory.open(dir);
    const before = m.events().length;
    m.close();
    // A hand edit of main.md waits to be adopted by the engine first.
    writeFileSync(join(dir, '.GCC/main.md'), `${readFileSync(join(dir, '.GCC/main.md'), 'utf8')}\nmine\n`);
    expect(readSlim(dir)).toBeNull();
    const s = await project();
    const state = readSlim(s)!;
    // Another writer between the read and the lock: read again under it, still recorded once.
    const other = await Memory.open(s);
    await other.execute(call(7));
    other.close();
    expect(await slimRecord(state, call(8), undefined, 3_000)).not.toBeNull();
    const after = await Memory.open(s);
    expect(after.verify()).toEqual([]);
    expect(after.events().filter((e) => e.type === 'tool.recorded')).toHaveLength(3);
    after.close();
    expect(before).toBeGreaterThan(0);
  });

  it('nudges on the call that crosses the threshold, as the engine does', async () => {
    const dir = await project();
    const snapshot = join(dir, '.GCC/.local/cache/snapshot.json');
    // The engine writes the snapshot as it closes; the slim path never does.
    const taken = statSync(snapshot).mtimeMs;
    const said: string[] = [];
    for (let i = 0; i < 4; i++) {
      const input = JSON.stringify({
        session_id: 's1',
        cwd: dir,
        hook_event_name: 'PostToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(dir, `src/f${i}.ts`), old_string: 'a', new_string: 'b' },
        tool_response: { filePath: join(dir, `src/f${i}.ts`) },
      });
      const out = await runHook({ agent: 'claude-code', input });
      expect(out.stderr).toEqual([]);
      said.push(out.stdout ?? '');
    }
    expect(said.map((s) => s.includes('since the last memory commit'))).toEqual([false, false, true, false]);
    expect(statSync(snapshot).mtimeMs).toBe(taken);
    const m = await Memory.open(dir);
    expect(m.verify()).toEqual([]);
    m.close();
  });

  it("reads the hook summary beside the ledger, never one edited or another clone's, and hands over at the snapshot's bound", async () => {
    const dir = await project();
    const summary = join(dir, '.GCC/.local/cache/hook.json');
    const text = readFileSync(summary, 'utf8');
    expect(text.length).toBeLessThan(statSync(join(dir, '.GCC/.local/cache/snapshot.json')).size);
    // Edited in place (its CRC no longer holds): the engine's.
    writeFileSync(summary, text.replace('"commit_after_edits":3', '"commit_after_edits":4'));
    expect(readSlim(dir)).toBeNull();
    // Another clone's (a copy beside another ledger file): the engine's too.
    const other = await project();
    writeFileSync(summary, readFileSync(join(other, '.GCC/.local/cache/hook.json')));
    expect(readSlim(dir)).toBeNull();
    rmSync(summary);
    expect(readSlim(dir)).toBeNull();
    // The engine's next close writes it again; the slim path then records until the snapshot is 32 events behind.
    const m = await Memory.open(dir);
    await m.execute(call(0));
    m.close();
    let slim = 0;
    for (let i = 1; i <= 40; i++) {
      const s = readSlim(dir);
      if (s && (await slimRecord(s, call(i), undefined, 3_000))) slim++;
      else {
        const e = await Memory.open(dir);
        await e.execute(call(i));
        e.close();
      }
    }
    expect(slim).toBeGreaterThanOrEqual(38);
    const after = await Memory.open(dir);
    expect(after.verify()).toEqual([]);
    expect(after.events().filter((e) => e.type === 'tool.recorded')).toHaveLength(42);
    after.close();
  });
});
