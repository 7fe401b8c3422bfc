/**
 * log.md is trimmed once every LOG_WINDOW events of its branch, from the latest events this
 * process folded when it holds them all (engine/recent.ts), else from the logs. Whatever
 * mix of writers, the views must equal a rebuild.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evolve, replayer } from '../../src/decider/evolve.js';
import type { GccEvent } from '../../src/events/types.js';
import { Memory } from '../../src/engine/memory.js';
import { RecentEvents } from '../../src/engine/recent.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const ev = (n: number, branch = 'main'): GccEvent =>
  ({
    id: n.toString(16).padStart(22, '0'),
    seq: n,
    at: '2026-01-01T00:00:00.000Z',
    branch,
    type: 'ota.logged',
    data: { observation: `o${n}`, thought: 't', action: 'a' },
  }) as GccEvent;

describe('the ring of latest events', () => {
  it('answers only while it holds every event the state counts since it began', () => {
    const recent = new RecentEvents(4);
    let before = replayer().state();
    const feed = (events: GccEvent[], through = true) => {
      if (through) recent.add(before, events);
      before = evolve(before, events);
    };
    feed([ev(1), ev(2), ev(3)]);
    expect(recent.latest(before, 'main', 2)?.map((e) => e.seq)).toEqual([2, 3]);
    feed([ev(4), ev(5)]);
    expect(recent.latest(before, 'main', 4)?.map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    feed([ev(6)], false); // folded without passing the ring
    expect(recent.latest(before, 'main', 2)).toBeNull();
    feed([ev(7)]); // starts again from here, above everything folded before
    expect(recent.latest(before, 'main', 1)?.map((e) => e.seq)).toEqual([7]);
    expect(recent.latest(before, 'main', 2)).toBeNull();
  });

  it('starts again at an event that sorts before the last one it holds', () => {
    const recent = new RecentEvents(4);
    const before = replayer().state();
    recent.add(before, [ev(10), ev(11), ev(5), ev(12)]);
    const after = evolve(before, [ev(10), ev(11), ev(5), ev(12)]);
    // 11 sorts above 5 and is outside the new ring: only answers at or above it are trusted.
    expect(recent.latest(after, 'main', 2)).toBeNull();
    expect(recent.latest(after, 'main', 1)?.map((e) => e.seq)).toEqual([12]);
  });
});

describe('two writers of one clone, trimming in turn', () => {
  it('leave log.md equal to a rebuild at every trim', async () => {
    const dir = tempProject();
    const a = await Memory.open(dir, { create: true });
    const b = await Memory.open(dir);
    for (let i = 0; i < 130; i++) {
      const m = i % 3 === 0 ? b : a;
      await m.execute({ type: 'log', observation: `call ${i}`, thought: 't', action: 'a' });
      if (i % 25 === 24) expect(a.verify()).toEqual([]);
    }
    expect(a.verify()).toEqual([]);
    expect(readFileSync(join(dir, '.GCC', 'log.md'), 'utf8')).toMatch(/call 129/);
    a.close();
    b.close();
  });
});
