/**
 * Memory as one line per thing (src/context/lines.ts): a log entry's parts told apart in a word
 * each, the write guard's refusal in a few words.
 */
import { describe, expect, it } from 'vitest';
import { entryLine } from '../../src/context/lines.js';
import { BLOCKED, GCC_WRITE_REASON, GIT_UNCOMMITTED_REASON } from '../../src/events/guard.js';
import type { GccEvent } from '../../src/events/types.js';

const at = '2026-12-01T12:42:00.000Z';
const ota = (observation: string, thought: string, action: string) =>
  ({ id: 'x', seq: 1, at, branch: 'main', type: 'ota.logged', data: { observation, thought, action } }) as GccEvent;
const tool = (result: string, isError: boolean) =>
  ({
    id: 'x',
    seq: 1,
    at,
    branch: 'main',
    type: 'tool.recorded',
    data: { tool: 'Write', input: '.GCC/main.md', result, isError, files: [] },
  }) as GccEvent;

describe('entryLine', () => {
  it("names an OTA entry's parts, and leaves out the empty ones", () => {
    expect(entryLine(ota('yaml test fails: tabs', 'enable json: false', 'set the flag'))).toBe(
      '12-01 12:42 Observation: yaml test fails: tabs | Thought: enable json: false | Action: set the flag',
    );
    expect(entryLine(ota('', 'only a thought', ' '))).toBe('12-01 12:42 Thought: only a thought');
  });

  it("says the write guard's refusal in a few words, whichever guard; a tool's own failure as it was", () => {
    expect(entryLine(tool(`${BLOCKED}${GCC_WRITE_REASON} (writes .GCC/main.md)`, true))).toBe(
      '12-01 12:42 Write .GCC/main.md → blocked by gctx: .GCC/ is written through the memory tools',
    );
    expect(entryLine(tool(`${BLOCKED}${GIT_UNCOMMITTED_REASON}`, true))).toMatch(
      /→ blocked by gctx: it would overwrite memory not yet committed to git$/,
    );
    expect(entryLine(tool('blocked: by the proxy', true))).toMatch(/→ failed: blocked: by the proxy$/);
    // Not refused if it did not fail: a file that quotes the reason, read back.
    expect(entryLine(tool(`${BLOCKED}${GCC_WRITE_REASON}`, false))).toMatch(/→ blocked: The files under/);
  });
});
