/**
 * Text from memory is data that may have come from anyone through `git pull`. Wherever it is
 * shown — on a terminal, in a view, in what an agent is handed — it loses what could act rather
 * than read: control characters (C0 but newline and tab, DEL, C1), which drive a terminal
 * (erase a line, set the title, write the clipboard, open a hyperlink, hide text) and are shown
 * as U+FFFD here; the bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
 * U+061C), which reorder what is shown so that `src/\u202Egnp.exe` reads as `src/exe.png`
 * (Trojan source), shown as U+FFFD as well; and, in a field shown on one line, its line breaks, which could start a
 * heading, a section or an entry of their own and are shown as ` ⏎ `. Ordinary text, which has
 * neither, is returned as it is.
 */

/** What a control character is shown as. */
export const REPLACEMENT = '\uFFFD';
/** What a run of line breaks in a one-line field is shown as. */
export const LINE_BREAK = ' ⏎ ';

/** Every control character but newline and tab: C0, DEL and C1; and the bidirectional controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const CONTROL_ALL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Line breaks other than newline: CR (alone or before LF), NEL, and the Unicode line and paragraph separators. */
const BREAK = /[\r\u0085\u2028\u2029]/;
const BREAK_ALL = /\r\n?|[\u0085\u2028\u2029]/g;
/** A run of line breaks of any kind. */
const BREAKS_RUN = /[\n\r\u0085\u2028\u2029]+/g;
const ANY_BREAK = /[\n\r\u0085\u2028\u2029]/;

/**
 * Text that keeps its lines: every line break a newline, every other control character (bidi ones too) shown as U+FFFD.
 */
export function safeText(text: string): string {
  let out = text;
  if (BREAK.test(out)) out = out.replace(BREAK_ALL, '\n');
  if (CONTROL.test(out)) out = out.replace(CONTROL_ALL, REPLACEMENT);
  return out;
}

/** Text on one line: each run of line breaks shown as ` ⏎ `, every other control character as U+FFFD. */
export function flatText(text: string): string {
  let out = text;
  if (ANY_BREAK.test(out)) out = out.replace(BREAKS_RUN, LINE_BREAK);
  if (CONTROL.test(out)) out = out.replace(CONTROL_ALL, REPLACEMENT);
  return out;
}

/** Text on one line, at most `max` characters: whitespace folded, control characters shown (above). */
export function clip(text: string, max: number): string {
  const flat = flatText(text.replace(/\s+/g, ' ').trim());
  if (flat.length <= max) return flat;
  // At a word boundary where one is near, never inside a surrogate pair.
  let cut = flat.lastIndexOf(' ', max - 1);
  if (cut < max * 0.6) cut = max - 1;
  if (/[\uD800-\uDBFF]/.test(flat.charAt(cut - 1))) cut--;
  return `${flat.slice(0, cut).trimEnd()}…`;
}
