/**
 * Size bounds for what the hook logs. A tool can return megabytes (a build log, a minified
 * bundle); the log entry keeps the head and the tail, where the command and the verdict are,
 * and says how much was cut so nobody mistakes the excerpt for the whole.
 */

/** Characters kept of a tool's input in its log entry. */
export const INPUT_LIMIT = 1_000;
/**
 * Characters kept of a tool's result in its log entry: what the resume benchmark showed is
 * worth its tokens (docs/benchmarks.md) — a verdict, not a transcript. A failure keeps more,
 * since why something failed is what a resuming agent must not rediscover.
 */
export const RESULT_LIMIT = 400;
export const ERROR_LIMIT = 1_500;
/**
 * Raw text longer than this is cut before redaction: redaction is linear, but there is no reason
 * to scan megabytes that will be dropped anyway. The window is wide enough that a secret near the
 * kept head or tail is still seen whole by the redactor.
 */
export const SCAN_LIMIT = 256_000;

/** Keep at most `limit` characters: the head and the tail, joined by a marker naming the cut. */
export function boundText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const marker = (cut: number) => `\n[… ${cut} characters omitted …]\n`;
  // The marker's own length is paid for out of the budget so the result never exceeds `limit`.
  const room = Math.max(0, limit - marker(text.length).length);
  const headEnd = clampToCodePoint(text, Math.ceil(room * 0.6), -1);
  const tailStart = clampToCodePoint(text, text.length - (room - Math.ceil(room * 0.6)), +1);
  return text.slice(0, headEnd) + marker(tailStart - headEnd) + text.slice(tailStart);
}

/** Move a cut off the middle of a surrogate pair, so no lone surrogate reaches the log. */
function clampToCodePoint(text: string, index: number, direction: -1 | 1): number {
  const code = text.charCodeAt(index);
  const isLowSurrogate = code >= 0xdc00 && code <= 0xdfff;
  if (index > 0 && index < text.length && isLowSurrogate) return index + direction;
  return index;
}
