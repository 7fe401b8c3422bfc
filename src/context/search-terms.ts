/**
 * How text becomes search terms. Indexing and querying use the same rules, so a word finds
 * itself however it was written.
 *
 * A token is a run of Unicode letters, digits and marks, possibly joined by short runs of
 * `. _ - / \ : @` (paths, identifiers, URLs, `std::vec`). Each token is indexed as:
 * - the whole token, lowercased (`src/http.ts`, `retrywithbackoff`), so an exact identifier or
 *   path scores above text that merely contains its parts;
 * - its pieces between joiners (`src`, `http`, `ts`);
 * - the camelCase / PascalCase words of each piece (`retryWithBackoff` → `retry`, `with`,
 *   `backoff`; `HTTPServer` → `http`, `server`). Digits stay with their letters (`utf8`, `v2`).
 * Non-ASCII terms are folded: compatibility forms are decomposed (full-width letters,
 * ligatures), and the accents of Latin, Greek and Cyrillic letters dropped, so `cafe` finds
 * `café` and `café` finds `cafe`, however either was composed. Marks of other scripts carry
 * meaning (Devanagari vowel signs, the kana voicing mark, Hebrew and Arabic points as written)
 * and are kept, recomposed (NFC) as typed. A few Latin letters Unicode does not decompose
 * (`ø`, `ł`, `ß`, `æ`…) are spelled the way a keyboard without them would.
 */

/** A token: word characters, optionally joined by 1–3 joiner characters. */
const TOKEN = /[\p{L}\p{N}\p{M}]+(?:[._\-/\\:@]{1,3}[\p{L}\p{N}\p{M}]+)*/gu;
const JOINERS = /[._\-/\\:@]+/u;
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const HAS_JOINER = /[._\-/\\:@]/u;
const NON_ASCII = /[^\x00-\x7f]/;
const UPPER_AFTER_LOWER = /[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;

/** A whole token longer than this is not indexed as one term (its pieces still are). */
export const MAX_WHOLE = 80;
/** Pieces longer than this are blobs (base64, minified code), not words: not indexed. */
export const MAX_PIECE = 48;
/** Terms a query may carry; the rest are ignored, which bounds the work per shard. */
export const MAX_QUERY_TERMS = 24;

/** A combining mark on a Latin, Greek or Cyrillic letter (after NFKD, with any marks between). */
const FOLDED_MARK = /(?<=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]\p{M}*)\p{M}/gu;
const SPELLED: Readonly<Record<string, string>> = { ø: 'o', ł: 'l', đ: 'd', ħ: 'h', ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th', ı: 'i' };
const UNDECOMPOSED = /[øłđħßæœþı]/g;

export function normalizeTerm(s: string): string {
  if (!NON_ASCII.test(s)) return s.toLowerCase();
  return s.normalize('NFKD').toLowerCase().replace(FOLDED_MARK, '').replace(UNDECOMPOSED, (c) => SPELLED[c]!).normalize('NFC');
}

/** The tokens of a text, in order (MiniSearch's `tokenize`). */
export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

interface Split {
  /** The finest words: pieces split at joiners, then at case changes. */
  words: string[];
  /** Coarser forms worth a match of their own: the whole token and camelCase pieces. */
  wholes: string[];
}

function split(token: string): Split {
  const words: string[] = [];
  const wholes: string[] = [];
  const joined = HAS_JOINER.test(token);
  if (joined && token.length <= MAX_WHOLE) wholes.push(normalizeTerm(token));
  for (const piece of joined ? token.split(JOINERS) : [token]) {
    if (!piece || piece.length > MAX_PIECE) continue;
    if (UPPER_AFTER_LOWER.test(piece)) {
      wholes.push(normalizeTerm(piece));
      for (const w of piece.split(CAMEL)) if (w) words.push(normalizeTerm(w));
    } else {
      words.push(normalizeTerm(piece));
    }
  }
  return { words, wholes };
}

/** Every term a token is indexed under (MiniSearch's `processTerm`), without duplicates. */
export function indexTerms(token: string): string[] {
  const { words, wholes } = split(token);
  if (wholes.length === 0 && words.length === 1) return words;
  return [...new Set([...wholes, ...words])];
}

export interface QueryTerm {
  term: string;
  /** A document must match every required term to count as an all-words match. */
  required: boolean;
  /** Also match indexed terms this term begins (the last word, as the user may still be typing). */
  prefix: boolean;
  /** Edit distance allowed (0: exact). */
  fuzzy: number;
}

/**
 * Prefix search on the last word only, and only from 3 characters: a one- or two-letter
 * prefix expands to a large part of the vocabulary, which is slow and mostly noise.
 */
export const MIN_PREFIX = 3;

/**
 * Typo tolerance by length: none under 5 characters (one edit turns `log` into `lag`, `lot`,
 * `dog`…), one edit for 5–7 (`tokenzer` → `tokenizer`), two from 8 on. This is MiniSearch's
 * `fuzzy: 0.2` rounded, capped at 2 so long words do not match unrelated ones.
 */
export function fuzzyDistance(term: string): number {
  if (term.length < 5) return 0;
  return term.length < 8 ? 1 : 2;
}

/**
 * The terms of a query. The finest words are required (`retryWithBackoff` needs `retry`,
 * `with` and `backoff`); whole tokens are optional extra terms that lift exact identifiers
 * and paths. Duplicates are dropped (MiniSearch would count them twice).
 */
export function queryTerms(query: string): QueryTerm[] {
  const required: string[] = [];
  const optional: string[] = [];
  for (const token of tokens(query)) {
    const { words, wholes } = split(token);
    required.push(...words);
    optional.push(...wholes);
  }
  const req = [...new Set(required)].slice(0, MAX_QUERY_TERMS);
  const seen = new Set(req);
  const opt = [...new Set(optional)].filter((t) => !seen.has(t)).slice(0, Math.max(0, MAX_QUERY_TERMS - req.length));
  // A query made only of over-long tokens keeps those as its required terms.
  const reqTerms = req.length ? req : opt.splice(0, opt.length);
  const out: QueryTerm[] = reqTerms.map((term, i) => ({
    term,
    required: true,
    prefix: i === reqTerms.length - 1 && term.length >= MIN_PREFIX,
    fuzzy: fuzzyDistance(term),
  }));
  for (const term of opt) out.push({ term, required: false, prefix: false, fuzzy: 0 });
  return out;
}
