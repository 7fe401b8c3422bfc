/**
 * A gctx command that opens a memory keeps V8's young generation at the size the process
 * started with, or one step up (heap-flags.ts), through a pass over a history that grows it
 * further under V8's defaults. Read from V8's heap statistics inside the process, not from its
 * memory use or timings.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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
      ...(i === 0 ? { type: 'memory.initialized', data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } } } : { type: 'ota.logged', data: { observation: `note ${i} `.padEnd(400, 'of some length '), thought: 'a thought', action: 'an action' } }),
    }) as GccEvent;
  const path = layout(dir).segment(newSegmentName(new Date(t0), 'abcdef'));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, serialize(Array.from({ length: events }, (_, i) => ev(i))));
  return dir;
}

describe('the heap of a gctx command', () => {
  it('keeps its young generation small through a replay of the whole history', () => {
    const dir = freshClone(3_000);
    const r = spawnSync(process.execPath, ['--import', PROBE, CLI, 'status'], { cwd: dir, encoding: 'utf8', env: { ...process.env, GCC_SESSION: '' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/On memory branch main/);
    const line = r.stderr.split('\n').find((l) => l.startsWith('@@young '))!;
    const { start, end } = JSON.parse(line.slice('@@young '.length)) as { start: number; end: number };
    // Under V8's defaults this replay doubles the young generation at least twice.
    expect(end).toBeLessThanOrEqual(2 * start);
  });
});
