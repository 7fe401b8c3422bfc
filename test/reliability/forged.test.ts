/**
 * Events are untrusted input: a segment arrives by git from anyone, and its CRC is a checksum,
 * not a signature. Names that would become paths outside `.GCC/` — `..`, absolute paths,
 * backslashes, NUL, reserved device names, `.md` segments, unicode look-alikes of `.` and `/` —
 * are corruption wherever they stand in an event, and nothing is written anywhere (the whole
 * temporary root is compared). Names that only look like Object.prototype keys are ordinary
 * branches everywhere (`__proto__` is no name at all). Files in events/ that are not segments
 * are never read.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import type { GccEvent } from '../../src/events/types.js';
import { branchNameProblem } from '../../src/events/rules.js';
import { serialize } from '../../src/log/codec.js';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { pick, TIMEOUT, treeState } from './helpers.js';

afterAll(cleanup);

const SEGMENT = '2025-01/20250101T000000Z-f0f0f0.md';
const START = Date.parse('2025-01-01T00:00:00Z');

/** Valid entries (CRC and all) of events someone else wrote, as a segment of the memory. */
function forge(dir: string, events: Partial<GccEvent>[], name = SEGMENT): string {
  const full = events.map(
    (e, i) =>
      ({
        at: '2025-01-01T00:00:00.000Z',
        branch: 'main',
        id: `${(START + i).toString(16).padStart(12, '0')}f0f0f0f0f0`,
        ...e,
        seq: i + 1,
      }) as GccEvent,
  );
  const rel = join('.GCC', 'events', name);
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), serialize(full));
  return rel;
}

/** A memory in `<root>/project`, and the root. */
async function memory(): Promise<{ root: string; dir: string }> {
  const root = tempProject('gcc-forged-');
  const dir = join(root, 'project');
  mkdirSync(dir);
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'commit', contribution: 'first milestone' });
  m.close();
  return { root, dir };
}

const commitData = (extra: object = {}) => ({
  id: 'abcdef1',
  label: 'C001',
  title: 't',
  contribution: 'c',
  purpose: 'p',
  previous: '',
  files: [],
  ...extra,
});

/** Every place an event carries a name that becomes a path or a map key. */
const PLACES: Record<string, (name: string) => Partial<GccEvent>[]> = {
  'the branch of an event': (name) => [
    { branch: name, type: 'ota.logged', data: { observation: 'o', thought: 't', action: 'a' } },
  ],
  'a created branch': (name) => [
    { branch: name, type: 'branch.created', data: { name, parent: 'main', purpose: 'p', hypotheses: [] } },
  ],
  'the parent of a branch': (name) => [
    { branch: 'ok', type: 'branch.created', data: { name: 'ok', parent: name, purpose: 'p', hypotheses: [] } },
  ],
  'a merged branch': (name) => [{ type: 'branch.merged', data: { branch: name, into: 'main', commit: 'abcdef1' } }],
  'the target of a merge': (name) => [{ type: 'branch.merged', data: { branch: 'ok', into: name, commit: 'abcdef1' } }],
  'the source of a merge commit': (name) => [
    { type: 'commit.recorded', data: commitData({ merge: { from: name, tried: 't', learned: 'l', integrated: 'i' } }) },
  ],
  'an abandoned branch': (name) => [{ type: 'branch.abandoned', data: { branch: name, reason: 'r' } }],
  'an abandon commit': (name) => [
    { type: 'commit.recorded', data: commitData({ abandon: { from: name, reason: 'r', tried: 't' } }) },
  ],
};

/** Pieces of names that lead out of a folder, or name something else, on some system. */
const PIECES = [
  '..',
  '.',
  '/',
  '//',
  '\\',
  '/etc/passwd',
  'C:',
  'C:\\Windows',
  '\u0000',
  '\n',
  '\u001b',
  'con',
  'NUL',
  'aux.txt',
  'lpt1',
  'com¹',
  'log.md',
  'main.md',
  'x.yaml',
  'ledger.json',
  '.lock',
  ' ',
  '.GCC',
  '~',
  '\u2215',
  '\uff0f',
  '\u2024\u2024',
  '\uff0e\uff0e',
  '\u2025',
  '\u29f8',
  '\u0130',
  '\u200b',
  '\u202e',
  'ｃｏｎ',
  'a',
];

/** Names built from those pieces that the rules refuse (every one must be refused on read too). */
const hostileName = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(''))
  .filter((n) => branchNameProblem(n) !== null);

describe('forged events: names that lead out of the tree', () => {
  it('are refused as corruption wherever they stand, and nothing is written anywhere', {
    timeout: TIMEOUT,
  }, async () => {
    const { root, dir } = await memory();
    // Opening once more settles whatever the first open left to do; from here a refused open must change nothing.
    (await Memory.open(dir)).close();
    const before = treeState(root);
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(hostileName, fc.constantFrom(...Object.keys(PLACES)), async (name, place) => {
        const rel = forge(dir, PLACES[place]!(name));
        let refused: unknown = null;
        try {
          (await Memory.open(dir)).close();
        } catch (err) {
          refused = err;
        }
        rmSync(join(dir, rel));
        rmSync(join(dir, '.GCC', 'events', '2025-01'), { recursive: true });
        expect(refused, `${JSON.stringify(name)} as ${place}`).toBeInstanceOf(GccError);
        expect((refused as GccError).code).toBe('E_CORRUPT');
        expect((refused as GccError).file).toBe(rel);
        expect(treeState(root), `${JSON.stringify(name)} as ${place}: nothing changed anywhere`).toEqual(before);
        cases++;
      }),
      { numRuns: pick(200, 5000) },
    );
    console.log(
      `[reliability] forged path names: ${cases} names in ${Object.keys(PLACES).length} places, all E_CORRUPT, the temporary root unchanged`,
    );
  });

  it('through the CLI: exit 2 naming the file, no folder made outside', () => {
    const root = tempProject('gcc-forged-cli-');
    const dir = join(root, 'project');
    mkdirSync(dir);
    expect(gctx(dir, ['init']).code).toBe(0);
    const rel = forge(dir, PLACES['a created branch']!('../../escape'));
    const r = gctx(dir, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(rel);
    expect(r.stderr).toMatch(/bad branch \(a branch name cannot contain `.` or `..` segments\)/);
    expect(treeState(root, (p) => p.startsWith('project/.GCC')).size).toBe(1);
  });

  it('files in events/ that are not segments are reported and never read', async () => {
    const { dir } = await memory();
    const forged = [
      { type: 'ota.logged' as const, data: { observation: 'SHOULD NOT BE READ', thought: '', action: '' } },
    ];
    const names = [
      '2025-01/not-a-segment.md',
      '2025-01/20250101T000000Z-F0F0F0.md',
      '2025-01/20250101T000000Z-f0f0f0.md.bak',
      'notamonth/20250101T000000Z-f0f0f0.md',
      '2025-01/20250101T000000Z-f0f0f0.markdown',
    ];
    for (const n of names) forge(dir, forged, n);
    const m = await Memory.open(dir);
    try {
      expect(m.events().some((e) => e.type === 'ota.logged')).toBe(false);
      for (const n of names)
        expect(m.warnings.join('\n')).toContain(
          n.startsWith('notamonth') ? '.GCC/events/notamonth' : `.GCC/events/${n}`,
        );
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });
});

const PROTOTYPE = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];
/** Object.prototype as this process started: a fold that wrote through a name would change it. */
const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();
const PROTO_VALUES = PROTO_KEYS.map((k) => (Object.prototype as Record<string, unknown>)[k]);

describe('branches named like Object.prototype keys', () => {
  it('work through branch, commit, switch, context and merge', { timeout: TIMEOUT }, async () => {
    const { dir } = await memory();
    const m = await Memory.open(dir);
    try {
      for (const name of PROTOTYPE) {
        await m.execute({ type: 'branch', name, purpose: `try ${name}` });
        await m.execute({ type: 'commit', contribution: `work on ${name}` });
        await m.execute({ type: 'switch', name: 'main' });
        expect(m.context({ level: 'branch', name }).text).toContain(`work on ${name}`);
        await m.execute({ type: 'merge', branch: name, synthesis: `kept ${name}` });
      }
      expect(Object.keys(m.state.branches).sort()).toEqual(['main', ...PROTOTYPE].sort());
      for (const name of PROTOTYPE) expect(m.state.branches[name]!.life).toBe('merged');
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
    // The CLI reads them back from a fresh process.
    expect(gctx(dir, ['context', '--branch', 'valueOf']).stdout).toMatch(/work on valueOf/);
  });

  it('`__proto__` is refused as a name: by the CLI (exit 1) and in a forged event (corruption)', async () => {
    const { dir } = await memory();
    const r = gctx(dir, ['branch', '__proto__', '--purpose', 'pollute']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_BRANCH_NAME/);
    const rel = forge(dir, PLACES['a created branch']!('__proto__'));
    let e: unknown = null;
    try {
      (await Memory.open(dir)).close();
    } catch (err) {
      e = err;
    }
    expect((e as GccError).code).toBe('E_CORRUPT');
    expect((e as GccError).file).toBe(rel);
  });

  it('in forged events from another clone: ordinary branches, Object.prototype untouched', async () => {
    const { dir } = await memory();
    const events: Partial<GccEvent>[] = [];
    for (const name of PROTOTYPE) {
      events.push({
        branch: name,
        type: 'branch.created',
        data: { name, parent: 'main', purpose: `from another clone: ${name}`, hypotheses: [] },
      });
      events.push({ branch: name, type: 'commit.recorded', data: commitData({ contribution: `their ${name}` }) });
      events.push({ branch: name, type: 'branch.merged', data: { branch: name, into: 'main', commit: 'abcdef1' } });
    }
    forge(dir, events);
    const m = await Memory.open(dir);
    try {
      for (const name of PROTOTYPE) {
        expect(Object.hasOwn(m.state.branches, name)).toBe(true);
        expect(m.state.branches[name]!.life).toBe('merged');
        expect(m.context({ level: 'branch', name }).text).toContain(`their ${name}`);
      }
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_KEYS);
      expect(PROTO_KEYS.map((k) => (Object.prototype as Record<string, unknown>)[k])).toEqual(PROTO_VALUES);
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });
});
