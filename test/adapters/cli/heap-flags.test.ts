/**
 * A gctx command that opens a memory keeps V8's young generation at the size the process
 * started with, or one step up (heap-flags.ts), through a pass over a history that grows it
 * further under V8's defaults; so do `gctx hook` and `gctx mcp`, whose first open in a fresh
 * clone is the same pass. Read from V8's heap statistics inside the process, not from its
 * memory use or timings.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, FORMAT_VERSION, type GccEvent } from '../../../src/events/types.js';
import { serialize } from '../../../src/log/codec.js';
import { layout, newSegmentName } from '../../../src/store/paths.js';
import { CLI } from '../../support/cli.js';
import { cleanup, tempProject } from '../../support/tmp.js';

afterAll(cleanup);

/** Prints, on exit, the young generation's size when the process started and when it ends. */
const PROBE = `data:text/javascript,${encodeURIComponent(
  "import { getHeapSpaceStatistics } from 'node:v8'; import { writeSync } from 'node:fs'; " +
    "const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size; const start = young(); " +
    "process.on('exit', () => writeSync(2, '@@young ' + JSON.stringify({ start, end: young() }) + '\\n'));",
)}`;

/** A clone that has only the logs, as git brings them: its first open replays them all. */
function freshClone(events: number): string {
  const dir = tempProject('gcc-heap-');
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const ev = (i: number): GccEvent =>
    ({
      id: (t0 + i).toString(16).padStart(12, '0') + 'ab'.repeat(5),
      seq: i + 1,
      at: new Date(t0 + i).toISOString(),
      branch: 'main',
      ...(i === 0
        ? { type: 'memory.initialized', data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } } }
        : {
            type: 'ota.logged',
            data: {
              observation: `note ${i} `.padEnd(400, 'of some length '),
              thought: 'a thought',
              action: 'an action',
            },
          }),
    }) as GccEvent;
  const path = layout(dir).segment(newSegmentName(new Date(t0), 'abcdef'));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, serialize(Array.from({ length: events }, (_, i) => ev(i))));
  return dir;
}

/** The young generation's size at the start and the end of a gctx process run in `dir`. */
function young(dir: string, args: string[], input = ''): { start: number; end: number; stdout: string } {
  const r = spawnSync(process.execPath, ['--import', PROBE, CLI, ...args], {
    cwd: dir,
    input,
    encoding: 'utf8',
    env: { ...process.env, GCC_SESSION: '', CLAUDE_CODE_SESSION_ID: '' },
  });
  expect(r.status, r.stderr).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.startsWith('@@young '));
  expect(line, r.stderr).toBeDefined();
  return { ...(JSON.parse(line!.slice('@@young '.length)) as { start: number; end: number }), stdout: r.stdout };
}

describe('the heap of a gctx command', () => {
  // Under V8's defaults each of these replays doubles the young generation at least twice.
  it('keeps its young generation small through a replay of the whole history', () => {
    const { start, end, stdout } = young(freshClone(3_000), ['status']);
    expect(stdout).toMatch(/On memory branch main/);
    expect(end).toBeLessThanOrEqual(2 * start);
  });

  it('does so in a SessionStart hook, whose briefing is the first open of a fresh clone', () => {
    const dir = freshClone(3_000);
    const event = {
      session_id: 's-heap',
      transcript_path: join(dir, 't.jsonl'),
      cwd: dir,
      permission_mode: 'default',
      hook_event_name: 'SessionStart',
      source: 'startup',
    };
    const { start, end, stdout } = young(dir, ['hook', '--agent', 'claude-code'], JSON.stringify(event));
    expect(stdout).toMatch(/additionalContext/);
    expect(end).toBeLessThanOrEqual(2 * start);
  });

  it('does so in `gctx mcp`, whose first tool call opens the memory', () => {
    const dir = freshClone(3_000);
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'heap', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'context', arguments: {} } },
    ];
    const { start, end, stdout } = young(
      dir,
      ['mcp', '--dir', dir],
      lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
    );
    expect(stdout).toMatch(/"id":2/);
    expect(end).toBeLessThanOrEqual(2 * start);
  });

  it('is left as it is by a command or a hook that reads only the recent past: node:v8 is not even loaded', () => {
    const dir = freshClone(300);
    const env = { ...process.env, GCC_SESSION: '', CLAUDE_CODE_SESSION_ID: '' };
    // The first open replays the history; the ones after it fold from the snapshot.
    expect(spawnSync(process.execPath, [CLI, 'status'], { cwd: dir, encoding: 'utf8', env }).status).toBe(0);
    const probe = `data:text/javascript,${encodeURIComponent("import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(2, '@@v8 ' + process.moduleLoadList.includes('NativeModule v8') + '\\n'));")}`;
    const loadsV8 = (args: string[], input = '') => {
      const r = spawnSync(process.execPath, ['--import', probe, CLI, ...args], {
        cwd: dir,
        input,
        encoding: 'utf8',
        env,
      });
      expect(r.status, r.stderr).toBe(0);
      return /@@v8 true/.test(r.stderr);
    };
    expect(loadsV8(['status'])).toBe(false);
    const edit = {
      session_id: 's-heap',
      transcript_path: join(dir, 't.jsonl'),
      cwd: dir,
      permission_mode: 'default',
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(dir, 'a.ts'), old_string: 'a', new_string: 'b' },
      tool_response: { filePath: join(dir, 'a.ts') },
    };
    expect(loadsV8(['hook', '--agent', 'claude-code'], JSON.stringify(edit))).toBe(false);
    expect(loadsV8(['verify'])).toBe(true);
  });
});
