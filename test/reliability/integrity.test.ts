/**
 * What a clone acknowledged stays what it was, or the memory says so. Damage at any byte of
 * the acknowledged prefix of a segment or of the local log — zeroed, a bit flipped, or the
 * file cut there — is E_CORRUPT on the next open, naming the file, with main.md untouched;
 * emptied, removed and shrunk logs likewise. Segments of older months are trusted by name
 * at open and read byte for byte by verify (and whenever a query reads them). Duplicate ids
 * across segments, and ids from the future or near the allowed clock skew.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import type { GccEvent } from '../../src/events/types.js';
import { parse, serialize } from '../../src/log/codec.js';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { git } from '../support/project.js';
import { LONG, openSegment, prng, seed, segmentsOf, TIMEOUT } from './helpers.js';

afterAll(cleanup);

const LOCAL_LOG = join('.GCC', '.local', 'local.md');

async function memory(): Promise<string> {
  const dir = tempProject('gcc-integrity-');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Keep what was acknowledged' });
  await m.execute({ type: 'commit', contribution: 'first milestone — ünïcödé' });
  await m.execute({ type: 'branch', name: 'exp', purpose: 'try' });
  await m.execute({ type: 'commit', contribution: 'on exp' });
  await m.execute({ type: 'switch', name: 'main' });
  m.close();
  return dir;
}

/** How Memory.open ends: the error, or null when it opened. */
async function openError(dir: string): Promise<GccError | null> {
  try {
    (await Memory.open(dir)).close();
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(GccError);
    return err as GccError;
  }
}

describe('damage at any byte of what was acknowledged', () => {
  it('zeroed, flipped or cut there: E_CORRUPT on the next open naming the file, main.md untouched', {
    timeout: TIMEOUT,
  }, async () => {
    const s = seed();
    const rng = prng(s);
    const dir = await memory();
    const mainMd = readFileSync(join(dir, '.GCC', 'main.md'));
    const counts: Record<string, number> = {};
    for (const rel of [openSegment(dir)!, LOCAL_LOG]) {
      const path = join(dir, rel);
      const original = readFileSync(path);
      // Every byte in the long run; in the default run a spread of positions, the first and
      // the last byte included.
      const step = Math.max(1, Math.floor(original.length / 40));
      const positions = LONG
        ? original.map((_, i) => i)
        : [
            ...new Set([
              0,
              original.length - 1,
              ...Array.from({ length: 40 }, (_, k) =>
                Math.min(original.length - 1, k * step + Math.floor(rng() * step)),
              ),
            ]),
          ];
      for (const pos of positions) {
        for (const how of ['zeroed', 'flipped', 'cut'] as const) {
          const damaged = Buffer.from(original);
          if (how === 'zeroed') damaged[pos] = 0;
          if (how === 'flipped') damaged[pos]! ^= 1 << Math.floor(rng() * 8);
          writeFileSync(path, how === 'cut' ? original.subarray(0, pos) : damaged);
          const e = await openError(dir);
          const at = `${rel} ${how} at byte ${pos} of ${original.length} (seed ${s})`;
          expect(e?.code, at).toBe('E_CORRUPT');
          expect(e?.file, at).toBe(rel);
          expect(readFileSync(join(dir, '.GCC', 'main.md')).equals(mainMd), at).toBe(true);
          counts[how] = (counts[how] ?? 0) + 1;
        }
      }
      // A refused open writes nothing, so the original bytes make the memory whole again.
      writeFileSync(path, original);
    }
    expect(await openError(dir)).toBeNull();
    console.log(
      `[reliability] acknowledged-prefix damage: ${JSON.stringify(counts)} (a segment and the local log), every one E_CORRUPT naming the file, main.md untouched`,
    );
    // The CLI: exit 2, the file named.
    const seg = openSegment(dir)!;
    truncateSync(join(dir, seg), 10);
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(seg);
    expect(gctx(dir, ['verify']).code).toBe(2);
    expect(gctx(dir, ['doctor']).code).toBe(2);
  });

  const CASES: [string, (dir: string) => void, RegExp][] = [
    ['the open segment emptied', (dir) => truncateSync(join(dir, openSegment(dir)!), 0), /acknowledged bytes/],
    ['the open segment removed', (dir) => rmSync(join(dir, openSegment(dir)!)), /vanished \(it held \d+ acknowledged/],
    // The final newline alone gone is a spacing edit, intact and repaired: test/store/intact.test.ts.
    ['the local log emptied', (dir) => truncateSync(join(dir, LOCAL_LOG), 0), /acknowledged bytes/],
    ['the local log removed', (dir) => rmSync(join(dir, LOCAL_LOG)), /vanished/],
    [
      'the local log shrunk by one entry',
      (dir) =>
        writeFileSync(join(dir, LOCAL_LOG), serialize(parse(readFileSync(join(dir, LOCAL_LOG))).events.slice(0, -1))),
      /acknowledged bytes/,
    ],
  ];
  for (const [what, damage, message] of CASES) {
    it(`${what}: E_CORRUPT naming it`, async () => {
      const dir = await memory();
      const rel = what.includes('local') ? LOCAL_LOG : openSegment(dir)!;
      const mainMd = readFileSync(join(dir, '.GCC', 'main.md'));
      damage(dir);
      const e = await openError(dir);
      expect(e?.code).toBe('E_CORRUPT');
      expect(e?.file).toBe(rel);
      expect(e?.message).toMatch(message);
      expect(e?.fix).toMatch(/doctor --repair/);
      expect(readFileSync(join(dir, '.GCC', 'main.md')).equals(mainMd)).toBe(true);
    });
  }

  // A long-lived process (an MCP server, the Pi extension) catches up before each operation
  // and read rather than opening again: the same damage is found there.
  const UNDER: [string, (dir: string) => void][] = [
    [
      'the open segment shrunk by an entry',
      (dir) =>
        truncateSync(join(dir, openSegment(dir)!), readFileSync(join(dir, openSegment(dir)!)).lastIndexOf('**[')),
    ],
    ['the open segment removed', (dir) => rmSync(join(dir, openSegment(dir)!))],
    ['the local log removed', (dir) => rmSync(join(dir, LOCAL_LOG))],
  ];
  for (const [what, damage] of UNDER) {
    it(`${what} under a long-lived process: its next operation and read are E_CORRUPT, nothing appended`, async () => {
      const dir = await memory();
      const rel = what.includes('local') ? LOCAL_LOG : openSegment(dir)!;
      const m = await Memory.open(dir);
      try {
        damage(dir);
        const e = await m.execute({ type: 'switch', name: 'exp' }).then(
          () => null,
          (err: unknown) => err as GccError,
        );
        expect(e?.code).toBe('E_CORRUPT');
        expect(e?.file).toBe(rel);
        expect(() => m.context({ level: 'branch' })).toThrow(/E_CORRUPT|vanished|acknowledged/);
      } finally {
        m.close();
      }
      expect((await openError(dir))?.code).toBe('E_CORRUPT');
    });
  }

  it('a segment of an older month: trusted by name at open, read byte for byte by verify and by any read of it', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = tempProject('gcc-months-');
    git(dir, 'init', '-q', '-b', 'main');
    const day = 24 * 3600 * 1000;
    // Three months of history: git seeing a segment makes the next append start a new one.
    for (const [ago, text] of [
      [100, 'in an old month'],
      [50, 'a month later'],
      [0, 'today'],
    ] as const) {
      const m = await Memory.open(dir, { create: true, now: () => new Date(Date.now() - ago * day) });
      await m.execute({ type: 'commit', contribution: text });
      m.close();
      git(dir, 'add', '.GCC/events');
    }
    // Segments as another clone's reach this one (no journal copy): damage stands.
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    const segs = segmentsOf(dir);
    expect(new Set(segs.map((s) => s.split('/')[2])).size, segs.join(' ')).toBe(3);
    const oldest = segs[0]!;
    const bytes = readFileSync(join(dir, oldest));
    const at = bytes.indexOf('in an old month');
    bytes[at] = 'I'.charCodeAt(0);
    writeFileSync(join(dir, oldest), bytes);
    // Open looks at the two newest months one by one, and at the set of segments of the rest.
    const m = await Memory.open(dir);
    try {
      expect(m.verify().map((p) => p.file)).toContain(oldest);
      let read: unknown = null;
      try {
        m.events();
      } catch (err) {
        read = err;
      }
      expect((read as GccError).code).toBe('E_CORRUPT');
      expect((read as GccError).file).toBe(oldest);
    } finally {
      m.close();
    }
    const v = gctx(dir, ['verify']);
    expect(v.code).toBe(2);
    expect(v.stderr + v.stdout).toContain(oldest);
    // Taking an older month's segment away is seen at open: the set of segments changed.
    rmSync(join(dir, oldest));
    git(dir, 'rm', '-q', '--cached', oldest);
    const e = await openError(dir);
    expect(e?.code).toBe('E_CORRUPT');
    expect(e?.file).toBe(oldest);
  });
});

describe('what git did, and what only looks like it', () => {
  /** A memory committed to git, and its one segment. */
  function committed(): { dir: string; seg: string } {
    const dir = tempProject('gcc-gitdid-');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.email', 't@example.invalid');
    git(dir, 'config', 'user.name', 'T');
    expect(gctx(dir, ['init']).code).toBe(0);
    expect(gctx(dir, ['commit', 'first milestone']).code).toBe(0);
    git(dir, 'add', '.GCC');
    git(dir, 'commit', '-qm', 'memory');
    return { dir, seg: segmentsOf(dir)[0]! };
  }
  const rewrite = (path: string) =>
    writeFileSync(
      path,
      serialize(
        parse(readFileSync(path)).events.map((e) =>
          e.type === 'commit.recorded' ? ({ ...e, data: { ...e.data, contribution: 'REWRITTEN' } } as GccEvent) : e,
        ),
      ),
    );

  it("a rewrite of acknowledged events staged with `git add` is not taken for git's doing: this clone's journal restores it", () => {
    const { dir, seg } = committed();
    rewrite(join(dir, seg));
    git(dir, 'add', seg);
    const r = gctx(dir, ['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`restored ${seg}`);
    expect(gctx(dir, ['context', '--branch']).stdout).toMatch(/first milestone/);
    // Another clone's segment (no journal copy): the damage is reported, with git's way back.
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    rewrite(join(dir, seg));
    git(dir, 'add', seg);
    const d = gctx(dir, ['status']);
    expect(d.code, d.stderr).toBe(2);
    expect(d.stderr).toContain(`git checkout HEAD -- ${seg}`);
    git(dir, 'checkout', 'HEAD', '--', seg);
    expect(gctx(dir, ['context', '--branch']).stdout).toMatch(/first milestone/);
  });

  it("a committed segment whose deletion is only staged (`git rm`) is not taken for git's doing", () => {
    const { dir, seg } = committed();
    git(dir, 'rm', '-q', seg);
    const r = gctx(dir, ['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`restored ${seg}`);
    expect(gctx(dir, ['context', '--branch']).stdout).toMatch(/first milestone/);
  });

  it("acknowledged events no commit holds are not taken for git's doing: a commit holding less of a segment (an append landed after `git add` read it), checked out over it", () => {
    const { dir } = committed();
    expect(gctx(dir, ['log', '--observation', 'one more']).code).toBe(0);
    const open = openSegment(dir)!;
    const staged = readFileSync(join(dir, open)).length;
    expect(gctx(dir, ['log', '--observation', 'written after git read the file']).code).toBe(0);
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: dir,
      input: readFileSync(join(dir, open)).subarray(0, staged),
      encoding: 'utf8',
    }).trim();
    git(dir, 'update-index', '--add', '--cacheinfo', `100644,${blob},${open}`);
    git(dir, 'commit', '-qm', 'what git staged');
    git(dir, 'checkout', '--', open);
    const r = gctx(dir, ['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`restored ${open}`);
    expect(gctx(dir, ['search', 'written after git read']).stdout).toMatch(/^1 match/);
    expect(gctx(dir, ['verify']).stdout).toMatch(/^OK: /);
  });

  it('a reset that leaves acknowledged events in a commit only the reflog reaches: E_CORRUPT naming the commit, whose checkout brings them back', () => {
    const { dir } = committed();
    expect(gctx(dir, ['commit', 'the milestone the reset drops']).code).toBe(0);
    git(dir, 'add', '.GCC');
    git(dir, 'commit', '-qm', 'more memory');
    const dropped = git(dir, 'rev-parse', 'HEAD').trim();
    const seg = git(dir, 'show', '--name-only', '--format=', 'HEAD')
      .split('\n')
      .find((f) => f.startsWith('.GCC/events/'))!;
    git(dir, 'reset', '-q', '--hard', 'HEAD~1');
    // This clone's own segment: its journal brings it back.
    const r = gctx(dir, ['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`restored ${seg}`);
    expect(gctx(dir, ['context', '--branch']).stdout).toMatch(/the milestone the reset drops/);
    // Without the journal (another clone's segment), the commit only the reflog reaches is named.
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    rmSync(join(dir, seg));
    const d = gctx(dir, ['status']);
    expect(d.code, d.stderr).toBe(2);
    expect(d.stderr).toContain(`git checkout ${dropped.slice(0, 12)} -- ${seg}`);
    git(dir, 'checkout', dropped.slice(0, 12), '--', seg);
    expect(gctx(dir, ['context', '--branch']).stdout).toMatch(/the milestone the reset drops/);
    expect(gctx(dir, ['verify']).stdout).toMatch(/^OK: /);
  });

  it('two segments swapped: the repair restores the committed one from git and keeps the events its bytes held, so nothing is lost', () => {
    const { dir, seg } = committed();
    for (const o of ['only in the open segment', 'also only there'])
      expect(gctx(dir, ['log', '--observation', o]).code).toBe(0);
    const open = openSegment(dir)!;
    const count = (): number => Number(/OK: (\d+) events/.exec(gctx(dir, ['verify']).stdout)?.[1]);
    const before = count();
    const [a, b] = [readFileSync(join(dir, seg)), readFileSync(join(dir, open))];
    writeFileSync(join(dir, seg), b);
    writeFileSync(join(dir, open), a);
    // Both this clone's own: restored from the journal.
    expect(gctx(dir, ['status']).code).toBe(0);
    expect(count()).toBe(before);
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    writeFileSync(join(dir, seg), b);
    writeFileSync(join(dir, open), a);
    expect(gctx(dir, ['status']).code).toBe(2);
    const r = gctx(dir, ['doctor', '--repair']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(count()).toBe(before + 2); // and a record of the repair of each
    for (const o of ['only in the open segment', 'also only there', 'first milestone'])
      expect(gctx(dir, ['search', o]).stdout).toContain(o.split(' ')[0]!);
  });

  it('with part of the ledger gone, the error names that file, and the repair takes a cut committed segment back from git rather than acknowledging it cut', () => {
    const { dir, seg } = committed();
    expect(gctx(dir, ['commit', 'second milestone']).code).toBe(0);
    git(dir, 'add', '.GCC');
    git(dir, 'commit', '-qm', 'more');
    const count = (): number => Number(/OK: (\d+) events/.exec(gctx(dir, ['verify']).stdout)?.[1]);
    const before = count();
    rmSync(join(dir, '.GCC', '.local', 'ledger.json.sealed'));
    truncateSync(join(dir, seg), readFileSync(join(dir, seg)).length - 40);
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ledger.json.sealed (part of what this clone acknowledged) is missing');
    expect(r.stderr).toContain('gctx doctor --repair');
    const fixed = gctx(dir, ['doctor', '--repair']);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(git(dir, 'status', '--porcelain', '--', seg)).toBe('');
    expect(count()).toBe(before + 1); // the record of the lost ledger
  });

  it("a checkout to a commit holding other bytes for a segment is git's doing: the memory is what it holds", () => {
    const { dir, seg } = committed();
    git(dir, 'checkout', '-q', '-b', 'other');
    rewrite(join(dir, seg));
    git(dir, 'commit', '-qam', 'their version');
    git(dir, 'checkout', '-q', 'main');
    expect(gctx(dir, ['status']).code).toBe(0);
    git(dir, 'checkout', '-q', 'other');
    const r = gctx(dir, ['context', '--branch']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/REWRITTEN/);
  });
});

/** A segment written by someone else (it arrives by git), with valid entries. */
function forge(dir: string, events: Partial<GccEvent>[], name = '2025-01/20250101T000000Z-f0f0f0.md'): string {
  const base = { at: '2025-01-01T00:00:00.000Z', branch: 'main' };
  const start = Date.parse('2025-01-01T00:00:00Z');
  const full = events.map(
    (e, i) =>
      ({ ...base, id: `${(start + i).toString(16).padStart(12, '0')}f0f0f0f0f0`, ...e, seq: i + 1 }) as GccEvent,
  );
  const rel = join('.GCC', 'events', name);
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), serialize(full));
  return rel;
}

const idAt = (ms: number) => `${ms.toString(16).padStart(12, '0')}abcdef0123`;
const ota = (observation: string) => ({ type: 'ota.logged' as const, data: { observation, thought: '', action: '' } });

describe('ids', () => {
  it('the same event in two segments is counted once; one id with two contents is E_CORRUPT from verify', async () => {
    const dir = await memory();
    const seg = openSegment(dir)!;
    const events = parse(readFileSync(join(dir, seg))).events;
    const count = async () => {
      const m = await Memory.open(dir);
      try {
        return m.events().length;
      } finally {
        m.close();
      }
    };
    const before = await count();
    const copy = join('.GCC', 'events', '2025-01', '20250101T000000Z-0a0a0a.md');
    mkdirSync(join(dir, copy, '..'), { recursive: true });
    writeFileSync(join(dir, copy), readFileSync(join(dir, seg)));
    expect(await count()).toBe(before);
    const m = await Memory.open(dir);
    expect(m.events().filter((e) => e.type === 'commit.recorded')).toHaveLength(2);
    expect(m.verify()).toEqual([]);
    m.close();
    // Another clone's copy where one event says something else under the same id.
    const other = '2025-01/20250101T000000Z-0b0b0b.md';
    const changed = events.map((e) =>
      e.type === 'commit.recorded' ? ({ ...e, data: { ...e.data, contribution: 'rewritten' } } as GccEvent) : e,
    );
    forge(dir, changed, other);
    const v = gctx(dir, ['verify']);
    expect(v.code).toBe(2);
    expect(v.stdout + v.stderr).toMatch(/appears in .* with different content/);
    const e = await openError(dir);
    expect(e?.code).toBe('E_CORRUPT');
    expect(e?.message).toMatch(/different content/);
  });

  it('an id more than a day ahead is refused as corruption, naming file and line', async () => {
    const dir = await memory();
    const rel = forge(dir, [
      ota('first'),
      { ...ota('from a clock a day and an hour fast'), id: idAt(Date.now() + 25 * 3600 * 1000) },
    ]);
    const e = await openError(dir);
    expect(e?.code).toBe('E_CORRUPT');
    expect(e?.file).toBe(rel);
    expect(e?.line).toBeGreaterThan(3);
    expect(e?.message).toMatch(/dated in the future/);
  });

  async function ahead(ms: number) {
    const dir = await memory();
    const forged = idAt(Date.now() + ms);
    forge(dir, [ota('first'), { ...ota('from a fast clock'), id: forged }]);
    const m = await Memory.open(dir);
    const own: string[] = [];
    for (let i = 0; i < 3; i++)
      own.push((await m.execute({ type: 'log', observation: `own ${i}`, thought: '', action: '' })).events[0]!.id);
    return { dir, m, forged, own };
  }

  it("an id 23 hours ahead is accepted, and this clone's next ids sort after it (they still grow)", async () => {
    const { dir, m, forged, own } = await ahead(23 * 3600 * 1000);
    try {
      expect(m.events().some((e) => e.id === forged)).toBe(true);
      expect([...own].sort()).toEqual(own);
      expect(new Set(own).size).toBe(3);
      // An event sorts after every one it could have read, whatever either clock said.
      for (const id of own) expect(id > forged).toBe(true);
    } finally {
      m.close();
    }
    const again = await Memory.open(dir);
    const later = (await again.execute({ type: 'log', observation: 'after reopening', thought: '', action: '' }))
      .events[0]!.id;
    expect(later > own[2]!).toBe(true);
    expect(again.events().filter((e) => own.includes(e.id))).toHaveLength(3);
    again.close();
  });

  it('after an id 23 hours ahead, the views still equal a rebuild', async () => {
    const { m } = await ahead(23 * 3600 * 1000);
    try {
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('an id five minutes ahead pulls its next ids past it', async () => {
    const { m, forged, own } = await ahead(5 * 60 * 1000);
    try {
      for (const id of own) expect(id > forged).toBe(true);
      expect([...own].sort()).toEqual(own);
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });
});
