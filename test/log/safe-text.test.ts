/**
 * The promise of log/safe-text.ts: text from memory shown anywhere carries no control character
 * but newline and tab, a one-line field no line break; ordinary text comes back as it is, so a
 * view of ordinary memory keeps its bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clip } from '../../src/context/budget.js';
import { block, filesText, oneLine } from '../../src/log/prose.js';
import { flatText, LINE_BREAK, REPLACEMENT, safeText } from '../../src/log/safe-text.js';

/** What drives a terminal (C0 but newline and tab, DEL, C1) or reorders what it shows (the bidi controls). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BREAK = /[\n\r\u0085\u2028\u2029]/;

/** The sequences a security review printed through `gctx status | cat -v`. */
const ATTACKS = {
  'erase line (CSI 2K)': '\u001b[2K',
  'window title (OSC 0)': '\u001b]0;pwned\u0007',
  'clipboard write (OSC 52)': '\u001b]52;c;cm0gLXJmIH4=\u0007',
  'hyperlink (OSC 8)': '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\',
  'hidden text (SGR 8)': '\u001b[8mhidden\u001b[0m',
  '8-bit CSI (U+009B)': '\u009b31m',
  'carriage return': 'shown\roverwritten',
  'DEL and BEL': '\u007f\u0007',
  'right-to-left override (Trojan source)': 'src/\u202egnp.exe',
  'bidi isolates and embeddings': '\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d',
  'bidi marks': '\u200e\u200f\u061c',
};

const ordinary = fc.string({ unit: 'grapheme', maxLength: 60 }).filter((s) => !CONTROL.test(s) && !BREAK.test(s));
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...Object.values(ATTACKS), '\n', '\r\n', '\u2028', '\u0085', '\t'),
        fc.string({ maxLength: 5 }),
      ),
      { maxLength: 10 },
    )
    .map((a) => a.join('')),
);

describe('safeText', () => {
  for (const [name, seq] of Object.entries(ATTACKS)) {
    it(`shows ${name} as text`, () => {
      const out = safeText(`before ${seq} after`);
      expect(out).not.toMatch(CONTROL);
      // A carriage return is a line break: multi-line text shows it as one.
      expect(out).toContain(seq.includes('\r') ? '\n' : REPLACEMENT);
      expect(flatText(`before ${seq} after`)).not.toMatch(/[\n\r]/);
      expect(flatText(`before ${seq} after`)).not.toMatch(CONTROL);
    });
  }

  it('shows a file name reversed by U+202E as it is stored, not as it would display', () => {
    expect(flatText('src/\u202egnp.exe')).toBe(`src/${REPLACEMENT}gnp.exe`);
    // Joiners are not controls: scripts and emoji need them.
    expect(safeText('a\u200db\u200cc')).toBe('a\u200db\u200cc');
  });

  it('keeps newlines and tabs, and makes every other line break a newline', () => {
    expect(safeText('a\tb\nc')).toBe('a\tb\nc');
    expect(safeText('a\r\nb\rc\u2028d\u2029e\u0085f')).toBe('a\nb\nc\nd\ne\nf');
  });

  it('has no control character for any text, and returns text that had none as it was', () => {
    fc.assert(fc.property(anyText, (t) => !CONTROL.test(safeText(t))));
    fc.assert(fc.property(ordinary, (t) => safeText(t) === t));
    fc.assert(fc.property(anyText, (t) => safeText(safeText(t)) === safeText(t)));
  });
});

describe('flatText and the one-line renderers', () => {
  it('shows a line break as ⏎ and a control character as U+FFFD', () => {
    expect(flatText('x\n# SYSTEM')).toBe(`x${LINE_BREAK}# SYSTEM`);
    expect(flatText('a\r\n\r\nb\u0085c')).toBe(`a${LINE_BREAK}b${LINE_BREAK}c`);
    expect(flatText('a\u001b[2Kb')).toBe(`a${REPLACEMENT}[2Kb`);
  });

  it('oneLine, clip and filesText give one line with no control character, whatever the text', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 2, max: 80 }), (t, max) => {
        for (const out of [
          flatText(t),
          oneLine(t, max),
          clip(t, max),
          filesText([
            { path: t, added: 1, removed: 0 },
            { path: t, added: 0, removed: 0 },
          ]),
        ]) {
          expect(out).not.toMatch(CONTROL);
          expect(out).not.toMatch(BREAK);
        }
      }),
    );
  });

  it('block keeps every continuation line inside its item (indented) and drops control characters', () => {
    fc.assert(
      fc.property(anyText, (t) => {
        const out = block(t);
        expect(out).not.toMatch(CONTROL);
        for (const line of out.split('\n').slice(1)) expect(line.startsWith('  ')).toBe(true);
      }),
    );
  });

  it('returns ordinary text as it was: the views of ordinary memory keep their bytes', () => {
    fc.assert(
      fc.property(ordinary, (t) => {
        expect(flatText(t)).toBe(t);
        expect(oneLine(t, 1000)).toBe(t);
        expect(block(t)).toBe(t);
        expect(filesText([{ path: t, added: 2, removed: 1 }])).toBe(`${t} (+2 -1)`);
        expect(safeText(t)).toBe(t);
      }),
    );
  });
});
