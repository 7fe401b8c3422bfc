/**
 * What a terminal would not show is taken out of text before it is redacted and logged: tool
 * output run with colour (`grep --color=always`, FORCE_COLOR, `git -c color.ui=always`) splits a
 * token with escape sequences (`ghp_\x1b[m\x1b[K…`), and a zero-width character splits one just
 * as well (`ghp_\u200b…`); neither the token rules nor the keyword rules would see the secret.
 * The log has no use for terminal codes either: removing them keeps it readable.
 *
 * Removed:
 * - escape sequences: CSI (`ESC [` or the 8-bit U+009B, parameters, a final byte), the string
 *   sequences OSC, DCS, SOS, PM and APC up to their BEL or ST terminator (their 8-bit introducers
 *   too), and every other `ESC x`; an ESC or introducer left over on its own goes as well;
 * - the same sequences written JSON-escaped (`\u001b[31m`, `\u001b(B`): a tool's structured
 *   output is logged as JSON, where ESC is spelled that way;
 * - zero-width and invisible characters that may split a word: U+200B, U+2060–U+2064, U+FEFF,
 *   U+00AD (soft hyphen), U+180E; and the bidirectional controls (U+202A–U+202E, U+2066–U+2069,
 *   U+200E, U+200F, U+061C), which shown text neutralises anyway (log/safe-text.ts).
 *   U+200C and U+200D stay: scripts and emoji need them.
 *
 * The result holds no ESC, introducer or removed character, so a second pass changes nothing:
 * redaction stays idempotent. Every quantifier is bounded and each match starts on a literal, so
 * the pass is linear in the input.
 */

/** Invisible characters that may split a word, and the introducers of escape sequences. */
const INVISIBLE =
  String.raw`\u001b\u0090\u0098\u009b\u009d\u009e\u009f\u00ad\u061c\u180e\u200b\u200e\u200f` +
  String.raw`\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff`;
/** Escape sequences, left-over introducers and invisible characters, as raw characters. */
const RAW = new RegExp(
  String.raw`(?:\u001b\[|\u009b)[0-?]{0,64}[ -/]{0,16}[@-~]|(?:\u001b[\]PX^_]` +
    String.raw`|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]{0,4096}(?:\u0007|\u001b\\|\u009c)` +
    String.raw`|\u001b[ -/]{0,16}[0-~]` +
    `|[${INVISIBLE}]`,
  'g',
);
const HAS_RAW = new RegExp(`[${INVISIBLE}]`);

/**
 * What follows a JSON-escaped ESC in a sequence: a CSI; an OSC, DCS, SOS, PM or APC up to its
 * BEL or ST (escaped too); or one character, a backslash being escaped as `\\`.
 */
const ESCAPED_REST =
  String.raw`\[[0-?]{0,64}[ -/]{0,16}[@-~]|[\]PX^_][^\\\n]{0,4096}(?:\\u0007|\\u001b\\\\)|[ -/]{0,16}` +
  String.raw`(?:\\\\|[0-\[\]-~])`;
/** A JSON-escaped ESC, with the rest of its sequence when one follows. */
const ESCAPED = new RegExp(String.raw`\\u001b(?:${ESCAPED_REST})?`, 'gi');
const ESCAPED_TAIL = new RegExp(ESCAPED_REST, 'iy');
const ESC_WORD = '\\u001b';

/** The text without terminal escape sequences and invisible characters that could split a secret. */
export function withoutTerminalCodes(text: string): string {
  const raw = HAS_RAW.test(text) ? text.replace(RAW, '') : text;
  return raw.includes('\\') ? withoutEscapedEsc(raw) : raw;
}

/**
 * Every JSON-escaped ESC (and the sequence it opens) removed, including one that a removal forms by
 * joining what was on either side of it (`\u00` + `\u001b[m` + `1b`): the kept text never holds
 * one, checked at each join, where only its last five characters can begin one.
 */
function withoutEscapedEsc(text: string): string {
  if (!/\\u001b/i.test(text)) return text;
  const kept: string[] = [];
  let tail = ''; // the last characters kept, at most five
  let i = 0;
  for (;;) {
    ESCAPED.lastIndex = i;
    const m = ESCAPED.exec(text);
    if (!m) break;
    const piece = text.slice(i, m.index);
    if (piece !== '') {
      kept.push(piece);
      tail = piece.length >= 5 ? piece.slice(-5) : (tail + piece).slice(-5);
    }
    i = m.index + m[0].length;
    // A removal joined the kept text to the text ahead: an ESC across the join goes too.
    for (let k = joined(tail, text, i); k > 0; k = joined(tail, text, i)) {
      dropLast(kept, k);
      tail = lastChars(kept, 5);
      i += ESC_WORD.length - k;
      ESCAPED_TAIL.lastIndex = i;
      if (ESCAPED_TAIL.test(text)) i = ESCAPED_TAIL.lastIndex;
    }
  }
  kept.push(text.slice(i));
  return kept.join('');
}

/** How many of the kept text's last characters begin an escaped ESC that the text at `i` completes; 0 if none. */
function joined(tail: string, text: string, i: number): number {
  for (let k = Math.min(tail.length, ESC_WORD.length - 1); k >= 1; k--) {
    if (`${tail.slice(-k)}${text.slice(i, i + ESC_WORD.length - k)}`.toLowerCase() === ESC_WORD) return k;
  }
  return 0;
}

function dropLast(parts: string[], n: number): void {
  while (n > 0 && parts.length > 0) {
    const last = parts.pop()!;
    if (last.length > n) parts.push(last.slice(0, last.length - n));
    n -= Math.min(n, last.length);
  }
}

function lastChars(parts: readonly string[], n: number): string {
  let out = '';
  for (let j = parts.length - 1; j >= 0 && out.length < n; j--) out = parts[j]! + out;
  return out.slice(-n);
}

/** Text without terminal codes, and where each of its characters was in the text (one more place: the end). */
export interface Cleaned {
  readonly clean: string;
  readonly places: readonly number[];
}

/**
 * The same removals with each kept character's place in `text`, and full-width forms as ASCII,
 * for text that keeps its codes (a commit, a note): its secrets are found in the clean copy and
 * redacted where they are in the original. A removal that joins its neighbours into a new
 * sequence is caught by the next of a few passes.
 */
export function cleanedWithPlaces(text: string): Cleaned {
  let clean = text;
  let places: number[] | undefined;
  for (let pass = 0; pass < 4 && (HAS_RAW.test(clean) || /\\u001b/i.test(clean)); pass++) {
    for (const re of [RAW, ESCAPED]) {
      places ??= Array.from({ length: text.length + 1 }, (_, i) => i);
      const kept: number[] = [];
      let out = '';
      let from = 0;
      for (const m of clean.matchAll(re)) {
        out += clean.slice(from, m.index);
        for (let i = from; i < m.index; i++) kept.push(places[i]!);
        from = m.index + m[0].length;
      }
      out += clean.slice(from);
      for (let i = from; i <= clean.length; i++) kept.push(places[i]!);
      clean = out;
      places = kept;
    }
  }
  return folded(clean, places ?? Array.from({ length: clean.length + 1 }, (_, i) => i));
}

/**
 * What reads as ASCII to the rules, one for one or by whole words: full-width forms
 * (`ＡＰＩ_KEY`), a colon of East Asian text with the spaces around it (`password ： x`), and the
 * word for password in Chinese, Japanese and Korean, so the keyword rules see `password:x`.
 */
const FOLD = /[\uff01-\uff5e]|[ \t\u3000]{0,4}[：﹕︓][ \t\u3000]{0,4}|パスワード|暗証番号|密码|密碼|口令|비밀번호/g;

function folded(clean: string, places: number[]): Cleaned {
  if (!/[\uff01-\uff5e\ufe13\ufe55]|パスワード|暗証番号|密[码碼]|口令|비밀번호/.test(clean)) return { clean, places };
  let out = '';
  const kept: number[] = [];
  let from = 0;
  for (const m of clean.matchAll(FOLD)) {
    out += clean.slice(from, m.index);
    for (let i = from; i < m.index; i++) kept.push(places[i]!);
    const c = m[0];
    const ascii = c.length === 1 && c >= '\uff01' && c <= '\uff5e' ? String.fromCharCode(c.charCodeAt(0) - 0xfee0) : '';
    const word = ascii || (/[：﹕︓]/.test(c) ? ':' : 'password');
    out += word;
    // Every character of a folded word stands where the whole was: spans around it map back whole.
    for (let k = 0; k < word.length; k++) kept.push(places[m.index + Math.min(k, c.length - 1)]!);
    from = m.index + c.length;
  }
  out += clean.slice(from);
  for (let i = from; i <= clean.length; i++) kept.push(places[i]!);
  return { clean: out, places: kept };
}
