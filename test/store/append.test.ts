/**
 * Appends: to this clone's one open segment, rotation (size, and once git has seen the
 * segment), the local log, and what the ledger acknowledges.
 */
import { appendFileSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SEGMENT_MAX } from '../../src/store/append.js';
import { readLedger } from '../../src/store/ledger.js';
import { layout } from '../../src/store/paths.js';
import { LOCAL, Store } from '../../src/store/store.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { append, fresh, git, ota } from './support.js';

afterAll(cleanup);

describe('appends', () => {
  it('go to one open segment, with gapless sequences and growing ids, and are acknowledged in the ledger', async () => {
    const s = await fresh();
    const a = await append(s, [ota('one'), ota('two')]);
    const b = await append(s, [ota('three')]);
    expect([...a, ...b].map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(a[0]!.more).toBe(1);
    expect([...a, ...b].map((e) => e.id)).toEqual([...[...a, ...b].map((e) => e.id)].sort());
    const names = readdirSync(s.layout.events, { recursive: true }).filter((n) => String(n).endsWith('.md'));
    expect(names).toHaveLength(1);
    const ledger = readLedger(s.layout.ledger)!;
    expect(ledger.open).toBe(String(names[0]));
    expect(ledger.logs[String(names[0])]).toMatchObject({ seq: 3 });
  });

  it('local events go to the local log, never to a segment', async () => {
    const s = await fresh();
    await append(s, [{ type: 'branch.switched', data: { to: 'main' }, branch: 'main' }], 'local');
    expect(readFileSync(s.layout.localLog, 'utf8')).toMatch(/Switched to main/);
    expect(() => readdirSync(s.layout.events)).toThrow();
    expect(s.logs.get(LOCAL)!.meta.seq).toBe(1);
  });

  it('a full segment is left for a new one', async () => {
    const s = await fresh();
    const big = 'x'.repeat(SEGMENT_MAX / 4);
    for (let i = 0; i < 5; i++) await append(s, [ota(big)]);
    const names = readdirSync(s.layout.events, { recursive: true }).filter((n) => String(n).endsWith('.md'));
    expect(names.length).toBeGreaterThanOrEqual(2);
  });

  it('a process that did not see the open segment fill and rotate reads it to its end, and the ledger never vouches for bytes unread', async () => {
    const { Memory } = await import('../../src/engine/memory.js');
    const dir = tempProject('gcc-store-rotate-');
    const a = await Memory.open(dir, { create: true });
    const b = await Memory.open(dir);
    await a.execute({ type: 'log', observation: 'a first', thought: 't', action: 'x' });
    const fromB: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await b.execute({
        type: 'log',
        observation: `b ${i} ${'y'.repeat(400_000)}`,
        thought: 't',
        action: 'x',
      });
      fromB.push(...r.events.map((e) => e.id));
    }
    const ledgerOf = (m: object) => (m as { store: Store }).store.ledger;
    expect(ledgerOf(b).open).not.toBe(ledgerOf(a).open);
    await a.execute({ type: 'log', observation: 'a after the rotation', thought: 't', action: 'x' });
    const seen = new Set(a.events().map((e) => e.id));
    expect(fromB.filter((id) => !seen.has(id))).toEqual([]);
    a.close();
    b.close();
    const again = await Memory.open(dir);
    const all = new Set(again.events().map((e) => e.id));
    expect(fromB.filter((id) => !all.has(id))).toEqual([]);
    expect(again.verify()).toEqual([]);
    again.close();
  });

  it('once git has seen the open segment (staged or committed), the next append starts another', async () => {
    const dir = tempProject();
    git(dir, 'init', '-q', '-b', 'main');
    const s = await fresh(dir);
    await append(s, [ota('before the commit')]);
    const first = readLedger(s.layout.ledger)!.open!;
    await append(s, [ota('still before')]);
    expect(readLedger(s.layout.ledger)!.open).toBe(first);
    git(dir, 'add', '.GCC/events');
    await append(s, [ota('after staging')]);
    const second = readLedger(s.layout.ledger)!.open!;
    expect(second).not.toBe(first);
    // The staged segment was never touched again: what git holds is what the file holds.
    expect(git(dir, 'diff', '--stat', '--', '.GCC/events')).toBe('');
  });

  it('while a git command writes the index (`git add` reading the files), the open segment is left for a new one, once per command', async () => {
    const dir = tempProject();
    git(dir, 'init', '-q', '-b', 'main');
    const s = await fresh(dir);
    await append(s, [ota('before git starts')]);
    const first = readLedger(s.layout.ledger)!.open!;
    const lock = join(dir, '.git', 'index.lock');
    writeFileSync(lock, '');
    await append(s, [ota('while git reads the files')]);
    const second = readLedger(s.layout.ledger)!.open!;
    expect(second).not.toBe(first);
    await append(s, [ota('still while git reads them')]);
    expect(readLedger(s.layout.ledger)!.open, 'one new segment for one git command').toBe(second);
    // A lock a git that died left behind (older than any git command takes) is not one at work.
    utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const t = new Store(layout(dir));
    t.check(Date.now());
    await append(t, [ota('another process, beside a stale lock')]);
    expect(readLedger(s.layout.ledger)!.open).toBe(second);
    rmSync(lock);
  });

  it('never appends to a segment that is not as this clone left it: the next append starts another, and the change is reported', async () => {
    const dir = tempProject();
    const s = await fresh(dir);
    await append(s, [ota('one')]);
    const open = readLedger(s.layout.ledger)!.open!;
    appendFileSync(s.layout.segment(open), 'stray text');
    await s.withLock(() => s.append([ota('two')], 'shared', '', new Date()));
    expect(readLedger(s.layout.ledger)!.open).not.toBe(open);
    expect(readFileSync(s.layout.segment(open), 'utf8')).toMatch(/stray text$/);
    expect(() => new Store(layout(dir)).check(Date.now())).toThrow(/not an entry/);
  });

  it('a log changed between the look under the lock and the write: E_CONFLICT, and the file is left exactly as it was', async () => {
    const s = await fresh();
    await append(s, [ota('one')]);
    const f = s.local;
    await s.withLock(() => s.append([ota('first local')], 'local', '', new Date()));
    for (const change of ['grown', 'cut'] as const) {
      // What another writer did after this process last looked: known to it as before.
      const before = f.meta.size;
      if (change === 'grown') appendFileSync(f.path, 'bytes another writer added\n');
      else truncateSync(f.path, before - 5);
      const disk = readFileSync(f.path);
      const e = await s
        .withLock(() => f.append('**[OTA-999]** a batch\n', []))
        .then(
          () => null,
          (err: unknown) => err as { code?: string },
        );
      expect(e?.code, change).toBe('E_CONFLICT');
      expect(readFileSync(f.path).equals(disk), `${change}: not a byte of the batch left`).toBe(true);
      expect(f.meta.size).toBe(before);
      writeFileSync(f.path, disk.subarray(0, before));
    }
  });
});

describe('the size of an entry', () => {
  it('an event whose entry would pass the largest a reader takes is refused before anything is written; one under it is written whole', async () => {
    const { Memory } = await import('../../src/engine/memory.js');
    const dir = tempProject();
    const m = await Memory.open(dir, { create: true });
    const before = readdirSync(join(dir, '.GCC', 'events'), { recursive: true })
      .map(String)
      .sort();
    const sizes = () =>
      readdirSync(join(dir, '.GCC', 'events'), { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => readFileSync(join(d.parentPath, d.name)).length);
    const written = sizes();
    // Three fields at their cap, each character escaped in the JSON: over 16 MiB together.
    const big = '<'.repeat(1 << 20);
    await expect(m.execute({ type: 'log', observation: big, thought: big, action: big })).rejects.toThrow(
      /E_INVALID_ARGUMENT|at most 16 MiB/,
    );
    expect(
      readdirSync(join(dir, '.GCC', 'events'), { recursive: true })
        .map(String)
        .sort(),
    ).toEqual(before);
    expect(sizes()).toEqual(written);
    await m.execute({ type: 'log', observation: big, thought: 'short', action: 'short' });
    m.close();
    const again = await Memory.open(dir);
    expect(again.context({ level: 'log', n: 1 }, { budget: 100 }).text).toMatch(
      /Log of main, newest first: entries 2 to 2 of 2/,
    );
    again.close();
  });
});
