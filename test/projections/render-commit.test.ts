/** commit.md's entries (src/projections/render-commit.ts): a long list of files says how many it left out. */
import { describe, expect, it } from 'vitest';
import type { EventOf, GccEvent } from '../../src/events/types.js';
import { FILES_ROOM, renderProse } from '../../src/log/prose.js';
import { renderCommit } from '../../src/projections/render-commit.js';

const at = '2026-12-01T12:42:00.000Z';
const files = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    path: `src/some/deep/folder/module_number_${i + 1}.ts`,
    added: i % 3,
    removed: 0,
  }));
const commit = (n: number) =>
  ({
    id: 'x',
    seq: 1,
    at,
    branch: 'main',
    type: 'commit.recorded',
    data: {
      id: 'abcdef1',
      label: 'C001',
      title: 'many files',
      contribution: 'many files',
      purpose: 'p',
      previous: 'none',
      files: files(n),
    },
  }) as EventOf<'commit.recorded'>;
const filesLine = (text: string, name: string) =>
  text
    .split('\n')
    .find((l) => l.startsWith(`- **${name}**: `))!
    .slice(`- **${name}**: `.length);

describe('renderCommit', () => {
  it('lists every file that fits and counts the rest', () => {
    const line = filesLine(renderCommit(commit(300)), 'Files touched');
    const more = /, \+(\d+) more$/.exec(line);
    expect(more).not.toBeNull();
    const shown = line.slice(0, more!.index).split(', ');
    expect(shown.length + Number(more![1])).toBe(300);
    expect(shown.every((s) => /^src\/some\/deep\/folder\/module_number_\d+\.ts( \(\+\d -0\))?$/.test(s))).toBe(true);
    expect(line.length).toBeLessThanOrEqual(FILES_ROOM);
  });

  it('lists a short list whole, and says when none were recorded', () => {
    expect(filesLine(renderCommit(commit(2)), 'Files touched')).toBe(
      'src/some/deep/folder/module_number_1.ts, src/some/deep/folder/module_number_2.ts (+1 -0)',
    );
    expect(filesLine(renderCommit(commit(0)), 'Files touched')).toBe('(none recorded)');
  });
});

describe('a tool call in the log', () => {
  it('counts the files it leaves out', () => {
    const e = {
      id: 'x',
      seq: 1,
      at,
      branch: 'main',
      type: 'tool.recorded',
      data: { tool: 'Edit', input: 'many', result: 'ok', isError: false, files: files(300) },
    } as GccEvent;
    expect(filesLine(renderProse(e), 'Files')).toMatch(/module_number_\d+\.ts( \(\+\d -0\))?, \+\d+ more$/);
  });
});
