/**
 * Opening from the snapshot reads only what was appended since — unless that is much (a pull
 * of a long history): then the logs are replayed, streamed, rather than the appended events
 * held at once. And the snapshot is ASCII, whatever the state holds.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import type { GccEvent } from '../../src/events/types.js';
import { serialize } from '../../src/log/codec.js';
import { LogFile } from '../../src/store/logfile.js';
import { type Layout, newSegmentName } from '../../src/store/paths.js';
import { resetWindowPeaks, windowPeaks } from '../../src/store/window.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);
afterEach(() => vi.restoreAllMocks());

/** Another clone's segment of `count` notes after `lastId`, as a pull brings it. */
function pulled(m: Memory, count: number, size: number): void {
  const t = Number.parseInt(m.state.lastId.slice(0, 12), 16) + 1;
  const events = Array.from({ length: count }, (_, i) => {
    const ms = t + i;
    return {
      id: ms.toString(16).padStart(12, '0') + 'ab'.repeat(5),
      seq: i + 1,
      at: new Date(ms).toISOString(),
      branch: 'main',
      type: 'ota.logged',
      data: { observation: `${i} `.padEnd(size, 'pulled text '), thought: '', action: '' },
    } as GccEvent;
  });
  const path = (m as unknown as { layout: Layout }).layout.segment(newSegmentName(new Date(t), 'abcdef'));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, serialize(events));
}

async function opened(dir: string): Promise<Memory> {
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'commit', contribution: 'Base — with an en dash and … an ellipsis' });
  await m.execute({ type: 'log', observation: 'a note', thought: '', action: '' });
  return m;
}

describe('an open after a pull', () => {
  it('folds a little appended since the snapshot from the snapshot', async () => {
    const dir = tempProject();
    const m = await opened(dir);
    pulled(m, 10, 200);
    m.close();
    const after = vi.spyOn(LogFile.prototype, 'readAfter');
    const again = await Memory.open(dir);
    expect(after).toHaveBeenCalled();
    expect(again.state.events).toBe(m.state.events + 10);
    again.close();
  });

  it('replays, streamed, when much was appended, and ends where a replay from scratch does', async () => {
    const dir = tempProject();
    const m = await opened(dir);
    // About 6 MiB of another clone's notes.
    pulled(m, 6_000, 500);
    m.close();
    const after = vi.spyOn(LogFile.prototype, 'readAfter');
    resetWindowPeaks();
    const again = await Memory.open(dir);
    expect(after).not.toHaveBeenCalled();
    expect(windowPeaks.reads).toBeGreaterThan(10);
    expect(again.state.events).toBe(m.state.events + 6_000);
    const state = again.state;
    again.close();
    rmSync(join(dir, '.GCC', '.local', 'cache'), { recursive: true, force: true });
    const scratch = await Memory.open(dir);
    expect(scratch.state).toEqual(state);
    expect(scratch.verify()).toEqual([]);
    scratch.close();
  });
});

describe('the snapshot', () => {
  it('is written as ASCII and reads back what the state holds', async () => {
    const dir = tempProject();
    const m = await opened(dir);
    const state = m.state;
    m.close();
    const bytes = readFileSync(join(dir, '.GCC', '.local', 'cache', 'snapshot.json'));
    expect(isAscii(bytes)).toBe(true);
    expect(bytes.toString('latin1')).toContain('\\u2014');
    const again = await Memory.open(dir);
    expect(again.state).toEqual(state);
    expect(again.state.branches.main!.last?.contribution).toContain('— with an en dash and …');
    again.close();
  });
});

describe('a closing process', () => {
  const snapshotOf = (dir: string) =>
    JSON.parse(readFileSync(join(dir, '.GCC', '.local', 'cache', 'snapshot.json'), 'utf8')) as {
      state: { lastId: string };
    };

  it('that appended an event to a small memory writes the snapshot: the next open folds nothing from the logs', async () => {
    const dir = tempProject();
    (await opened(dir)).close();
    for (let i = 0; i < 3; i++) {
      const m = await Memory.open(dir);
      await m.execute({ type: 'log', observation: `hook call ${i}`, thought: '', action: '' });
      m.close();
      expect(snapshotOf(dir).state.lastId).toBe(m.state.lastId);
    }
    const after = vi.spyOn(LogFile.prototype, 'readAfter');
    const again = await Memory.open(dir);
    expect(after.mock.results.flatMap((r) => r.value as GccEvent[])).toEqual([]);
    again.close();
  });

  it('leaves a large snapshot as it is for a few events, and writes it once enough were appended', async () => {
    const dir = tempProject();
    const m = await opened(dir);
    // A state of some size (a snapshot of about 200 KB): long objectives, each held in it.
    for (let i = 0; i < 70; i++)
      await m.execute({
        type: 'roadmap',
        action: 'add',
        target: `Objective ${i}: ${'a goal worth keeping in view '.repeat(100)}`,
      });
    m.close();
    const big = snapshotOf(dir).state.lastId;
    const one = await Memory.open(dir);
    await one.execute({ type: 'log', observation: 'one call', thought: '', action: '' });
    one.close();
    expect(snapshotOf(dir).state.lastId, 'one event against a large snapshot: not written').toBe(big);
    const many = await Memory.open(dir);
    for (let i = 0; i < 40; i++) await many.execute({ type: 'log', observation: `call ${i}`, thought: '', action: '' });
    many.close();
    expect(snapshotOf(dir).state.lastId).toBe(many.state.lastId);
  });
});

describe("a snapshot that is not this clone's own", () => {
  it('copied with the memory, or committed by someone, with a state of its own: never used, whatever it claims', async () => {
    const dir = tempProject();
    const m = await opened(dir);
    m.close();
    const copy = join(tempProject(), 'copy');
    cpSync(dir, copy, { recursive: true });
    const snap = join(copy, '.GCC', '.local', 'cache', 'snapshot.json');
    writeFileSync(
      snap,
      readFileSync(snap, 'latin1').replaceAll('Base \\u2014 with an en dash', 'FORGED \\u2014 with an en dash'),
      'latin1',
    );
    const again = await Memory.open(copy);
    expect(again.context({ level: 'status' }).text).toContain('Base — with an en dash');
    expect(again.context({ level: 'status' }).text).not.toContain('FORGED');
    again.close();
    // The copy's own snapshot, written as it closed, is used from then on.
    const after = vi.spyOn(LogFile.prototype, 'readAfter');
    const third = await Memory.open(copy);
    expect(third.state.events).toBe(m.state.events);
    expect(after).toHaveBeenCalled();
    third.close();
  });
});
