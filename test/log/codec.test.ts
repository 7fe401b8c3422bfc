import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GccEvent } from '../../src/events/types.js';
import { GccError } from '../../src/errors.js';
import { parse, rebuildLog, salvage, serialize, serializeEvent } from '../../src/log/codec.js';
import { crc32 } from '../../src/log/crc32.js';
import { conflictSides, hasConflictMarkers } from '../../src/log/conflict.js';
import { eventLog, hostileText } from '../support/arbitraries.js';

/** JSON can only carry well-formed text: lone surrogates come back escaped, so compare via JSON. */
const same = (a: unknown) => JSON.parse(JSON.stringify(a));

function ota(seq: number, observation: string, more?: number): GccEvent {
  const e: GccEvent = {
    id: `${String(seq).padStart(12, '0')}0000000000`,
    seq,
    at: '2026-01-01T00:00:00.000Z',
    branch: 'main',
    type: 'ota.logged',
    data: { observation, thought: 't', action: 'a' },
  };
  if (more) e.more = more;
  return e;
}

describe('log codec', () => {
  it('parse(serialize(events)) returns the events, whatever the free text', () => {
    fc.assert(
      fc.property(eventLog, (events) => {
        const parsed = parse(serialize(events));
        expect(parsed.tail).toBe('');
        expect(parsed.events).toEqual(same(events));
      }),
      { numRuns: 300 },
    );
  });

  it('no free text creates, splits or hides an entry: one entry per event, whatever it says', () => {
    fc.assert(
      fc.property(fc.array(hostileText, { minLength: 1, maxLength: 5 }), (texts) => {
        const events = texts.map((t, i) => ota(i + 1, t));
        const text = serialize(events);
        expect(text.split('\n<!-- gcc:e ').length - 1).toBe(events.length);
        expect(parse(text).events.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
      }),
      { numRuns: 300 },
    );
  });

  it("round-trips a user's prompt (a local event): their words, line breaks and all", () => {
    const text =
      'requirements.txt is frozen by the security review — no new dependencies.\nFix the flaky invoice test.';
    const e: GccEvent = {
      id: '0000000000010000000000',
      seq: 1,
      at: '2026-01-01T00:00:00.000Z',
      branch: 'main',
      type: 'prompt.recorded',
      data: { session: 's1', host: 'claude-code', text },
    };
    const log = serialize([e]);
    expect(log).toContain('- **User**: requirements.txt is frozen');
    expect(parse(Buffer.from(log), 'local.md').events).toEqual([e]);
  });

  it('round-trips a 1 MB observation', () => {
    const big = '-->\n---\n<!-- gcc:e '.repeat(55_000).slice(0, 1_048_576);
    const events = [ota(1, big), ota(2, 'after')];
    expect(parse(serialize(events)).events).toEqual(events);
  });

  it('a log cut at any byte of its last entry opens with every earlier entry and reports the fragment', () => {
    const events = [ota(1, 'first ⏎ ünïcødé 😀'), ota(2, 'second'), ota(3, 'third -->')];
    const whole = Buffer.from(serialize(events));
    const before = Buffer.byteLength(serialize(events.slice(0, 2)));
    for (let cut = before; cut < whole.length; cut++) {
      const text = whole.subarray(0, cut).toString('utf8');
      const p = parse(text);
      expect(p.events).toEqual(events.slice(0, 2));
      expect(p.validLength).toBe(before);
      expect(p.tail.length > 0).toBe(cut > before);
    }
    expect(parse(whole.toString('utf8')).events).toHaveLength(3);
  });

  it('an unfinished batch at the end counts as torn, even when its first entries are whole', () => {
    const events = [ota(1, 'solo'), ota(2, 'batch a', 2), ota(3, 'batch b', 1), ota(4, 'batch c')];
    const partial = serialize(events.slice(0, 3));
    const p = parse(partial);
    expect(p.events).toEqual(events.slice(0, 1));
    expect(p.tail).toBe(serialize(events.slice(1, 3)));
  });

  it('a damaged entry in the middle is an error naming the file and line, never a silent skip', () => {
    const events = [ota(1, 'one'), ota(2, 'two'), ota(3, 'three')];
    const text = serialize(events);
    const at = text.indexOf('two');
    const flipped = `${text.slice(0, at)}twX${text.slice(at + 3)}`;
    let err: unknown;
    try {
      parse(flipped, '.GCC/log.md');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GccError);
    expect((err as GccError).code).toBe('E_CORRUPT');
    expect((err as GccError).file).toBe('.GCC/log.md');
    const machineLine = flipped.slice(0, flipped.indexOf('<!-- gcc:e ', at)).split('\n').length;
    expect((err as GccError).line).toBe(machineLine);
  });

  it('every single bit flip in a middle entry is refused or detected, never parsed as something else', () => {
    const events = [ota(1, 'one'), ota(2, 'two'), ota(3, 'three')];
    const buf = Buffer.from(serialize(events));
    const start = Buffer.byteLength(serializeEvent(events[0]!));
    const end = start + Buffer.byteLength(serializeEvent(events[1]!));
    for (let i = start; i < end; i++) {
      for (const bit of [0, 3, 6]) {
        const copy = Buffer.from(buf);
        copy[i] = copy[i]! ^ (1 << bit);
        try {
          const p = parse(copy.toString('utf8'));
          // Only a flip that leaves the text identical after decoding may pass.
          expect(p.events).toEqual(events);
        } catch (e) {
          expect((e as GccError).code).toBe('E_CORRUPT');
        }
      }
    }
  });

  it('refuses duplicated or reordered entries', () => {
    const a = ota(1, 'a');
    const b = ota(2, 'b');
    expect(() => parse(serialize([a, a]))).toThrow(/sequence 1, expected 2/);
    expect(() => parse(serialize([b, a]))).toThrow(/sequence 2, expected 1/);
  });

  it('refuses ids that do not grow within a log (a log is in replay order)', () => {
    const a = ota(1, 'a');
    const b = { ...ota(2, 'b'), id: a.id };
    expect(() => parse(serialize([a, b]))).toThrow(/not newer/);
  });
});

describe('salvage: what a repair keeps of a damaged log', () => {
  it('keeps every entry that still holds together, and counts the rest', () => {
    const events = [ota(1, 'one'), ota(2, 'two'), ota(3, 'three'), ota(4, 'four')];
    const text = serialize(events);
    const at = text.indexOf('two');
    const damaged = Buffer.from(`${text.slice(0, at)}tXo${text.slice(at + 3)}`);
    const s = salvage(damaged);
    expect(s.events.map((e) => e.seq)).toEqual([1, 3, 4]);
    expect(s.lost).toBe(1);
  });

  it('zeros over entries lose those entries only', () => {
    const events = [ota(1, 'one'), ota(2, 'two'), ota(3, 'three')];
    const buf = Buffer.from(serialize(events));
    const start = Buffer.byteLength(serializeEvent(events[0]!));
    buf.fill(0, start, start + 40);
    const s = salvage(buf);
    expect(s.events.map((e) => e.seq)).toEqual([1, 3]);
  });
});

describe('rebuildLog: a log whose acknowledged events all read, as gctx wrote it', () => {
  const TERMINATOR = '\n\n---\n\n';
  /** What editors do to a text file's spacing. */
  const edits: ((t: string) => string)[] = [
    (t) => `${t.slice(0, -TERMINATOR.length)}\n`,
    (t) => t.slice(0, -TERMINATOR.length),
    (t) => t.slice(0, -1),
    (t) => t.replace(/[ \t]+\n/g, '\n'),
    (t) => `${t.replace(/[ \t]+\n/g, '\n').trimEnd()}\n`,
    (t) => `${t}\n`,
    (t) => `${t}a line someone typed\n`,
  ];

  it('gives back the acknowledged bytes after any spacing edit or appended text, whatever the entries say', () => {
    fc.assert(
      fc.property(
        eventLog.filter((e) => e.length > 0),
        fc.constantFrom(...edits),
        (events, edit) => {
          const bytes = Buffer.from(serialize(events));
          const s = salvage(Buffer.from(edit(bytes.toString('utf8'))));
          expect(s.lost).toBe(0);
          expect(rebuildLog(s.events, { size: bytes.length, crc: crc32(bytes) })?.equals(bytes)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses when an acknowledged event is gone or changed, and counts stray text apart from lost entries', () => {
    const events = [ota(1, 'one'), ota(2, 'two'), ota(3, 'three')];
    const bytes = Buffer.from(serialize(events));
    const ack = { size: bytes.length, crc: crc32(bytes) };
    const text = bytes.toString('utf8');
    const at = text.indexOf('two');
    const s = salvage(Buffer.from(`${text.slice(0, at)}tXo${text.slice(at + 3)}stray words\n`));
    expect(s).toMatchObject({ lost: 1, stray: 1 });
    expect(rebuildLog(s.events, ack)).toBeNull();
    // Fewer events than acknowledged, or other bytes than acknowledged: nothing to give back.
    expect(rebuildLog(events.slice(0, 2), ack)).toBeNull();
    expect(rebuildLog(events, { ...ack, crc: ack.crc ^ 1 })).toBeNull();
    // Whole events past the acknowledged ones follow them.
    const first = Buffer.from(serialize(events.slice(0, 2)));
    expect(rebuildLog(events, { size: first.length, crc: crc32(first) })?.equals(bytes)).toBe(true);
  });
});

describe('conflict markers', () => {
  it('gives back both sides of a log git merged as text, each a log that parses', () => {
    const common = serialize([ota(1, 'base')]);
    const ours = serialize([{ ...ota(2, 'ours'), id: '000000000002aaaaaaaaaa' }]);
    const theirs = serialize([{ ...ota(2, 'theirs'), id: '000000000002bbbbbbbbbb' }]);
    const merged = `${common}<<<<<<< HEAD\n${ours}=======\n${theirs}>>>>>>> other\n`;
    expect(hasConflictMarkers(merged)).toBe(true);
    const sides = conflictSides(merged)!;
    expect(parse(sides.ours).events.map((e) => e.data)).toEqual([ota(1, 'base').data, ota(2, 'ours').data]);
    expect(parse(sides.theirs).events.map((e) => e.data)).toEqual([ota(1, 'base').data, ota(2, 'theirs').data]);
  });

  it('takes diff3 style (with the ancestor) too, and refuses markers that do not nest', () => {
    const merged = 'a\n<<<<<<< ours\nb\n||||||| base\nx\n=======\nc\n>>>>>>> theirs\nd\n';
    expect(conflictSides(merged)).toEqual({ ours: 'a\nb\nd\n', theirs: 'a\nc\nd\n' });
    expect(conflictSides('<<<<<<< a\n<<<<<<< b\n')).toBeNull();
  });
});

describe('what counts as a torn tail', () => {
  const events = [ota(1, 'one'), ota(2, 'two')];
  const whole = serialize(events);

  it('a prefix of an entry, or zero fill, is a tear', () => {
    expect(parse(`${whole}**[OTA-003]** 2026`).tail).toBe('**[OTA-003]** 2026');
    expect(parse(`${whole}*`).tail).toBe('*');
    expect(parse(`${whole}\u0000\u0000\u0000`).events).toHaveLength(2);
    expect(parse(`${whole}**[OT\u0000\u0000`).events).toHaveLength(2);
  });

  it('anything else after the last entry is corruption naming the line, not something to set aside', () => {
    for (const junk of ['hello', '\n', '# notes added by hand\n', '---\n']) {
      let err: unknown;
      try {
        parse(`${whole}${junk}`, '.GCC/log.md');
      } catch (e) {
        err = e;
      }
      expect((err as GccError).code, JSON.stringify(junk)).toBe('E_CORRUPT');
      expect((err as GccError).line).toBe(whole.split('\n').length);
    }
  });

  it('a file that is garbage from its first byte is refused, so the memory is not opened empty', () => {
    expect(() => parse('not a log at all\n', 'log.md')).toThrow(/not an entry/);
  });
});

describe("a cited file's blob", () => {
  const commit = (files: unknown[]): GccEvent =>
    ({
      id: '000000000001' + '0'.repeat(10),
      seq: 1,
      at: '2026-01-01T00:00:00.000Z',
      branch: 'main',
      type: 'commit.recorded',
      data: { id: 'abcd1234', label: 'C001', title: 't', contribution: 'c', purpose: 'p', previous: '', files },
    }) as GccEvent;

  it('round-trips at 40 and 64 hex, and an old entry without one stays valid', () => {
    const files = [
      { path: 'a.ts', added: 1, removed: 0, blob: 'a'.repeat(40) },
      { path: 'b.ts', added: 0, removed: 2, blob: 'b'.repeat(64) },
      { path: 'c.ts', added: 0, removed: 0 },
    ];
    expect(parse(serialize([commit(files)])).events[0]).toEqual(commit(files));
  });

  it('refuses a blob that is not 40 or 64 hex digits', () => {
    for (const blob of ['A'.repeat(40), 'a'.repeat(39), 'g'.repeat(40), 12, '']) {
      expect(() => parse(serialize([commit([{ path: 'a.ts', added: 0, removed: 0, blob }])]))).toThrow(/blob/);
    }
  });
});
