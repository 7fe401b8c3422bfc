/**
 * gctx's long-lived servers keep their heap for as long as they run, so a first search that must
 * index much of a history (more than 64 MiB of segments) is built in a lean child
 * (lean-process.ts indexInLeanChild, given to Memory as `indexApart`), and the server answers
 * from the index the child left. Read from what each process reports of its own start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { GCTX_JS, NODE } from './client.js';
import { HANDSHAKE, type Message, toolCall } from './raw.js';

afterAll(cleanup);

/** Appends, on exit, how the process was started to the file PROBE_FILE names (the child's stdio is not the server's). */
const PROBE = `data:text/javascript,${encodeURIComponent(
  "import { appendFileSync } from 'node:fs'; " +
    "process.on('exit', () => appendFileSync(process.env.PROBE_FILE, JSON.stringify({ pid: process.pid, ppid: process.ppid, flags: process.execArgv.filter((a) => a.startsWith('--v8') || a.startsWith('--optimize')), argv: process.argv.slice(2) }) + '\\n'));",
)}`;

describe('gctx mcp: a first search of a long history', () => {
  it('builds the index in a lean child and answers from it', async () => {
    const dir = tempProject('gcc-apart-');
    const m = await Memory.open(dir, { create: true });
    // 25 entries of three 1 MiB texts: 75 MiB of segments, past the 64 MiB a query indexes in place.
    const filler = 'alpha beta gamma delta '.repeat(45_000);
    for (let i = 0; i < 25; i++) await m.execute({ type: 'log', observation: filler, thought: filler, action: filler });
    await m.execute({ type: 'commit', contribution: 'the parser keeps a zebracorn cache' });
    m.close();

    const input = `${HANDSHAKE}${JSON.stringify(toolCall(2, 'context', { level: 'search', text: 'zebracorn' }))}\n`;
    const probe = join(dir, 'starts.jsonl');
    const env: NodeJS.ProcessEnv = { ...process.env, PROBE_FILE: probe };
    delete env.GCC_SESSION;
    delete env.CLAUDE_CODE_SESSION_ID;
    delete env.MALLOC_ARENA_MAX;
    const r = spawnSync(NODE, ['--import', PROBE, GCTX_JS, 'mcp', '--dir', dir], { cwd: dir, input, env, encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(r.status, r.stderr).toBe(0);
    const answer = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Message).find((x) => x.id === 2)!;
    expect(answer.result?.content?.[0]?.text).toMatch(/zebracorn/);
    const starts = readFileSync(probe, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pid: number; ppid: number; flags: string[]; argv: string[] });
    expect(starts).toHaveLength(2);
    const server = starts.find((s) => s.argv.includes('mcp'))!;
    const child = starts.find((s) => s !== server)!;
    expect(child.ppid).toBe(server.pid);
    expect(child.argv.slice(0, 2)).toEqual(['search', 'index']);
    expect(child.flags).toEqual(expect.arrayContaining(['--v8-pool-size=1', '--optimize-for-size']));
    expect(existsSync(join(dir, '.GCC', '.local', 'cache', 'search', 'fed.json'))).toBe(true);
  }, 120_000);
});
