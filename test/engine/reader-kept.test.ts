/**
 * CONTEXT in a long-lived process keeps the newest logs' events decoded (engine/reader.ts): what
 * it answers after appends, its own and another process's, must be what a fresh open answers,
 * and a kept log whose bytes changed under it is still reported as damage.
 */
import type { Store } from '../../src/store/store.js';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { LOCAL } from '../../src/store/segments.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const LEVELS = [{ level: 'branch' }, { level: 'log', n: 30 }, { level: 'status' }, { level: 'metadata' }] as const;

async function answers(m: Memory): Promise<string[]> {
  return LEVELS.map((q) => m.context({ ...q }).text);
}

async function fresh(dir: string): Promise<string[]> {
  const m = await Memory.open(dir);
  try {
    return await answers(m);
  } finally {
    m.close();
  }
}

const entry = (i: number) => ({ type: 'log' as const, observation: `seen ${i}`, thought: `thought ${i}`, action: 'a' });

describe('kept events', () => {
  it('answer as a fresh open does after its own appends and another writer’s', async () => {
    const dir = tempProject('gcc-kept-');
    const m = await Memory.open(dir, { create: true });
    try {
      for (let i = 0; i < 12; i++) await m.execute(entry(i));
      await m.execute({ type: 'commit', contribution: 'first step' });
      expect(await answers(m)).toEqual(await fresh(dir));
      // Its own appends: the kept log grew.
      for (let i = 12; i < 20; i++) await m.execute(entry(i));
      expect(await answers(m)).toEqual(await fresh(dir));
      // Another process appends to the same memory.
      const other = await Memory.open(dir);
      for (let i = 20; i < 25; i++) await other.execute(entry(i));
      await other.execute({ type: 'commit', contribution: 'second step' });
      other.close();
      expect(await answers(m)).toEqual(await fresh(dir));
      expect(m.context({ level: 'log', n: 30 }).text).toContain('seen 24');
    } finally {
      m.close();
    }
  });

  it('does not hide a kept log whose acknowledged bytes changed', async () => {
    const dir = tempProject('gcc-kept-damage-');
    const m = await Memory.open(dir, { create: true });
    try {
      for (let i = 0; i < 5; i++) await m.execute(entry(i));
      m.context({ level: 'log' });
      const seg = [...(m as unknown as { store: Store }).store.logs.values()].find(
        (f) => f.name !== LOCAL && f.meta.size > 0,
      )!;
      const bytes = readFileSync(seg.path, 'utf8');
      writeFileSync(seg.path, bytes.replace('seen 3', 'seen 9'));
      // An edit a person makes comes later than the append: its time differs (the clock's grain is coarse).
      utimesSync(seg.path, new Date(), new Date(Date.now() + 60_000));
      expect(() => m.context({ level: 'log' })).toThrow();
    } finally {
      m.close();
    }
  });
});
