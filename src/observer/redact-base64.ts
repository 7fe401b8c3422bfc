/**
 * Secrets wrapped in base64: `echo Z2hwX… | base64 -d`, a Kubernetes Secret's `data:` values, a
 * `.dockerconfigjson`, a base64 `user:token`. A run of base64 is decoded and handed back to the
 * rules; if they find a secret in the decoded text, the whole run is redacted.
 *
 * Kept cheap and linear:
 * - Runs of 16 to 8,192 characters only (12 bytes to 6 KiB decoded). Longer runs are images,
 *   bundles or archives, not credentials, and are not decoded.
 * - The first 12 characters (9 bytes) are decoded first; a run is decoded whole only if they
 *   are printable ASCII. Identifiers, hashes and binary data (a PNG's `iVBORw0K…`) fail there,
 *   almost always on the first byte, at a constant cost.
 * - At most MAX_DECODES runs per input are decoded whole (shared with the nested levels), so a
 *   text full of base64 costs a bounded number of rule passes over at most 6 KiB each.
 * - Lines wrapped at 60, 64, 72 or 76 columns (base64(1), PEM, YAML block scalars) are joined
 *   first, so a token split across lines is still seen whole.
 */

import { Buffer } from 'node:buffer';
import { isPrintableAscii } from './redact-context.js';
import { leadStartingWord, REDACTED } from './redact-rule.js';

const MIN_BASE64_RUN = 16;
const MAX_BASE64_RUN = 8192;
export const MAX_DECODES = 200;
const WRAP_WIDTHS = new Set([60, 64, 72, 76]);

/**
 * The short last line of a wrapped block, read from where the block's full lines end: whole
 * 4-character quanta with their padding, as an encoder writes it (`QQ==`), so a stray word on
 * the next line is not glued on.
 */
const TAIL = new RegExp(
  String.raw`(?:\r?\n|(?:\\r)?\\n)[ \t]{0,16}((?:[A-Za-z0-9+/_-]{4}){0,18}(?:[A-Za-z0-9+/_-]{4}` +
    String.raw`|[A-Za-z0-9+/_-]{3}=|[A-Za-z0-9+/_-]{2}==))(?![A-Za-z0-9+/=_-])`,
  'y',
);

const RUN = new RegExp(
  `${leadStartingWord('[A-Za-z0-9+/_-]', 'A-Za-z0-9+/_-')}[A-Za-z0-9+/_-]` +
    `{${MIN_BASE64_RUN - 1},${MAX_BASE64_RUN - 1}}={0,2}(?![A-Za-z0-9+/=_-])`,
  'g',
);

/** Whole decodes left for one input, shared across nesting levels. */
export interface DecodeBudget {
  left: number;
}

/** Decoded text: no control characters (UTF-8 beyond ASCII is allowed). */
function isText(bytes: Uint8Array): boolean {
  for (const b of bytes) if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f) return false;
  return true;
}

function holdsSecret(b64: string, hasSecret: (decoded: string) => boolean, budget: DecodeBudget): boolean {
  if (!isPrintableAscii(Buffer.from(b64.slice(0, 12), 'base64'))) return false;
  if (budget.left <= 0) return false;
  budget.left--;
  const bytes = Buffer.from(b64, 'base64');
  return isText(bytes) && hasSecret(bytes.toString('utf8'));
}

interface Group {
  start: number;
  end: number;
  b64: string;
  lastLength: number;
}

/** Redact every base64 run (or wrapped block) whose decoded text `hasSecret` flags. */
export function redactBase64(text: string, hasSecret: (decoded: string) => boolean, budget: DecodeBudget): string {
  if (text.length < MIN_BASE64_RUN) return text;
  let out = '';
  let last = 0;
  let group: Group | undefined;
  const flush = (g: Group) => {
    // A wrapped block's last line may be too short to be a run of its own (`QQ==`).
    if (WRAP_WIDTHS.has(g.lastLength)) {
      TAIL.lastIndex = g.end;
      const tail = TAIL.exec(text);
      if (tail) {
        g.b64 += tail[1];
        g.end = TAIL.lastIndex;
      }
    }
    if (!holdsSecret(g.b64, hasSecret, budget)) return;
    out += text.slice(last, g.start) + REDACTED;
    last = g.end;
  };
  for (const m of text.matchAll(RUN)) {
    const run = m[0];
    const start = m.index;
    // A wrapped block: the previous line was full width and only a line break (and the same
    // block's indentation) separates it from this one.
    const continues =
      group !== undefined &&
      WRAP_WIDTHS.has(group.lastLength) &&
      run.length % 4 === 0 &&
      run.length <= group.lastLength;
    if (group && continues && /^(?:\r?\n|(?:\\r)?\\n)[ \t]{0,16}$/.test(text.slice(group.end, start))) {
      group.b64 += run;
      group.end = start + run.length;
      group.lastLength = run.length;
      continue;
    }
    if (group) flush(group);
    group = { start, end: start + run.length, b64: run, lastLength: run.length };
  }
  if (group) flush(group);
  return out + text.slice(last);
}
