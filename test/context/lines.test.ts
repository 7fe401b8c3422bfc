/**
 * Memory as one line per thing (src/context/lines.ts): a log entry's parts told apart in a word
 * each, the write guard's refusal in a few words, and lists of files that say how many are left.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryLine, filesFitted } from '../../src/context/lines.js';
import { BLOCKED, GCC_WRITE_REASON, GIT_UNCOMMITTED_REASON } from '../../src/events/guard.js';
import type { GccEvent } from '../../src/events/types.js';

const at = '2026-12-01T12:42:00.000Z';
const ota = (observation: string, thought: string, action: string) => ({ id: 'x', seq: 1, at, branch: 'main', type: 'ota.logged', data: { observation, thought, action } }) as GccEvent;
const tool = (result: string, isError: boolean) => ({ id: 'x', seq: 1, at, branch: 'main', type: 'tool.recorded', data: { tool: 'Write', input: '.GCC/main.md', result, isError, files: [] } }) as GccEvent;

describe('entryLine', () => {
  it("names an OTA entry's parts, and leaves out the empty ones", () => {
    expect(entryLine(ota('yaml test fails: tabs', 'enable json: false', 'set the flag'))).toBe('12-01 12:42 Observation: yaml test fails: tabs | Thought: enable json: false | Action: set the flag');
    expect(entryLine(ota('', 'only a thought', ' '))).toBe('12-01 12:42 Thought: only a thought');
  });

  it("says the write guard's refusal in a few words, whichever guard; a tool's own failure as it was", () => {
    expect(entryLine(tool(`${BLOCKED}${GCC_WRITE_REASON} (writes .GCC/main.md)`, true))).toBe('12-01 12:42 Write .GCC/main.md → blocked by gctx: .GCC/ is written through the memory tools');
    expect(entryLine(tool(`${BLOCKED}${GIT_UNCOMMITTED_REASON}`, true))).toMatch(/→ blocked by gctx: it would overwrite memory not yet committed to git$/);
    expect(entryLine(tool('blocked: by the proxy', true))).toMatch(/→ failed: blocked: by the proxy$/);
    // Not refused if it did not fail: a file that quotes the reason, read back.
    expect(entryLine(tool(`${BLOCKED}${GCC_WRITE_REASON}`, false))).toMatch(/→ blocked: The files under/);
  });
});

describe('filesFitted', () => {
  const file = fc.record({ path: fc.string({ minLength: 1, maxLength: 120 }), added: fc.nat(99), removed: fc.nat(99) });

  it('keeps whole entries inside the room and counts every one it leaves out', () => {
    fc.assert(
      fc.property(fc.array(file, { maxLength: 40 }), fc.nat(30), fc.integer({ min: 60, max: 600 }), (files, hidden, room) => {
        const total = files.length + hidden;
        const text = filesFitted(files, room, total, '(context log)');
        const more = /, \+(\d+) more \(context log\)$/.exec(text);
        const left = more ? Number(more[1]) : 0;
        if (!files.length) return;
        // Something is always shown, inside the room; what is not is counted, never dropped.
        expect(left).toBeLessThanOrEqual(total - 1);
        if (!more) expect(files.length).toBe(total);
        expect(text.length).toBeLessThanOrEqual(room);
      }),
      { numRuns: 300 },
    );
  });

  it('says nothing more when everything fits', () => {
    const files = [{ path: 'a.ts', added: 1, removed: 0 }, { path: 'b.ts', added: 0, removed: 0 }];
    expect(filesFitted(files, 100)).toBe('a.ts (+1 -0), b.ts');
    expect(filesFitted(files, 100, 5, '(git status)')).toBe('a.ts (+1 -0), b.ts, +3 more (git status)');
    expect(filesFitted(files, 20, 2, '(x)')).toBe('a.ts (+1 -0), +1 more (x)');
  });
});
