/**
 * The store knows what it acknowledged: damage to the logs is reported (exit 2, the file
 * named, nothing overwritten) or repaired with the loss recorded — never silently accepted —
 * while what git itself put there (a checkout, a reset) is simply the memory as it now stands.
 * Every case runs the real `gctx` in a child process, but for what verify holds while it runs.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
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
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);
afterEach(() => vi.restoreAllMocks());

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function ok(dir: string, ...args: string[]): string {
  const r = gctx(dir, args);
  expect(r.code, `gctx ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

function segments(dir: string): string[] {
  const root = join(dir, '.GCC', 'events');
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((n) => n.endsWith('.md'))
    .sort()
    .map((n) => join(root, n));
}

function project(withGit = false): string {
  const dir = tempProject();
  if (withGit) {
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.email', 't@example.invalid');
    git(dir, 'config', 'user.name', 'T');
  }
  ok(dir, 'init');
  ok(dir, 'roadmap', 'add', 'Parse configs');
  ok(dir, 'commit', 'first milestone');
  ok(dir, 'commit', 'second milestone');
  return dir;
}

describe('damage is reported, never silently accepted', () => {
  it('an emptied segment: exit 2 naming it, and main.md is not overwritten', () => {
    const dir = project();
    const main = readFileSync(join(dir, '.GCC', 'main.md'), 'utf8');
    const [seg] = segments(dir);
    truncateSync(seg!, 0);
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/E_CORRUPT/);
    expect(r.stderr).toContain(seg!.slice(dir.length + 1));
    expect(readFileSync(join(dir, '.GCC', 'main.md'), 'utf8')).toBe(main);
    expect(gctx(dir, ['verify']).code).toBe(2);
    expect(gctx(dir, ['doctor']).code).toBe(2);
  });

  it('a removed segment: exit 2, with how to get it back', () => {
    const dir = project();
    const [seg] = segments(dir);
    rmSync(seg!);
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/vanished \(it held \d+ acknowledged events\)/);
    expect(r.stderr).toMatch(/doctor --repair/);
  });

  it('zeros over acknowledged entries are corruption; zeros past them are a torn tail set aside', () => {
    const dir = project();
    const [seg] = segments(dir);
    const size = statSync(seg!).size;
    const bytes = readFileSync(seg!);
    writeFileSync(seg!, Buffer.concat([bytes, Buffer.alloc(64)]));
    expect(gctx(dir, ['status']).code).toBe(0);
    expect(statSync(seg!).size).toBe(size);
    expect(readdirSync(join(dir, '.GCC', 'quarantine'))).toHaveLength(1);
    const zeroed = Buffer.from(bytes);
    zeroed.fill(0, size - 200);
    writeFileSync(seg!, zeroed);
    expect(gctx(dir, ['status']).code).toBe(2);
  });

  it('an entry edited in place (a valid-looking rewrite of the same length) is caught by the acknowledged digest', () => {
    const dir = project();
    const [seg] = segments(dir);
    const text = readFileSync(seg!, 'utf8');
    writeFileSync(seg!, text.replace('second milestone', 'SECOND milestone'));
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/E_CORRUPT/);
  });

  it('a deleted local log is reported too', () => {
    const dir = project();
    ok(dir, 'branch', 'exp', '--purpose', 'p');
    rmSync(join(dir, '.GCC', '.local', 'local.md'));
    expect(gctx(dir, ['status']).code).toBe(2);
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
  it('a checkout of an older commit drops later segments quietly, and coming back brings them back', () => {
    const dir = project(true);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'one');
    ok(dir, 'commit', 'third milestone');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'two');
    git(dir, 'checkout', '-q', 'HEAD~1');
    const older = ok(dir, 'context', '--branch', '--k', '10');
    expect(older).toMatch(/second milestone/);
    expect(older).not.toMatch(/third milestone/);
    git(dir, 'checkout', '-q', 'main');
    expect(ok(dir, 'context', '--branch', '--k', '10')).toMatch(/third milestone/);
  });

  it('`git stash -u` taking an acknowledged, uncommitted segment: read from the journal meanwhile, and `git stash pop` works', () => {
    const dir = project(true);
    writeFileSync(join(dir, 'code.txt'), 'x');
    git(dir, 'add', 'code.txt');
    git(dir, 'commit', '-qm', 'code only');
    git(dir, 'stash', '-u');
    const r = gctx(dir, ['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/second milestone/);
    git(dir, 'stash', 'pop');
    expect(ok(dir, 'status')).toMatch(/second milestone/);
  });

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

  it('an id from far in the future is refused; the same event in two logs counts once; one id with two contents is refused', () => {
    const dir = project();
    const future = forge(dir, [
      { id: 'ffffff0000000000000000', type: 'ota.logged', data: { observation: 'from 2500', thought: '', action: '' } },
    ]);
    expect(gctx(dir, ['status']).stderr).toMatch(/future/);
    rmSync(future);
    const [seg] = segments(dir);
    const copy = join(dir, '.GCC', 'events', '2025-01', '20250101T000000Z-0a0a0a.md');
    mkdirSync(join(copy, '..'), { recursive: true });
    writeFileSync(copy, readFileSync(seg!));
    expect(ok(dir, 'context', '--branch', '--k', '10').match(/first milestone/g)).toHaveLength(1);
    writeFileSync(
      copy,
      readFileSync(copy, 'utf8')
        .replace('first milestone', 'first milestonX')
        .replace(/ [0-9a-f]{8} -->/, (m) => m),
    );
    const r = gctx(dir, ['verify']);
    expect(r.code).toBe(2);
  });

  it('branches named like Object.prototype keys work everywhere', () => {
    const dir = project();
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      ok(dir, 'branch', name, '--purpose', `try ${name}`);
      ok(dir, 'commit', `work on ${name}`);
      ok(dir, 'switch', 'main');
      expect(ok(dir, 'context', '--branch', name)).toMatch(new RegExp(`work on ${name}`));
      ok(dir, 'merge', name, '--synthesis', 'kept');
    }
    expect(ok(dir, 'verify')).toMatch(/^OK/);
  });
});

describe('hand edits fail safe', () => {
  it('a renamed Objectives heading removes nothing: the edit is set aside and the section regenerated', () => {
    const dir = project();
    const path = join(dir, '.GCC', 'main.md');
    writeFileSync(path, readFileSync(path, 'utf8').replace('## Objectives', '## Goals'));
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Parse configs/);
    expect(r.stderr).toMatch(/Objectives" heading is missing or renamed/);
    expect(readFileSync(path, 'utf8')).toMatch(/## Objectives\n- \[ \] Parse configs/);
  });

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

  it('a 200,000-line edit is refused with a clear message, and every command still works', () => {
    const dir = project();
    const path = join(dir, '.GCC', 'main.md');
    writeFileSync(path, `${readFileSync(path, 'utf8')}\n${'- [ ] x\n'.repeat(200_000)}`);
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/more than the \d+ gctx takes in/);
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
