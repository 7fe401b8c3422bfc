import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import type { GccEvent } from '../../src/events/types.js';
import { parse, serialize } from '../../src/log/codec.js';
import { replay } from '../../src/projections/evolve.js';
import { layout } from '../../src/store/paths.js';
import { byId, Store } from '../../src/store/store.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

async function history(): Promise<string> {
  const dir = tempProject();
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'ship it' });
  await m.execute({ type: 'branch', name: 'x', purpose: 'try x' });
  await m.execute({ type: 'log', observation: 'o', thought: 't', action: 'a' });
  await m.execute({ type: 'commit', contribution: 'x works' });
  await m.execute({ type: 'merge', branch: 'x', synthesis: 'x is in' });
  await m.execute({ type: 'commit', contribution: 'main again' });
  m.close();
  return dir;
}

function allOnDisk(dir: string): GccEvent[] {
  const l = layout(dir);
  return [l.logOf('main'), l.logOf('x')].flatMap((f) => parse(readFileSync(f)).events).sort(byId);
}

describe('streaming every log from scratch', () => {
  it('visits every event once, in id order, and leaves each log to be read again on demand', async () => {
    const dir = await history();
    const store = new Store(layout(dir));
    const seen: GccEvent[] = [];
    expect(store.stream((e) => seen.push(e))).toEqual({ torn: [] });
    expect(seen).toEqual(allOnDisk(dir));
    expect(store.logs.get('x')!.seq).toBe(allOnDisk(dir).filter((e) => e.branch === 'x').length);
    expect(store.allEvents()).toEqual(seen);
    expect(store.catchUp().added).toEqual([]);
  });

  it('refuses logs out of id order, and opening then reads them the usual way', async () => {
    const dir = await history();
    const l = layout(dir);
    // A branch log whose first event predates the branch's creation: possible after
    // merging two clones by hand, impossible through gctx.
    const xs = parse(readFileSync(l.logOf('x'))).events;
    xs[0] = { ...xs[0]!, id: `000000000001${xs[0]!.id.slice(12)}` };
    writeFileSync(l.logOf('x'), serialize(xs));
    rmSync(l.cache, { recursive: true, force: true });

    expect(new Store(l).stream(() => {})).toBeNull();
    const m = await Memory.open(dir);
    try {
      expect(m.state).toEqual(replay(allOnDisk(dir)));
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('streams a refusal to read a damaged log as the same error and line as a whole read', async () => {
    const dir = await history();
    const l = layout(dir);
    const text = readFileSync(l.logOf('main'), 'utf8');
    writeFileSync(l.logOf('main'), text.replace('ship it', 'ship It'));
    rmSync(l.cache, { recursive: true, force: true });
    let whole: unknown;
    try {
      parse(readFileSync(l.logOf('main')), '.GCC/log.md');
    } catch (err) {
      whole = err;
    }
    await expect(Memory.open(dir)).rejects.toMatchObject({ code: 'E_CORRUPT', line: (whole as { line: number }).line });
  });
});
