/** The store reads every log back in id order, through the merge (stream.ts). */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GccEvent } from '../../src/events/types.js';
import { serialize } from '../../src/log/codec.js';
import { mergeById } from '../../src/store/stream.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { fresh } from './support.js';

afterAll(cleanup);

describe('reading every log back', () => {
  it('merges logs in id order, keeps an event two logs share once, and refuses one id with two contents', async () => {
    const dir = tempProject();
    const s = await fresh(dir);
    const ev = (n: number, text: string, seq: number): GccEvent => ({
      id: `${n.toString(16).padStart(12, '0')}0000000000`,
      seq,
      at: '2026-01-01T00:00:00.000Z',
      branch: 'main',
      type: 'ota.logged',
      data: { observation: text, thought: '', action: '' },
    });
    const l = s.layout;
    const write = (name: string, events: GccEvent[]) => {
      const path = l.segment(name);
      execFileSync('mkdir', ['-p', join(path, '..')]);
      writeFileSync(path, serialize(events));
    };
    write('2026-01/20260101T000000Z-aaaaaa.md', [ev(1, 'a', 1), ev(3, 'c', 2), ev(5, 'shared', 3)]);
    write('2026-01/20260101T000000Z-bbbbbb.md', [ev(2, 'b', 1), ev(4, 'd', 2), { ...ev(5, 'shared', 3) }]);
    const s2 = await fresh(dir);
    const seen: string[] = [];
    s2.stream((e) => seen.push((e.data as { observation: string }).observation));
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'shared']);
    write('2026-01/20260101T000000Z-cccccc.md', [ev(5, 'forged', 1)]);
    const s3 = await fresh(dir);
    expect(() => s3.stream(() => undefined)).toThrow(/different content/);
    expect(mergeById).toBeTypeOf('function');
  });
});
