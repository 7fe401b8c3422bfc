/**
 * Snippets over any text: bounded, well-formed, cut only between graphemes — and between
 * words wherever the text has word separators — with every marked word a real match.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeSnippet, SNIPPET_MAX } from '../../src/context/search-snippet.js';
import { indexTerms, tokens } from '../../src/context/search-terms.js';
import { hostileText } from '../support/arbitraries.js';

const CONTROL = /[\p{Cc}\u2028\u2029]/gu;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/**
 * As a snippet shows text: one space for any run of whitespace, with marks on it (nothing to
 * show) dropped — including the prepended concatenation marks a grapheme joins to the space after them.
 */
const flat = (s: string) =>
  s
    .replace(CONTROL, ' ')
    .replace(BIDI, '')
    .toWellFormed()
    .replace(/[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]*\s[\s\p{M}\p{Cf}]*/gu, ' ');
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
const isGraphemeBoundary = (s: string, i: number) => i === 0 || i === s.length || [...graphemes.segment(s)].some((g) => g.index === i);
const WORDISH = /[\p{L}\p{N}\p{M}]/u;

/** The snippet without its marks and end ellipses. */
function inner(snippet: string): string {
  return snippet.replace(/[«»]/g, '').replace(/^…/, '').replace(/…$/, '');
}

/** Start offsets of `needle` in `hay`. */
function occurrences(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) out.push(i);
  return out;
}

const PIECES = ['e\u0301', '👨‍👩‍👧', '🇫🇷🇩🇪', '👍🏽', '\ud800', '\udfff', '東京都に住んでいます', 'مرحبا بالعالم', '\u202eevil', '\u001b[31m', 'x\u0000y', 'café', 'ﬁle', 'Ｆｕｌｌ', '\t\r\n', ' '];
const clean = (s: string) => s.replace(/[«»…]/g, '');

/** Hostile text: random units, odd Unicode and words a query can match. */
const text = fc
  .array(fc.oneof(hostileText, fc.constantFrom(...PIECES), fc.constantFrom('tokenizer', 'retryWithBackoff', 'src/http.ts', 'unicode', 'parser')), { maxLength: 60 })
  .map((a) => clean(a.join(' ')));

/** Plain words between spaces and punctuation, of at most 30 letters. */
const word = fc.stringMatching(/^[a-zA-Zàéîõü]{1,30}$/);
const sep = fc.constantFrom(' ', '  ', ', ', '. ', '\n', ' - ', ' (', ') ');
const prose = fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 120 }).map((a) => a.map(([w, s]) => w + s).join(''));

function matchedFrom(t: string, picks: number[]): Set<string> {
  const terms = tokens(t).flatMap(indexTerms);
  return new Set(picks.map((p) => terms[p % Math.max(1, terms.length)]).filter((x): x is string => !!x));
}

describe('makeSnippet', () => {
  it('is at most SNIPPET_MAX characters, well-formed, one clean line, cut between graphemes', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 3 }), (t, picks) => {
        const matched = matchedFrom(t, picks);
        const s = makeSnippet(t, matched);
        expect(s.length).toBeLessThanOrEqual(SNIPPET_MAX);
        expect(s.isWellFormed()).toBe(true);
        expect(s).not.toMatch(CONTROL);
        expect(s).not.toMatch(BIDI);
        const body = inner(s).trim();
        if (!body) return;
        const hay = flat(t);
        // Inside one long word, the only cut is at its end (then marked by `…`).
        const at = occurrences(hay, body.replace(/\s+/gu, ' '));
        expect(at.length).toBeGreaterThan(0);
        expect(at.some((i) => isGraphemeBoundary(hay, i) && isGraphemeBoundary(hay, i + body.length))).toBe(true);
        for (const m of s.matchAll(/«([^»]*)»/g)) expect(tokens(m[1]!).flatMap(indexTerms).some((x) => matched.has(x))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('never cuts inside a word, and marks a match whenever the text has one', () => {
    fc.assert(
      fc.property(prose, fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), (t, picks) => {
        const matched = matchedFrom(t, picks);
        const s = makeSnippet(t, matched);
        const body = inner(s).trim();
        const hay = flat(t);
        const ok = occurrences(hay, body).some((i) => !(WORDISH.test(hay[i - 1] ?? '') && WORDISH.test(hay[i] ?? '')) && !(WORDISH.test(hay[i + body.length - 1] ?? '') && WORDISH.test(hay[i + body.length] ?? '')));
        expect(ok).toBe(true);
        if (matched.size) expect(s).toMatch(/«[^»]+»/);
        expect(s.startsWith('…')).toBe(!hay.trimStart().startsWith(body));
      }),
      { numRuns: 400 },
    );
  });

  it('centres on the stretch with the most distinct matched words', () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(20);
    const t = `${filler} tokenizer ${filler} tokenizer handles unicode well ${filler}`;
    const s = makeSnippet(t, new Set(['tokenizer', 'unicode']));
    expect(s).toMatch(/^….*«tokenizer» handles «unicode».*…$/);
    expect(makeSnippet('short text', new Set())).toBe('short text');
    // A prepended concatenation mark joins the space after it (found by fast-check): shown as that space.
    expect(makeSnippet('\u{110bd} ', new Set())).toBe('');
    expect(makeSnippet('x\u{110bd} y \u0600 z', new Set())).toBe('x y z');
    expect(makeSnippet('', new Set(['x']))).toBe('');
    expect(makeSnippet(`${'a'.repeat(500)} tail`, new Set())).toMatch(/^a{198}…$/);
  });

  it('cuts scripts without spaces into words', () => {
    const t = '東京都に住んでいます。'.repeat(40);
    const s = makeSnippet(t, new Set(['住']));
    expect(s.length).toBeLessThanOrEqual(SNIPPET_MAX);
    expect(s).toContain('«住»');
  });
});
