/**
 * Colour codes and invisible characters must not switch redaction off: tool output run with
 * colour (`grep --color=always`, FORCE_COLOR, `git -c color.ui=always`) or holding a zero-width
 * space splits a token so that no rule sees it. They are taken out before the rules run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets, redactSecretsUngated, redactToolText } from '../../src/observer/redact.js';
import { withoutTerminalCodes } from '../../src/observer/redact-escapes.js';

const GHP = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const BODY = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const AKIA = 'AKIAIOSFODNN7EXAMPL3';
const SK = 'sk-proj-4f9Qx2Lm8Zr1Tb6Yw3Nc7Vh5Kd0Sa9';

/** What `grep --color=always -E 'ghp_|AKIA|sk-proj-'` prints around each match (GNU grep). */
const grepColour = (line: string, match: string) =>
  line.replace(match, `\u001b[01;31m\u001b[K${match}\u001b[m\u001b[K`);

/** Everything that may sit between two characters of a token without showing. */
const SPLITTERS = [
  '\u001b[m',
  '\u001b[K',
  '\u001b[01;31m\u001b[K',
  '\u001b[38;5;196m',
  '\u001b[38:2::255:0:0m',
  '\u009b0m',
  '\u001b]8;;https://x.example\u001b\\',
  '\u001b]0;title\u0007',
  '\u001b(B',
  '\u001b7',
  '\u001bP1$r0m\u001b\\',
  '\u200b',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u202e',
  '\u2066',
  '\u200f',
];

describe('redaction through terminal codes and invisible characters', () => {
  it('redacts grep --color=always output, where the match prefix is wrapped apart from the rest', () => {
    for (const [line, match] of [
      [`GITHUB_TOKEN=${GHP}`, 'ghp_'],
      [`AWS_ACCESS_KEY_ID=${AKIA}`, 'AKIA'],
      [`OPENAI_API_KEY=${SK}`, 'sk-proj-'],
      [`token ${GHP} here`, 'ghp_'],
    ] as const) {
      const out = redactToolText(grepColour(line, match));
      expect(out).toContain(REDACTED);
      expect(out).not.toMatch(/\u001b/);
      for (const secret of [GHP, BODY, AKIA, AKIA.slice(4), SK, SK.slice(8)]) expect(out).not.toContain(secret);
    }
    expect(redactToolText(grepColour(`GITHUB_TOKEN=${GHP}`, 'ghp_'))).toBe(`GITHUB_TOKEN=${REDACTED}`);
  });

  it('redacts tokens wrapped whole in colour, bold or 8-bit CSI', () => {
    expect(redactToolText(`\u001b[32m${GHP}\u001b[0m`)).toBe(REDACTED);
    expect(redactToolText(`key \u001b[1m${AKIA}\u001b[0m`)).toBe(`key ${REDACTED}`);
    expect(redactToolText(`\u009b1m${SK}\u009b0m`)).toBe(REDACTED);
  });

  it('redacts the same output logged JSON-encoded, where ESC is written \\u001b', () => {
    const json = JSON.stringify({ stdout: grepColour(`GITHUB_TOKEN=${GHP}`, 'ghp_') });
    expect(json).toContain('\\u001b');
    const out = redactToolText(json);
    expect(out).toBe(`{"stdout":"GITHUB_TOKEN=${REDACTED}"}`);
  });

  it('redacts a token split by any escape sequence or invisible character, wherever the split falls', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(GHP, AKIA, SK),
        fc.array(fc.tuple(fc.nat(60), fc.constantFrom(...SPLITTERS)), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (token, cuts, json) => {
          // Each code goes between two characters of the token (or at an end), not inside another code.
          let split = token;
          for (const [at, s] of [...cuts]
            .map(([at, s]) => [at % (token.length + 1), s] as const)
            .sort((a, b) => b[0] - a[0]))
            split = split.slice(0, at) + s + split.slice(at);
          const line = `export SOME_VAR=1\n${split}\n`;
          const out = redactToolText(json ? JSON.stringify({ out: line }) : line);
          expect(out).toContain(REDACTED);
          for (const part of [token.slice(0, 16), token.slice(-16)]) expect(out).not.toContain(part);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the text around, the joiners scripts and emoji need, and text with no codes as it was', () => {
    expect(withoutTerminalCodes('\u001b[1;32mPASS\u001b[0m src/a.test.ts')).toBe('PASS src/a.test.ts');
    expect(withoutTerminalCodes('👩\u200d💻 می\u200cخواهم')).toBe('👩\u200d💻 می\u200cخواهم');
    expect(withoutTerminalCodes('C:\\users\\x and \\n and \\u0041')).toBe('C:\\users\\x and \\n and \\u0041');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (t) => {
        fc.pre(
          !/[\u001b\u0090\u0098\u009b\u009d-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e]|\\u001b/i.test(
            t,
          ) && !/[\u2060-\u2064\u2066-\u2069\ufeff]/.test(t),
        );
        expect(withoutTerminalCodes(t)).toBe(t);
      }),
    );
  });

  it('leaves no escape, however the codes nest, so a second pass changes nothing', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        ...SPLITTERS,
        '\u001b',
        '\u001b[',
        '\u009b',
        '[31m',
        '[',
        'm',
        '\\',
        '\\u00',
        '\\u001b',
        '\\u001B[0m',
        '1b',
        '1b[m',
        'u001b',
        ']0;',
        '\u0007',
        '\\',
      ),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const t = parts.join('');
        const once = withoutTerminalCodes(t);
        expect(once).not.toMatch(/[\u001b\u009b\u200b\u202e]|\\u001b/i);
        expect(withoutTerminalCodes(once)).toBe(once);
        const redacted = redactToolText(t);
        expect(redactToolText(redacted)).toBe(redacted);
        expect(redactSecretsUngated(withoutTerminalCodes(t))).toBe(redacted);
      }),
      { numRuns: 1000 },
    );
    // An escape formed by taking out another, any number of levels deep.
    const nested = (n: number) => `${'\\u00'.repeat(n)}\\u001b[m${'1b[m'.repeat(n)}ok`;
    expect(withoutTerminalCodes(nested(5))).toBe('ok');
    expect(withoutTerminalCodes(nested(20_000))).toBe('ok');
  });

  it('stays linear on hostile inputs of a megabyte', () => {
    const MB = 1_000_000;
    const fill = (s: string) => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
    const hostile = [
      fill('\u001b['),
      `\u001b[${fill('1;')}`,
      fill('\u001b]0;'),
      `\u001b]${fill('x')}`,
      fill('\u009b'),
      fill('\u200b'),
      fill('\\u001b['),
      `\\u001b[${fill('0;')}`,
      fill('\\u00'),
      `${fill('\\u00')}\\u001b[m${fill('1b[m')}`,
      fill('ghp_\u001b[m'),
    ];
    for (const h of hostile) expect(typeof redactToolText(h)).toBe('string');
  });
});

describe("a person's text (commit, note, objective) with terminal codes or invisible characters", () => {
  it('comes back byte for byte when it holds no secret', () => {
    for (const text of [
      'fix \u001b[31mred\u001b[0m build',
      'zero\u200bwidth and \u202ebidi',
      'full-width：colon ＡＢＣ',
      `safe ${BODY.slice(0, 8)}\u200b`,
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('is redacted where the split secret is, its other codes kept', () => {
    fc.assert(
      fc.property(fc.constantFrom(GHP, AKIA, SK), fc.constantFrom(...SPLITTERS), fc.nat(), (token, splitter, at) => {
        const cut = 1 + (at % (token.length - 1));
        const text = `note \u001b[1mbold\u001b[0m: ${token.slice(0, cut)}${splitter}${token.slice(cut)} done`;
        const out = redactSecrets(text);
        expect(out).toContain(REDACTED);
        expect(withoutTerminalCodes(out)).not.toContain(token.slice(cut));
        expect(out.startsWith('note \u001b[1mbold\u001b[0m: ')).toBe(true);
        expect(redactSecrets(out)).toBe(out);
      }),
    );
    expect(redactSecrets(`password：hunter2x9 \u001b[1m!\u001b[0m`)).toBe(`password：${REDACTED} \u001b[1m!\u001b[0m`);
  });
});
