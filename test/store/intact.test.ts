import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, serialize } from '../../src/log/codec.js';
import { gctx } from '../support/cli.js';
import { git, gitRepo, ok, segments, template } from '../support/project.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const TERMINATOR = '\n\n---\n\n';

/** Every event id in the memory's segments. */
const ids = (dir: string) => segments(dir).flatMap((s) => parse(readFileSync(s)).events.map((e) => e.id));

/** A memory whose open segment ends in an entry with a blank line in it (a line of two spaces in its prose). */
function build(dir: string): void {
  ok(dir, 'init');
  ok(dir, 'log', '--observation', 'first');
  ok(dir, 'log', '--observation', 'para one\n\npara two');
}
const plain = template(build);
const inGit = template((dir) => build(gitRepo(dir)));
function project(withGit = false): { dir: string; seg: string } {
  const dir = withGit ? inGit() : plain();
  // A copy's logs have new inodes: one open vouches for them, as the last write did for the original.
  ok(dir, 'status');
  const [seg] = segments(dir);
  return { dir, seg: seg! };
}

const edits: [string, (text: string) => string][] = [
  ['the final `---` and what follows the machine line', (t) => `${t.slice(0, -TERMINATOR.length)}\n`],
  ['everything after the machine line, final newline included', (t) => t.slice(0, -TERMINATOR.length)],
  ['the final newline only', (t) => t.slice(0, -1)],
  ['trailing spaces on every line', (t) => t.replace(/[ \t]+\n/g, '\n')],
  ['trailing spaces and the final separator', (t) => `${t.replace(/[ \t]+\n/g, '\n').slice(0, -TERMINATOR.length)}\n`],
  ['an extra newline added at the end', (t) => `${t}\n`],
];

describe('a log whose spacing an editor changed', () => {
  for (const [what, edit] of edits) {
    it(`${what}: said to be intact, and doctor --repair gives back the bytes gctx wrote, every event kept`, () => {
      const { dir, seg } = project();
      const before = readFileSync(seg);
      const events = ids(dir);
      writeFileSync(seg, edit(before.toString('utf8')));
      const r = gctx(dir, ['status']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/had its spacing edited .*its 3 acknowledged events are intact/);
      expect(r.stderr).toMatch(/Fix: run `gctx doctor --repair`: it rewrites the file as gctx wrote it/);
      const repair = ok(dir, 'doctor', '--repair');
      expect(repair).toMatch(/rewrote .* as gctx wrote it: 3 events, none lost/);
      // The open segment is what gctx wrote, then the record of the repair.
      const after = readFileSync(seg);
      expect(after.subarray(0, before.length).equals(before)).toBe(true);
      const repaired = parse(after.subarray(before.length), 'seg', 3).events;
      expect(repaired.map((e) => [e.type, e.type === 'memory.repaired' && e.data.lost])).toEqual([
        ['memory.repaired', 0],
      ]);
      expect(ids(dir).slice(0, 3)).toEqual(events);
      expect(ok(dir, 'verify')).toMatch(/^OK: 4 events/);
      expect(ok(dir, 'context', '--log', '5')).toContain('para two');
    });
  }
});

describe('text appended to a log', () => {
  it('to the open segment, untracked: none lost, the text kept aside, no word of git', () => {
    const { dir, seg } = project(true);
    const before = readFileSync(seg);
    appendFileSync(seg, 'a note someone typed here\n');
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ends in text that is not an entry .*its 3 acknowledged events are intact/);
    expect(r.stderr).not.toMatch(/git checkout|from git/);
    const repair = ok(dir, 'doctor', '--repair');
    expect(repair).toMatch(/none lost \(the file as it was is kept at (\S+)\)/);
    const aside = /kept at (\S+)\)/.exec(repair)![1]!;
    expect(readFileSync(aside, 'utf8')).toContain('a note someone typed here');
    expect(readFileSync(seg).subarray(0, before.length).equals(before)).toBe(true);
    const record = parse(readFileSync(seg)).events.at(-1)!;
    expect(record).toMatchObject({ type: 'memory.repaired', data: { kept: 3, lost: 0 } });
    expect(ok(dir, 'verify')).toMatch(/^OK: 4 events/);
  });

  it('random bytes after a committed segment: none lost either', () => {
    const { dir, seg } = project(true);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'memory');
    const before = readFileSync(seg);
    appendFileSync(seg, Buffer.from([0x9f, 0x22, 0x7a, 0x00, 0x41, 0x0a, 0xff]));
    expect(gctx(dir, ['verify']).code).toBe(2);
    expect(ok(dir, 'doctor', '--repair')).toMatch(/none lost/);
    expect(readFileSync(seg).equals(before)).toBe(true);
    expect(git(dir, 'status', '--porcelain', '--', seg)).toBe('');
    expect(ok(dir, 'verify')).toMatch(/^OK: /);
  });
});

describe('a crash mid-write is still a torn tail', () => {
  it('an unacknowledged entry cut right after its machine line is set aside, not read', () => {
    const { dir, seg } = project();
    const before = readFileSync(seg);
    const last = parse(before).events.at(-1)!;
    const id = (BigInt(`0x${last.id}`) + 1n).toString(16).padStart(last.id.length, '0');
    const entry = serialize([{ ...last, id, seq: 4 }]);
    appendFileSync(seg, entry.slice(0, -TERMINATOR.length));
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/torn entry at the end of .* was moved to/);
    expect(readFileSync(seg).equals(before)).toBe(true);
    expect(ok(dir, 'verify')).toMatch(/^OK: 3 events/);
  });
});

describe("another writer's log ending in an entry without its separator", () => {
  it('is left out as before, and the warning says a whole entry lacks its separator rather than calling it incomplete', () => {
    const { seg } = project();
    const theirs = readFileSync(seg, 'utf8');
    const mine = tempProject();
    ok(mine, 'init');
    const [own] = segments(mine);
    const month = join(dirname(own!), '..', basename(dirname(seg)));
    mkdirSync(month, { recursive: true });
    writeFileSync(join(month, basename(seg)), `${theirs.slice(0, -TERMINATOR.length)}\n`);
    const r = gctx(mine, ['status']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/ends in a whole entry missing the `---` separator after it .*left out/);
    // A prefix of an entry is still an incomplete one.
    writeFileSync(join(month, basename(seg)), theirs.slice(0, theirs.lastIndexOf('<!-- gcc:e') + 30));
    expect(gctx(mine, ['status']).stderr).toMatch(
      /ends in an incomplete entry that this clone did not write; it is ignored/,
    );
  });
});

describe('a ledger at odds with a log that reads whole', () => {
  const tamper = (dir: string, change: (e: { size: number; crc: number; sig: string }) => void) => {
    const path = join(dir, '.GCC', '.local', 'ledger.json');
    const ledger = JSON.parse(readFileSync(path, 'utf8')) as {
      open: string;
      logs: Record<string, { size: number; crc: number; sig: string }>;
    };
    change(ledger.logs[ledger.open]!);
    writeFileSync(path, JSON.stringify(ledger));
  };

  it('a size changed by hand: the ledger is named, and doctor --repair acknowledges the log as it stands', () => {
    const { dir, seg } = project();
    const before = readFileSync(seg);
    tamper(dir, (e) => (e.size -= 10));
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the ledger was edited or damaged, not the log \(\.GCC\/\.local\/ledger\.json\)/);
    expect(ok(dir, 'doctor', '--repair')).toMatch(
      /acknowledged .* as it stands \(the ledger's entry for it was edited or damaged\)/,
    );
    expect(readFileSync(seg).subarray(0, before.length).equals(before)).toBe(true);
    expect(readdirSync(join(dir, '.GCC')).includes('aside')).toBe(false);
    expect(ok(dir, 'verify')).toMatch(/^OK: 4 events/);
  });

  it('a CRC changed by hand (the open trusts the log by its signature): verify names the ledger, and repair mends it', () => {
    const { dir } = project();
    tamper(dir, (e) => (e.crc = (e.crc ^ 1) >>> 0));
    const r = gctx(dir, ['verify']);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/ledger\.json.*the ledger was edited or damaged, not the log/);
    expect(ok(dir, 'doctor', '--repair')).toMatch(/as it stands/);
    expect(ok(dir, 'verify')).toMatch(/^OK: 4 events/);
  });

  it('a size and signature both changed: the entry contradicts itself, the ledger is named', () => {
    const { dir } = project();
    tamper(dir, (e) => {
      e.size -= 10;
      e.sig = `${e.size + 3}:1:1`;
    });
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ledger\.json contradicts itself about/);
    ok(dir, 'doctor', '--repair');
    expect(ok(dir, 'verify')).toMatch(/^OK: 4 events/);
  });
});

describe('damage to a log git holds no copy of', () => {
  it('an entry edited in the untracked open segment, or in the local log: the fix is the repair, not git', () => {
    const { dir, seg } = project(true);
    ok(dir, 'branch', 'exp', '--purpose', 'try');
    const local = join(dir, '.GCC', '.local', 'local.md');
    // This clone's journal restores both.
    for (const file of [seg, local]) {
      const text = readFileSync(file, 'utf8');
      const at = text.indexOf('gcc:e {') + 20;
      writeFileSync(file, `${text.slice(0, at)}${text[at] === 'X' ? 'Y' : 'X'}${text.slice(at + 1)}`);
      const r = gctx(dir, ['status']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/restored .* from this clone's journal/);
    }
    // Without the journal, the repair is the way.
    rmSync(join(dir, '.git', 'gcc'), { recursive: true, force: true });
    for (const file of [seg, local]) {
      const text = readFileSync(file, 'utf8');
      const at = text.indexOf('gcc:e {') + 20;
      const saved = text;
      writeFileSync(file, `${text.slice(0, at)}${text[at] === 'X' ? 'Y' : 'X'}${text.slice(at + 1)}`);
      const r = gctx(dir, ['status']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/fails its integrity check/);
      expect(r.stderr).toMatch(/Fix: run `gctx doctor --repair`/);
      expect(r.stderr).not.toMatch(/git checkout|from git/);
      writeFileSync(file, saved);
    }
    expect(ok(dir, 'verify')).toMatch(/^OK: /);
  });
});
