import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../../src/adapters/hook/apply-patch.js';
import { canonicalCalls, fileStatesFrom, resultText } from '../../../src/adapters/hook/host-tools.js';

describe('Codex apply_patch', () => {
  it('reads adds, updates with a move, and deletes, each with both sides', () => {
    const body = [
      '*** Begin Patch',
      '*** Add File: a.md',
      '+one',
      '*** Update File: b.ts',
      '*** Move to: c.ts',
      '@@ class B',
      ' keep',
      '-old',
      '+new',
      '*** End of File',
      '*** Delete File: d.txt',
      '*** End Patch',
    ].join('\r\n');
    expect(parsePatch(body)).toEqual([
      { op: 'add', path: 'a.md', before: null, after: 'one' },
      { op: 'update', path: 'b.ts', moveTo: 'c.ts', before: 'keep\nold', after: 'keep\nnew' },
      { op: 'delete', path: 'd.txt', before: '', after: null },
    ]);
  });

  it('checks both ends of a move against the write guard', () => {
    const calls = canonicalCalls(
      'apply_patch',
      { command: '*** Begin Patch\n*** Update File: x.md\n*** Move to: .GCC/x.md\n@@\n-a\n+b\n*** End Patch' },
      ['gcc'],
    );
    expect(calls.map((c) => c.input.file_path)).toEqual(['x.md', '.GCC/x.md']);
  });

  it('treats text that is not a patch as an opaque call', () => {
    expect(canonicalCalls('apply_patch', { command: 'echo hi' }, ['gcc'])).toEqual([
      { tool: 'Other', input: { command: 'echo hi' } },
    ]);
    expect(fileStatesFrom('apply_patch', { command: 'nothing' }, undefined)).toBeUndefined();
  });
});

describe('Claude Code tool shapes', () => {
  it('maps edits, notebooks, MCP tools and unknown tools', () => {
    expect(
      canonicalCalls(
        'MultiEdit',
        { file_path: 'f', edits: [{ old_string: 'a', new_string: 'b', replace_all: true }] },
        ['gcc'],
      )[0],
    ).toEqual({
      tool: 'Edit',
      input: { file_path: 'f', edits: [{ old_string: 'a', new_string: 'b' }] },
    });
    expect(
      canonicalCalls('NotebookEdit', { notebook_path: 'n.ipynb', new_source: 'x' }, ['gcc'])[0]!.input.file_path,
    ).toBe('n.ipynb');
    expect(canonicalCalls('mcp__gcc__commit', {}, ['gcc'])[0]!.tool).toBe('Memory');
    expect(canonicalCalls('mcp__github__create_issue', {}, ['gcc'])[0]!.tool).toBe('Other');
    expect(canonicalCalls('TodoWrite', {}, ['gcc'])[0]!.tool).toBe('Other');
  });

  it('keeps results short: stdout and stderr, never the whole original file', () => {
    expect(resultText({ stdout: 'ok', stderr: 'warn', interrupted: false })).toEqual({
      text: 'ok\n[stderr]\nwarn',
      isError: false,
    });
    // Nothing the input already says (the file), no bulk, no flags at their usual value.
    const edit = resultText(
      {
        filePath: '/p/f.ts',
        originalFile: 'x'.repeat(10_000),
        structuredPatch: [],
        userModified: false,
        replaceAll: false,
      },
      '/p',
    );
    expect(edit.text).toBe('');
    expect(resultText({ type: 'create', filePath: '/p/src/f12.ts', content: 'x' }, '/p').text).toBe('');
    expect(
      resultText(
        { type: 'text', file: { filePath: '/p/a.ts', content: 'x', numLines: 1, startLine: 1, totalLines: 1 } },
        '/p',
      ).text,
    ).toBe('');
    expect(
      resultText(
        { type: 'text', file: { filePath: '/p/a.ts', content: 'x', numLines: 20, startLine: 40, totalLines: 300 } },
        '/p',
      ).text,
    ).toBe('{"file":{"numLines":20,"startLine":40,"totalLines":300}}');
    // Paths under the project are written relative to it, as inputs are.
    expect(
      resultText({ mode: 'files_with_matches', filenames: ['/p/src/a.ts', '/elsewhere/b.ts'], numFiles: 2 }, '/p').text,
    ).toBe('{"mode":"files_with_matches","filenames":["src/a.ts","/elsewhere/b.ts"],"numFiles":2}');
    expect(resultText({ userModified: true }, '/p').text).toBe('{"userModified":true}');
    expect(resultText([{ type: 'text', text: 'hi' }]).text).toBe('[{"text":"hi"}]');
  });
});
