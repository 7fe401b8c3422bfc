/**
 * Events read from a log are untrusted input: held to the rules commands are held to. A valid
 * CRC proves nothing (anyone can write one), so every field is checked on read.
 */
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventProblem, FUTURE_SKEW_MS } from '../../src/events/validate.js';
import { MAX_TEXT } from '../../src/events/rules.js';
import { parse, serialize } from '../../src/log/codec.js';
import { FORMAT_VERSION, type GccEvent } from '../../src/events/types.js';
import { eventLog, PROTOTYPE_NAMES } from '../support/arbitraries.js';

const base = (over: Omit<Partial<GccEvent>, 'data'> & { data?: unknown } = {}): Record<string, unknown> => ({
  id: '0190000000000123456789',
  seq: 1,
  at: '2024-06-01T00:00:00.000Z',
  branch: 'main',
  type: 'branch.created',
  data: { name: 'exp', parent: 'main', purpose: 'p', hypotheses: [] },
  ...over,
});

/** Names that would leave .GCC/ or collide with memory files if they became paths. */
const BAD_NAMES = [
  '../../docs',
  '..',
  '.',
  '/etc',
  'C:evil',
  'a//b',
  'a/',
  'x.md',
  'notes.yaml',
  'lock.json',
  'con',
  'nul.txt',
  'a\u0000b',
  'a\nb',
  'a\\b',
  '-x',
  '_x',
  '__proto__',
  ' x',
  'x ',
  'a'.repeat(101),
  '',
];

describe('events read from a log are validated like commands', () => {
  it('accepts every well-formed event, whatever its free text', () => {
    fc.assert(
      fc.property(eventLog, (events) => {
        for (const e of events) expect(eventProblem(JSON.parse(JSON.stringify(e)))).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('accepts branches named like Object.prototype keys', () => {
    for (const name of PROTOTYPE_NAMES)
      expect(
        eventProblem(base({ branch: name, data: { name, parent: 'main', purpose: 'p', hypotheses: [] } })),
      ).toBeNull();
  });

  it('refuses a branch name that is not a name, wherever it stands', () => {
    for (const name of BAD_NAMES) {
      expect(eventProblem(base({ branch: name })), `envelope ${JSON.stringify(name)}`).toMatch(/branch/);
      expect(
        eventProblem(base({ data: { name, parent: 'main', purpose: 'p', hypotheses: [] } })),
        `data ${JSON.stringify(name)}`,
      ).toMatch(/branch name/);
      expect(
        eventProblem(base({ type: 'branch.merged', data: { branch: name, into: 'main', commit: 'abcdef1' } })),
        `merged ${JSON.stringify(name)}`,
      ).toMatch(/branch name/);
    }
  });

  it('refuses ids dated beyond the clock plus the skew, and malformed ids', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    const at = (ms: number) => ms.toString(16).padStart(12, '0') + '0123456789';
    expect(eventProblem(base({ id: at(now + FUTURE_SKEW_MS - 1) }), now)).toBeNull();
    expect(eventProblem(base({ id: at(now + FUTURE_SKEW_MS + 1) }), now)).toMatch(/future/);
    expect(eventProblem(base({ id: 'ffffffffffff0123456789' }), now)).toMatch(/future/);
    for (const id of ['x', '', 'G190000000000123456789', '0190000000000123456789a', 42])
      expect(eventProblem(base({ id: id as string }), now)).toMatch(/id/);
  });

  it('refuses wrong kinds, oversize text, unknown types and missing fields', () => {
    expect(
      eventProblem(base({ data: { name: 'exp', parent: 'main', purpose: 'x'.repeat(MAX_TEXT + 1), hypotheses: [] } })),
    ).toMatch(/longer/);
    expect(eventProblem(base({ data: { name: 'exp', parent: 'main', purpose: 1, hypotheses: [] } }))).toMatch(
      /not text/,
    );
    expect(eventProblem(base({ data: { name: 'exp', parent: 'main', purpose: 'p' } }))).toMatch(/missing/);
    expect(eventProblem(base({ type: 'branch.teleported' as never }))).toMatch(/unknown event type/);
    expect(
      eventProblem(
        base({
          type: 'commit.recorded',
          data: { id: 'nothex!', label: 'C001', title: 't', contribution: 'c', purpose: 'p', previous: 'p', files: [] },
        }),
      ),
    ).toMatch(/commit hash/);
    expect(
      eventProblem(
        base({
          type: 'commit.recorded',
          data: { id: 'abcdef1', label: 'X1', title: 't', contribution: 'c', purpose: 'p', previous: 'p', files: [] },
        }),
      ),
    ).toMatch(/label/);
    expect(
      eventProblem(
        base({
          type: 'tool.recorded',
          data: { tool: 't', input: '', result: '', isError: false, files: [{ path: '', added: 0, removed: 0 }] },
        }),
      ),
    ).toMatch(/files/);
    expect(eventProblem(base({ seq: 0 }))).toMatch(/seq/);
    expect(eventProblem(base({ at: 'yesterday' }))).toMatch(/time/);
  });

  it(
    'a format above this version or an unknown type reads as a newer gctx: the fix is an ' +
      'upgrade, never a repair that drops it',
    () => {
      const init = (format: number) => base({ type: 'memory.initialized', data: { format, config: {} } });
      expect(eventProblem(init(FORMAT_VERSION))).toBeNull();
      expect(eventProblem(init(1))).toBeNull();
      expect(eventProblem(init(99_999))).toMatch(/above the 2 this gctx reads/);
      // An entry of a type this version has no prose for, written as a newer gctx would: prose, machine line, CRC.
      const json = JSON.stringify({ ...base({ type: 'branch.teleported' as never }), data: { to: 'mars' } });
      const prose = '**[EVT-001]** 2026-12-01T00:00:00.000Z | Branch: main';
      const crc = crc32(Buffer.from(`${prose}\n<!-- gcc:e ${json}`))
        .toString(16)
        .padStart(8, '0');
      const teleported = `${prose}\n<!-- gcc:e ${json} ${crc} -->\n\n---\n\n`;
      for (const text of [serialize([init(99_999) as unknown as GccEvent]), teleported]) {
        let err: unknown;
        try {
          parse(text, '.GCC/events/x.md');
        } catch (x) {
          err = x;
        }
        expect(err).toMatchObject({ code: 'E_CORRUPT', file: '.GCC/events/x.md' });
        expect((err as { fix: string }).fix).toMatch(/upgrade .*do not repair/);
      }
    },
  );

  it('an invalid event in a log is corruption naming the file and line, even with a correct CRC', () => {
    const forged = {
      ...base(),
      data: { name: '../../docs', parent: 'main', purpose: 'p', hypotheses: [] },
    } as unknown as GccEvent;
    expect(() => parse(serialize([forged]), '.GCC/events/x.md')).toThrow(/not a valid branch name/);
  });
});
