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
const ESCAPED_TAIL = new RegExp(ESCAPED_REST, 'iy');

/** The text without terminal escape sequences and invisible characters that could split a secret. */
export function withoutTerminalCodes(text: string): string {
  return stripped(text, false).clean;
}

/** Text without terminal codes, and where each of its characters was in the text (one more place: the end). */
interface Cleaned {
  readonly clean: string;
  readonly places: readonly number[];
}

/**
 * The same removals with each kept character's place in `text`, and full-width forms as ASCII,
 * for text that keeps its codes (a commit, a note): its secrets are found in the clean copy and
 * redacted where they are in the original.
 */
export function cleanedWithPlaces(text: string): Cleaned {
  const { clean, places } = stripped(text, true);
  return folded(clean, places ?? Array.from({ length: clean.length + 1 }, (_, i) => i));
}

/**
 * Raw sequences and characters in one pass (what it removes can join into nothing raw), then
 * every JSON-escaped ESC with the sequence it opens, read onto a stack: an ESC that a removal
 * forms by joining what was on either side of it (`\u00` + `\u001b[m` + `1b`) is found as it
 * forms, so the kept text never holds one and the pass stays linear however the codes nest.
 */
function stripped(text: string, track: boolean): { clean: string; places: number[] | undefined } {
  let clean = text;
  let places: number[] | undefined;
  if (HAS_RAW.test(text)) {
    const kept: number[] = [];
    let from = 0;
    clean = '';
    for (const m of text.matchAll(RAW)) {
      clean += text.slice(from, m.index);
      if (track) for (let i = from; i < m.index; i++) kept.push(i);
      from = m.index + m[0].length;
    }
    clean += text.slice(from);
    if (track) for (let i = from; i <= text.length; i++) kept.push(i);
    if (track) places = kept;
  }
  if (!/\\u001b/i.test(clean)) return { clean, places };
  const chars: string[] = [];
  const at: number[] = [];
  for (let i = 0; i < clean.length; ) {
    chars.push(clean[i]!);
    if (track) at.push(places ? places[i]! : i);
    i++;
    const n = chars.length;
    if (
      n >= 6 &&
      chars[n - 6] === '\\' &&
      chars
        .slice(n - 5)
        .join('')
        .toLowerCase() === 'u001b'
    ) {
      chars.length = n - 6;
      at.length = Math.min(at.length, n - 6);
      ESCAPED_TAIL.lastIndex = i;
      if (ESCAPED_TAIL.test(clean)) i = ESCAPED_TAIL.lastIndex;
    }
  }
  if (track) at.push(places ? places[clean.length]! : clean.length);
  return { clean: chars.join(''), places: track ? at : undefined };
}

/**
 * What reads as ASCII to the rules, one for one or by whole words: full-width forms
 * (`ＡＰＩ_KEY`), a colon of East Asian text with the spaces around it (`password ： x`), and the
 * word for password in Chinese, Japanese and Korean, so the keyword rules see `password:x`.
 */
const PASSWORD_WORDS = 'パスワード|暗証番号|密码|密碼|口令|비밀번호';
const WIDE_COLON = String.raw`[ \t\u3000]{0,4}[：﹕︓][ \t\u3000]{0,4}`;
const FOLD = new RegExp(String.raw`[\uff01-\uff5e]|${WIDE_COLON}|${PASSWORD_WORDS}`, 'g');
/** Whether a text holds anything FOLD would change: a full-width form, one of the colons, or a word. */
const MAY_FOLD = new RegExp(String.raw`[\uff01-\uff5e\ufe13\ufe55]|${PASSWORD_WORDS}`);

function folded(clean: string, places: number[]): Cleaned {
  if (!MAY_FOLD.test(clean)) return { clean, places };
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
