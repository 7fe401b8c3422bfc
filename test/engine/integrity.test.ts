import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { FullRebuild } from '../../src/engine/views.js';
import { serialize } from '../../src/log/codec.js';
import type { GccEvent } from '../../src/events/types.js';
import { readLedger } from '../../src/store/ledger.js';
import { signatureOf } from '../../src/store/log-meta.js';
import { LOCAL } from '../../src/store/store.js';
import { gctx } from '../support/cli.js';
import { git, gitRepo, initialized, ok, segments, template } from '../support/project.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);
afterEach(() => vi.restoreAllMocks());

function build(dir: string): void {
  ok(dir, 'init');
  ok(dir, 'roadmap', 'add', 'Parse configs');
  ok(dir, 'commit', 'first milestone');
  ok(dir, 'commit', 'second milestone');
}
const plain = template(build);
const inGit = template((dir) => build(gitRepo(dir)));
const project = (withGit = false): string => (withGit ? inGit() : plain());

describe('damage is reported, never silently accepted', () => {
  // Zeros over acknowledged bytes are corruption (test/reliability/integrity.test.ts); past them they are a torn tail.
  it('zeros past the acknowledged bytes are a torn tail, set aside', () => {
    const dir = project();
    const [seg] = segments(dir);
    const size = statSync(seg!).size;
    writeFileSync(seg!, Buffer.concat([readFileSync(seg!), Buffer.alloc(64)]));
    expect(gctx(dir, ['status']).code).toBe(0);
    expect(statSync(seg!).size).toBe(size);
    expect(readdirSync(join(dir, '.GCC', 'quarantine'))).toHaveLength(1);
  });

  it('a fresh clone (nothing acknowledged yet) opens whatever it finds', () => {
    const dir = project();
    for (const f of readdirSync(join(dir, '.GCC', '.local')))
      if (f.startsWith('ledger')) rmSync(join(dir, '.GCC', '.local', f));
    rmSync(join(dir, '.GCC', '.local', 'local.md'), { force: true });
    expect(ok(dir, 'status')).toMatch(/Parse configs/);
  });
});

describe('what git put there is the memory as it now stands', () => {
  it('a committed segment deleted by hand is restored from git by doctor --repair', () => {
    const dir = project(true);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'memory');
    const [seg] = segments(dir);
    rmSync(seg!);
    // This clone's own: restored from its journal as it opens.
    expect(gctx(dir, ['status']).stderr).toMatch(/restored .* from this clone's journal/);
    // Without a journal (another clone's segment), git holds it.
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    rmSync(seg!);
    expect(gctx(dir, ['status']).stderr).toMatch(/git checkout -- /);
    expect(gctx(dir, ['doctor', '--repair']).stdout).toMatch(/restored .* from git/);
    expect(ok(dir, 'context', '--branch')).toMatch(/second milestone/);
    expect(ok(dir, 'verify')).toMatch(/^OK/);
  });
});

describe("git tracking .GCC/.local/ (this clone's own) is reported", () => {
  it('verify and doctor name it and say how to untrack it; once untracked, verify is clean', () => {
    const dir = project(true);
    git(dir, 'add', '-A');
    git(dir, 'add', '-f', '.GCC/.local/ledger.json');
    git(dir, 'commit', '-qm', 'memory, with what is never committed');
    const v = gctx(dir, ['verify']);
    expect(v.code).toBe(2);
    expect(v.stdout).toMatch(
      /^\.GCC\/\.local: git tracks 1 file here \(\.GCC\/\.local\/ledger\.json\).*`git rm -r --cached \.GCC\/\.local`/m,
    );
    const d = gctx(dir, ['doctor']);
    expect(d.code).toBe(2);
    expect(d.stdout).toMatch(/FAIL integrity: .*\.GCC\/\.local git tracks 1 file.*git rm -r --cached \.GCC\/\.local/);
    git(dir, 'rm', '-r', '-q', '--cached', '.GCC/.local');
    expect(ok(dir, 'verify')).toMatch(/^OK/);
  });
});

describe('repair records every loss', () => {
  it('keeps the entries that still read, sets the damaged file aside and records the loss as an event', () => {
    const dir = project();
    const [seg] = segments(dir);
    const text = readFileSync(seg!, 'utf8');
    writeFileSync(seg!, text.replace('first milestone', 'first milestonE'));
    expect(gctx(dir, ['status']).code).toBe(2);
    const r = gctx(dir, ['doctor', '--repair']);
    expect(r.stdout).toMatch(/salvaged \d+ events?/);
    expect(ok(dir, 'verify')).toMatch(/^OK/);
    const log = ok(dir, 'context', '--log', '50');
    expect(log).toMatch(/Repaired .*: \d+ events? lost/);
    expect(log).toMatch(/second milestone/);
    expect(readdirSync(join(dir, '.GCC', 'aside')).length).toBeGreaterThan(0);
  });
});

describe('events read from a log are untrusted input', () => {
  const forge = (dir: string, events: Partial<GccEvent>[]) => {
    const base = { seq: 1, at: '2026-01-01T00:00:00.000Z', branch: 'main' };
    const full = events.map(
      (e, i) => ({ ...base, id: `0190${String(i).padStart(8, '0')}0000000000`, ...e, seq: i + 1 }) as GccEvent,
    );
    const path = join(dir, '.GCC', 'events', '2025-01', '20250101T000000Z-f0f0f0.md');
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, serialize(full));
    return path;
  };

  it('a branch named to escape the tree is refused as corruption, and nothing is written outside .GCC/', () => {
    const dir = project();
    forge(dir, [
      { type: 'branch.created', data: { name: '../../docs', parent: 'main', purpose: 'p', hypotheses: [] } },
    ]);
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a valid branch name/);
    expect(existsSync(join(dir, 'docs'))).toBe(false);
    expect(existsSync(join(dir, '..', 'docs', 'log.md'))).toBe(false);
  });

  // In-process: the front ends pass a name through untouched (test/adapters/cli/cli.test.ts).
  it('branches named like Object.prototype keys work everywhere', async () => {
    const m = await Memory.open(await initialized());
    try {
      for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
        await m.execute({ type: 'branch', name, purpose: `try ${name}` });
        await m.execute({ type: 'commit', contribution: `work on ${name}` });
        await m.execute({ type: 'switch', name: 'main' });
        expect(m.context({ level: 'branch', name }).text).toMatch(new RegExp(`work on ${name}`));
        await m.execute({ type: 'merge', branch: name, synthesis: 'kept' });
      }
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });
});

// The other hand edits of main.md are test/engine/hand-edits.test.ts.
describe('hand edits fail safe', () => {
  it('a Notes edit too large to diff is set aside with the reason, not left to run for minutes', () => {
    const dir = project();
    const path = join(dir, '.GCC', 'main.md');
    const base = readFileSync(path, 'utf8');
    writeFileSync(path, base.replace('## Notes\n', `## Notes\n${'a\nb\n'.repeat(20_000)}`));
    expect(gctx(dir, ['status']).code).toBe(0);
    writeFileSync(
      path,
      base.replace('## Notes\n', `## Notes\n${Array.from({ length: 10_000 }, (_, i) => `line ${i}`).join('\n')}\n`),
    );
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Notes were rewritten over more than 2000 lines at once/);
    expect(ok(dir, 'commit', 'still works')).toMatch(/Committed/);
  });
});

describe('a copied memory', () => {
  it('is read whole once (new inodes and times), then trusted from the ledger again', () => {
    const dir = project();
    ok(dir, 'commit', 'first');
    const copy = tempProject();
    cpSync(join(dir, '.GCC'), join(copy, '.GCC'), { recursive: true });
    const ledgerPath = join(copy, '.GCC', '.local', 'ledger.json');
    const signatures = () => {
      const logs = (readLedger(ledgerPath)?.logs ?? {}) as Record<string, { sig: string }>;
      return Object.entries(logs).map(([name, e]) => [
        name,
        e.sig ===
          signatureOf(name === LOCAL ? join(copy, '.GCC', '.local', 'local.md') : join(copy, '.GCC', 'events', name)),
      ]);
    };
    expect(signatures().some(([, same]) => !same)).toBe(true);
    expect(ok(copy, 'status')).toMatch(/first/);
    // Every log the copy holds is vouched for as it now stands, so the next open reads none whole.
    expect(signatures().every(([, same]) => same)).toBe(true);
    expect(ok(copy, 'verify')).toMatch(/^OK/);
  });
});

describe('the ledger itself', () => {
  it('half there or unreadable is damage (exit 2, nothing overwritten), repaired by acknowledging the logs as they stand; gone whole is a fresh clone', () => {
    for (const damage of ['{}', 'torn', 'no-sealed']) {
      const dir = project();
      ok(dir, 'branch', 'try-x', '--purpose', 'an experiment');
      ok(dir, 'switch', 'main');
      const ledger = join(dir, '.GCC', '.local', 'ledger.json');
      if (damage === 'no-sealed') rmSync(`${ledger}.sealed`);
      else writeFileSync(ledger, damage === 'torn' ? readFileSync(ledger, 'utf8').slice(0, 20) : damage);
      const main = readFileSync(join(dir, '.GCC', 'main.md'), 'utf8');
      const r = gctx(dir, ['status']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        damage === 'no-sealed'
          ? /E_CORRUPT: \.GCC\/\.local\/ledger\.json\.sealed \(part of what this clone acknowledged\) is missing/
          : /E_CORRUPT: \.GCC\/\.local\/ledger\.json \(part of what this clone acknowledged\) is damaged/,
      );
      expect(readFileSync(join(dir, '.GCC', 'main.md'), 'utf8')).toBe(main);
      expect(gctx(dir, ['verify']).code).toBe(2);
      expect(gctx(dir, ['doctor', '--repair']).stdout).toMatch(/acknowledged the logs as they stand/);
      expect(ok(dir, 'status')).toMatch(/try-x/);
      expect(ok(dir, 'context', '--log')).toMatch(/Memory repaired|ledger/i);
    }
    const dir = project();
    rmSync(join(dir, '.GCC', '.local'), { recursive: true });
    expect(ok(dir, 'status')).toMatch(/Parse configs/);
  });
});

describe('verify holds one state', () => {
  async function history(dir: string): Promise<void> {
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', contribution: 'first milestone' });
    await m.execute({ type: 'branch', name: 'try-x', purpose: 'try x' });
    await m.execute({ type: 'commit', contribution: 'x works' });
    await m.execute({ type: 'merge', branch: 'try-x', synthesis: 'x is in' });
    await m.execute({ type: 'log', observation: 'a note', thought: '', action: '' });
    m.close();
  }

  /** The opened memory's event count each time verify's rebuild takes an event. */
  function watchFold(m: Memory): number[] {
    const seen: number[] = [];
    const add = FullRebuild.prototype.add;
    vi.spyOn(FullRebuild.prototype, 'add').mockImplementation(function (this: FullRebuild, e) {
      seen.push(m.state.events);
      add.call(this, e);
    });
    return seen;
  }

  it('lets the opened state go while it folds every log itself, and keeps its own fold, equal to it', async () => {
    const dir = tempProject();
    await history(dir);
    const m = await Memory.open(dir);
    const before = m.state;
    const seen = watchFold(m);
    expect(m.verify()).toEqual([]);
    expect(seen.length).toBe(before.events);
    expect(Math.max(...seen)).toBe(0);
    expect(m.state).not.toBe(before);
    expect(m.state).toEqual(before);
    m.close();
  });

  it('reports logs found unfoldable after the open, and the state it let go is folded again before anything reads or saves it', async () => {
    const dir = tempProject();
    await history(dir);
    const m = await Memory.open(dir);
    const snapshot = join(dir, '.GCC', '.local', 'cache', 'snapshot.json');
    const saved = readFileSync(snapshot, 'utf8');
    // Another log that carries an id already used, with other content (an edit, a forgery).
    const e = m.events().find((x) => x.type === 'ota.logged')!;
    const forged = join(
      dir,
      '.GCC',
      'events',
      e.at.slice(0, 7),
      `${e.at.slice(0, 19).replace(/[-:]/g, '')}Z-feeded.md`,
    );
    writeFileSync(
      forged,
      serialize([{ ...e, seq: 1, data: { observation: 'forged', thought: '', action: '' } } as GccEvent]),
    );
    const problems = m.verify();
    expect(problems.map((p) => p.message)).toEqual([expect.stringMatching(/different content/)]);
    expect(() => m.context({ level: 'status' })).toThrow(/different content/);
    m.close();
    expect(readFileSync(snapshot, 'utf8')).toBe(saved);
  });

  it('folds the state again when the logs moved on between the open and verify', async () => {
    const dir = tempProject();
    await history(dir);
    const m = await Memory.open(dir);
    const other = await Memory.open(dir);
    await other.execute({ type: 'log', observation: 'appended meanwhile', thought: '', action: '' });
    other.close();
    expect(m.verify()).toEqual([]);
    const fresh = await Memory.open(dir);
    expect(m.state).toEqual(fresh.state);
    fresh.close();
    m.close();
  });
});
