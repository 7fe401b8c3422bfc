/**
 * The store: appends to this clone's own segment, rotation (size, and once git has seen the
 * segment), the local log, ids, the ledger, and reading every log back in id order.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GccEvent, Placed } from '../../src/events/types.js';
import { serialize } from '../../src/log/codec.js';
import { readLedger } from '../../src/store/ledger.js';
import { layout } from '../../src/store/paths.js';
import { mergeById } from '../../src/store/stream.js';
import { LOCAL, nextId, SEGMENT_MAX, Store } from '../../src/store/store.js';
import { scanNewest } from '../../src/engine/reader.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const ota = (text: string, branch = 'main'): Placed => ({ type: 'ota.logged', data: { observation: text, thought: '', action: '' }, branch });
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

async function fresh(dir = tempProject()): Promise<Store> {
  const s = new Store(layout(dir));
  s.check(Date.now());
  return s;
}

async function append(s: Store, events: Placed[], where: 'shared' | 'local' = 'shared'): Promise<GccEvent[]> {
  return s.withLock(() => {
    let last = '';
    for (const f of s.logs.values()) if (f.meta.lastId > last) last = f.meta.lastId;
    s.catchUp(last);
    return s.append(events, where, last, new Date());
  });
}

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
      const r = await b.execute({ type: 'log', observation: `b ${i} ${'y'.repeat(400_000)}`, thought: 't', action: 'x' });
      fromB.push(...r.events.map((e) => e.id));
    }
    expect(b.store.ledger.open).not.toBe(a.store.ledger.open);
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
});

describe('ids', () => {
  it('grow past the newest id seen, unless that id runs far ahead of the clock', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    const near = (now + 60_000).toString(16).padStart(12, '0') + '0000000000';
    const far = (now + 86_400_000).toString(16).padStart(12, '0') + '0000000000';
    expect(nextId(near, now) > near).toBe(true);
    const mine = nextId(far, now);
    expect(Number.parseInt(mine.slice(0, 12), 16)).toBe(now);
    // This clone's own ids always grow.
    expect(nextId('', now, mine) > mine).toBe(true);
  });
});

describe('reading every log back', () => {
  it('merges logs in id order, keeps an event two logs share once, and refuses one id with two contents', async () => {
    const dir = tempProject();
    const s = await fresh(dir);
    const ev = (n: number, text: string, seq: number): GccEvent => ({ id: `${n.toString(16).padStart(12, '0')}0000000000`, seq, at: '2026-01-01T00:00:00.000Z', branch: 'main', type: 'ota.logged', data: { observation: text, thought: '', action: '' } });
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

describe('a log new to this clone', () => {
  const ev = (n: number, text: string, seq: number, more?: number): GccEvent => ({ id: `${n.toString(16).padStart(12, '0')}0000000000`, seq, at: '2026-01-01T00:00:00.000Z', branch: 'main', type: 'ota.logged', data: { observation: text, thought: '', action: '' }, ...(more ? { more } : {}) });
  const NAME = '2026-01/20260101T000000Z-dddddd.md';
  function withSegment(text: string): string {
    const dir = tempProject();
    const path = layout(dir).segment(NAME);
    execFileSync('mkdir', ['-p', join(path, '..')]);
    writeFileSync(path, text);
    return dir;
  }

  it('is read once, by the replay, and ends up known exactly as a log read whole on open', async () => {
    const dir = withSegment(serialize([ev(1, 'a', 1), ev(2, 'b', 2, 1), ev(3, 'c', 3)]));
    const s = await fresh(dir);
    const f = s.logs.get(NAME)!;
    expect([f.unread, f.meta.size, f.meta.firstId]).toEqual([true, 0, ev(1, '', 0).id]);
    const seen: string[] = [];
    s.stream((e) => seen.push((e.data as { observation: string }).observation));
    expect(seen).toEqual(['a', 'b', 'c']);
    const eager = new Store(layout(dir));
    eager.check(Date.now(), []); // collecting every damage reads each log on the spot
    expect(eager.logs.get(NAME)!.unread).toBe(false);
    expect(f.unread).toBe(false);
    expect(f.meta).toEqual(eager.logs.get(NAME)!.meta);
  });

  it('damaged past its first entry fails the replay as it fails a check, naming the file', async () => {
    // Past the first bytes read on open (a smaller file is checked whole then).
    const good = serialize(Array.from({ length: 100 }, (_, i) => ev(i + 1, i === 98 ? 'b' : 'x'.repeat(1000), i + 1)));
    const dir = withSegment(good.replace('"observation":"b"', '"observation":"B"'));
    const s = await fresh(dir);
    expect(s.logs.get(NAME)!.unread).toBe(true);
    expect(() => s.stream(() => undefined)).toThrow(expect.objectContaining({ code: 'E_CORRUPT', file: expect.stringContaining('dddddd') }));
    const damage: { code: string }[] = [];
    new Store(layout(dir)).check(Date.now(), damage as never);
    expect(damage.map((d) => d.code)).toEqual(['E_CORRUPT']);
  });

  it('ending in another writer\'s incomplete entry is folded up to it, with a warning once read', async () => {
    const whole = serialize([ev(1, 'a', 1), ev(2, 'b', 2)]);
    const dir = withSegment(whole + serialize([ev(3, 'c', 3)]).slice(0, 40));
    const s = await fresh(dir);
    const seen: number[] = [];
    s.stream((e) => seen.push(e.seq));
    expect(seen).toEqual([1, 2]);
    expect(s.logs.get(NAME)!.meta.size).toBe(Buffer.byteLength(whole));
    expect(s.warnings.join('\n')).toMatch(/dddddd\.md ends in an incomplete entry that this clone did not write/);
  });

  it('replaced between the open and the replay is refused, never folded out of order', async () => {
    const dir = withSegment(serialize([ev(5, 'late', 1)]));
    const s = await fresh(dir);
    writeFileSync(layout(dir).segment(NAME), serialize([ev(1, 'early', 1)]));
    expect(() => s.stream(() => undefined)).toThrow(/changed while it was read/);
  });

  it('whose first batch does not fit the first bytes read is read whole on open', async () => {
    const big = 'x'.repeat(40_000);
    const dir = withSegment(serialize([ev(1, big, 1, 1), ev(2, big, 2)]));
    const s = await fresh(dir);
    const f = s.logs.get(NAME)!;
    expect([f.unread, f.meta.seq]).toEqual([false, 2]);
  });
});

describe('commit labels per log', () => {
  const commit = (label: string, branch = 'main'): Placed =>
    ({ type: 'commit.recorded', branch, data: { id: label.toLowerCase().padEnd(7, '0').slice(0, 7).replace(/[^0-9a-f]/g, 'a'), label, title: label, contribution: label, purpose: 'p', previous: '', files: [] } }) as Placed;

  it('are kept as a range per branch, acknowledged in the ledger, and let a lookup by label skip logs that cannot hold it', async () => {
    const s = await fresh();
    const big = 'x'.repeat(SEGMENT_MAX / 3);
    await append(s, [commit('C001'), commit('C002'), ota(big)]);
    await append(s, [ota(big), ota(big)]); // the segment fills: the next commits go to another
    await append(s, [commit('C003'), commit('C004')]);
    const segs = [...s.logs.values()].filter((f) => f.name !== LOCAL && f.meta.size > 0);
    expect(segs.length).toBeGreaterThanOrEqual(2);
    expect(segs.map((f) => f.meta.labels?.main)).toEqual([[1, 2], [3, 4]]);
    expect(Object.values(readLedger(s.layout.ledger)!.logs).map((e) => e.labels?.main).filter(Boolean)).toEqual([[1, 2], [3, 4]]);
    const read: string[] = [];
    scanNewest(s, { branch: 'main', label: 1 }, (e) => (read.push(e.id), true));
    expect(read.length).toBe(segs[0]!.meta.seq); // the first segment's events only
  });

  it('a ledger written before labels were kept is still trusted: lookups read every log of the branch', async () => {
    const dir = tempProject();
    const s = await fresh(dir);
    await append(s, [commit('C001')]);
    const raw = JSON.parse(readFileSync(s.layout.ledger, 'utf8'));
    for (const e of Object.values(raw.logs) as { labels?: unknown }[]) delete e.labels;
    writeFileSync(s.layout.ledger, JSON.stringify(raw));
    const again = await fresh(dir);
    const f = [...again.logs.values()].find((x) => x.meta.size > 0)!;
    expect(f.meta.labels).toBeUndefined();
    const found: string[] = [];
    scanNewest(again, { branch: 'main', label: 1 }, (e) => (found.push(e.type), true));
    expect(found).toEqual(['commit.recorded']);
  });
});

describe('the size of an entry', () => {
  it('an event whose entry would pass the largest a reader takes is refused before anything is written; one under it is written whole', async () => {
    const { Memory } = await import('../../src/engine/memory.js');
    const dir = tempProject();
    const m = await Memory.open(dir, { create: true });
    const before = readdirSync(join(dir, '.GCC', 'events'), { recursive: true }).map(String).sort();
    const sizes = () => readdirSync(join(dir, '.GCC', 'events'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => readFileSync(join(d.parentPath, d.name)).length);
    const written = sizes();
    // Three fields at their cap, each character escaped in the JSON: over 16 MiB together.
    const big = '<'.repeat(1 << 20);
    await expect(m.execute({ type: 'log', observation: big, thought: big, action: big })).rejects.toThrow(/E_INVALID_ARGUMENT|at most 16 MiB/);
    expect(readdirSync(join(dir, '.GCC', 'events'), { recursive: true }).map(String).sort()).toEqual(before);
    expect(sizes()).toEqual(written);
    await m.execute({ type: 'log', observation: big, thought: 'short', action: 'short' });
    m.close();
    const again = await Memory.open(dir);
    expect(again.context({ level: 'log', n: 1 }, { budget: 100 }).text).toMatch(/Log of main, newest first: entries 2 to 2 of 2/);
    again.close();
  });
});
