/**
 * Snippets: a short excerpt of a hit around its best-matching words.
 *
 * The text is split into Unicode words (Intl.Segmenter, UAX #29), so a cut falls between
 * words — never inside one, inside a grapheme (an emoji sequence, a letter and its accents)
 * or inside a surrogate pair — and scripts written without spaces (Chinese, Japanese) still
 * get word-sized pieces. The window is the stretch of at most `max` characters holding the
 * most distinct matched terms (then the most matches), widened on both sides with context.
 *
 * Matched words are marked «like this»: two characters per match, each usually one token,
 * against four for **bold**, and no clash with Markdown the text may itself contain.
 * Whitespace is collapsed to single spaces (a snippet is one line), marks standing on
 * whitespace or on nothing dropped with it; control characters become
 * spaces and bidirectional overrides are dropped, so a hostile entry cannot restyle a
 * terminal or reorder the line it is printed on.
 */
import { normalizeLine } from '../decider/objectives.js';
import { indexTerms, tokens } from './search-terms.js';

export const SNIPPET_MAX = 200;
export const MARK_OPEN = '«';
export const MARK_CLOSE = '»';
const ELLIPSIS = '…';

const CONTROL = /[\p{Cc}\u2028\u2029]/gu;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/**
 * Whitespace, with any marks or format characters attached to it (nothing to show). Marks
 * with no whitespace are kept: a word break inside a grapheme must not drop half of it.
 */
const BLANK = /^[\p{M}\p{Cf}]*\s[\s\p{M}\p{Cf}]*$/u;
/**
 * A run of whitespace with what attaches to it: marks and format characters after it, and the
 * prepended concatenation marks before it (UAX #29 joins those to the character that follows,
 * here the space) — all shown as one space.
 */
const SPACE_RUN = /[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]*\s[\s\p{M}\p{Cf}]*/gu;

interface Item {
  text: string;
  space: boolean;
  /** The matched terms this word carries (empty when it matches nothing). */
  terms: readonly string[];
}

let words: Intl.Segmenter | null = null;
let graphemes: Intl.Segmenter | null = null;

function wordSegments(text: string): Iterable<{ segment: string; isWordLike?: boolean | undefined }> {
  words ??= new Intl.Segmenter('und', { granularity: 'word' });
  return words.segment(text);
}

/** The text as display items: words and punctuation as they are, whitespace as one space. */
function itemsOf(text: string, matched: ReadonlySet<string>): Item[] {
  const out: Item[] = [];
  const flat = text.replace(CONTROL, ' ').replace(BIDI, '').toWellFormed().replace(SPACE_RUN, ' ');
  for (const s of wordSegments(flat)) {
    const shown = s.segment;
    if (shown === '') continue;
    if (BLANK.test(shown)) {
      if (out.length && !out[out.length - 1]!.space) out.push({ text: ' ', space: true, terms: [] });
      continue;
    }
    let terms: string[] = [];
    if (s.isWordLike && matched.size) {
      for (const tok of tokens(shown)) for (const t of indexTerms(tok)) if (matched.has(t) && !terms.includes(t)) terms.push(t);
    }
    out.push({ text: shown, space: false, terms });
  }
  return out;
}

const cost = (it: Item) => it.text.length + (it.terms.length ? MARK_OPEN.length + MARK_CLOSE.length : 0);

/** The window [a, b] over hit items with the most distinct terms, then the most hits, earliest first. */
function bestWindow(items: readonly Item[], sums: readonly number[], room: number): [number, number] | null {
  const hits: number[] = [];
  items.forEach((it, i) => it.terms.length && hits.push(i));
  if (!hits.length) return null;
  const counts = new Map<string, number>();
  let best: [number, number] | null = null;
  let bestDistinct = -1;
  let bestHits = -1;
  let lo = 0;
  for (let hi = 0; hi < hits.length; hi++) {
    for (const t of items[hits[hi]!]!.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    while (lo < hi && sums[hits[hi]! + 1]! - sums[hits[lo]!]! > room) {
      for (const t of items[hits[lo]!]!.terms) {
        const n = counts.get(t)! - 1;
        if (n) counts.set(t, n);
        else counts.delete(t);
      }
      lo++;
    }
    if (sums[hits[hi]! + 1]! - sums[hits[lo]!]! > room) continue; // one word longer than the room
    if (counts.size > bestDistinct || (counts.size === bestDistinct && hi - lo + 1 > bestHits)) {
      best = [hits[lo]!, hits[hi]!];
      bestDistinct = counts.size;
      bestHits = hi - lo + 1;
    }
  }
  return best;
}

/** The longest start of `text` of at most `room` characters ending on a grapheme boundary. */
function cutGraphemes(text: string, room: number): string {
  graphemes ??= new Intl.Segmenter('und', { granularity: 'grapheme' });
  let end = 0;
  for (const g of graphemes.segment(text)) {
    if (g.index + g.segment.length > room) break;
    end = g.index + g.segment.length;
  }
  return text.slice(0, end);
}

/**
 * An excerpt of `text` of at most `max` characters (marks and ellipses included) around the
 * words carrying any of `matched` (lowercased index terms); the start of the text when none do.
 */
export function makeSnippet(text: string, matched: ReadonlySet<string>, max = SNIPPET_MAX): string {
  const items = itemsOf(text, matched);
  const sums = [0];
  for (const it of items) sums.push(sums[sums.length - 1]! + cost(it));
  const room = Math.max(1, max - 2 * ELLIPSIS.length);
  let window = bestWindow(items, sums, room);
  if (!window) {
    const first = items.findIndex((it) => !it.space);
    if (first === -1) return '';
    if (sums[first + 1]! - sums[first]! > room) {
      // A single word wider than the room (a long hash or URL): the only cut left is inside it.
      const it = items[first]!;
      return cutGraphemes(it.text, room) + ELLIPSIS;
    }
    window = [first, first];
  }
  let [a, b] = window;
  // Widen one item at a time, alternating sides, while the window still fits.
  for (let grew = true; grew; ) {
    grew = false;
    if (a > 0 && sums[b + 1]! - sums[a - 1]! <= room) {
      a--;
      grew = true;
    }
    if (b < items.length - 1 && sums[b + 2]! - sums[a]! <= room) {
      b++;
      grew = true;
    }
  }
  while (a < b && items[a]!.space) a++;
  while (b > a && items[b]!.space) b--;
  let out = '';
  for (let i = a; i <= b; i++) {
    const it = items[i]!;
    out += it.terms.length ? MARK_OPEN + it.text + MARK_CLOSE : it.text;
  }
  const before = items.slice(0, a).some((it) => !it.space);
  const after = items.slice(b + 1).some((it) => !it.space);
  return (before ? ELLIPSIS : '') + out + (after ? ELLIPSIS : '');
}

/**
 * The text a hit's snippet is cut from: without the line its title already shows, so a hit says
 * it once. A commit's title is its text's first line unless one was given, a merge's is
 * `Merge <branch>: ` and its synthesis's first line; a title clipped short of that line (ending
 * in an ellipsis) leaves the rest of the line, after one.
 */
export function beyondTitle(text: string, title: string | undefined): string {
  if (!title) return text;
  const body = text.trimStart();
  const nl = body.indexOf('\n');
  const first = normalizeLine(nl === -1 ? body : body.slice(0, nl));
  const rest = nl === -1 ? '' : body.slice(nl + 1);
  if (!first) return text;
  const colon = title.indexOf(': ');
  for (const shown of colon === -1 ? [title] : [title, title.slice(colon + 2)]) {
    if (shown === first) return rest;
    const head = shown.endsWith(ELLIPSIS) ? shown.slice(0, -ELLIPSIS.length) : '';
    if (head && first.startsWith(head)) return `${ELLIPSIS}${first.slice(head.length)}${rest ? `\n${rest}` : ''}`;
  }
  return text;
}
