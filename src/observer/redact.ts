/**
 * Secret redaction for everything written under `.GCC/`, which is committed and shared: one rule
 * engine running secretlint's recommended preset (redact-provider.ts) and our rules as tables
 * (redact-rules.ts: provider tokens, context; redact-command.ts: command lines; redact-assign.ts:
 * keyworded values), then the same rules on what base64 and URL encoding wrap. Text is matched on
 * a copy without terminal codes and invisible characters (redact-escapes.ts), which could split a
 * secret. Every pattern is bounded and anchored on a literal or a word start, so the pass stays
 * linear; where a value's status is unclear, a credential shape is redacted, a bare word in code
 * is not.
 */

import { Buffer } from 'node:buffer';
import { ASSIGN_RULES } from './redact-assign.js';
import { COMMAND_RULES } from './redact-command.js';
import { cleanedWithPlaces, withoutTerminalCodes } from './redact-escapes.js';
import { PROVIDER_PATTERNS } from './redact-provider.js';
import { isPrintableAscii, leadStartingWord, REDACTED, type RedactionRule } from './redact-rule.js';
import { BLOCK_RULES, CONTEXT_RULES, FILE_RULES, TOKEN_RULES } from './redact-rules.js';

export { REDACTED };

/** A literal every match holds, for the preset's patterns that start with none (`["']?…SECRET…`). */
const HOLDS: readonly (readonly [RegExp, string])[] = [
  [/SECRET\|secret/, 'secret'],
  [/^\(\?:jdbc:\)\?mysql/, 'mysql'],
  [/^\(\?<protocol>/, '://'],
];

/**
 * The literals every match of a pattern starts with (after a leading `\b` or `(?<!\p{L})`),
 * lowercased: `npm_`, or each branch of a leading `(?:xoxb|xoxp…)`. None when a branch does not
 * start with one; the rule then always runs. Compiling the patterns (Unicode classes) costs more
 * than a hook's whole redaction, so those a text gives no cause for are never compiled.
 */
function keywordsOf(source: string): string[] {
  const body = source.replace(/^(?:\(\?<!\\p\{L\}\)|\\b)/, '');
  const group = /^\((?:\?:|\?<\w+>)?([^()]*)\)(?![?*{])/.exec(body);
  const branches = group ? group[1]!.split('|') : [body];
  const heads = branches.map((b) => /^(?:[A-Za-z0-9_-]|\\[./])*/.exec(b)![0].replace(/\\/g, ''));
  if (heads.every((h) => h.length >= 3)) return heads.map((h) => h.toLowerCase());
  return HOLDS.filter(([re]) => re.test(source)).map(([, k]) => k);
}

/**
 * A pattern's leading word-start check (`\b`, `(?<!\p{L})`) also passes right after a
 * JSON-escaped line break or tab: tool text is often logged JSON-encoded, where a line's first
 * word follows the letter of `\n`.
 */
function wordStart(source: string): string {
  return source.replace(/^(\\b|\(\?<!\\p\{L\}\))/, String.raw`(?:$1|(?<=\\[nrt]))`);
}

/**
 * secretlint's patterns as rules. What is redacted: the URL's password where the pattern names
 * one (the user and host stay), else a long last group (an AWS secret after its name, a key's
 * body inside its armour), else the whole match.
 */
function providerRules(): RedactionRule[] {
  return PROVIDER_PATTERNS.map(([id, source, flags], i) => {
    const named = source.includes('(?<password>');
    let compiled: RegExp | undefined;
    const onMatch = (m: RegExpExecArray): string => {
      const at = m.indices!;
      const last = at.length > 1 ? at[at.length - 1] : undefined;
      const span = named ? at.groups?.password : last && last[1] - last[0] >= 16 ? last : at[0];
      if (!span || m.input.slice(span[0], span[1]) === REDACTED) return m[0];
      return m[0].slice(0, span[0] - m.index) + REDACTED + m[0].slice(span[1] - m.index);
    };
    return {
      name: `secretlint-${id}-${i}`,
      keywords: keywordsOf(source),
      // Compiled on first use: most texts give no cause to.
      get pattern() {
        return (compiled ??= new RegExp(wordStart(source), `${flags}d`));
      },
      replace: REDACTED,
      onMatch,
    };
  });
}

/**
 * In order: key blocks first (nothing else may cut into one), then our provider tokens (so
 * later rules see `[REDACTED]` and keep their name or flag), then context (before the preset's
 * patterns, which take a whole webhook or URL where ours keep the host), the preset's patterns,
 * command lines, files and keyworded assignments. Every rule leaves its own output alone, so
 * the pass is idempotent.
 */
const RULES: readonly RedactionRule[] = [
  ...BLOCK_RULES,
  ...TOKEN_RULES,
  ...CONTEXT_RULES,
  ...providerRules(),
  ...COMMAND_RULES,
  ...FILE_RULES,
  ...ASSIGN_RULES,
];

/** Levels of base64 inside base64 that are decoded (a .dockerconfigjson holds a base64 "auth"). */
const BASE64_DEPTH = 2;

/**
 * Replace a rule's matches through its replacer. When the replacer declines (returns the match
 * as it was), the scan resumes one character later rather than after the match: a declined
 * match must not hide a secret inside it (`token_url=https://h/?password=x`, `--password
 * --token x`). Each match is bounded, so this stays linear.
 */
function replaceEach(text: string, pattern: RegExp, replacer: (m: RegExpExecArray) => string): string {
  let out = '';
  let last = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const replacement = replacer(m);
    if (replacement === m[0]) {
      pattern.lastIndex = m.index + 1;
      continue;
    }
    out += text.slice(last, m.index) + replacement;
    last = m.index + m[0].length;
    pattern.lastIndex = Math.max(last, m.index + 1);
  }
  return out + text.slice(last);
}

function applyRules(text: string, gated: boolean): string {
  const lower = gated ? text.toLowerCase() : '';
  let out = text;
  for (const r of RULES) {
    if (gated && r.keywords.length > 0 && !r.keywords.some((k) => lower.includes(k))) continue;
    const { replace } = r;
    if (r.onMatch) out = replaceEach(out, r.pattern, r.onMatch);
    else if (typeof replace === 'string') out = out.replace(r.pattern, replace);
    else out = replaceEach(out, r.pattern, (m) => (replace as (...args: unknown[]) => string)(...m, m.index, m.input));
  }
  return out;
}

/**
 * Secrets wrapped in base64 (`echo Z2hwX… | base64 -d`, a Kubernetes Secret's `data:`, a
 * `.dockerconfigjson`): a run of 16 to 8,192 characters whose first 9 bytes decode to printable
 * text is decoded, lines wrapped at 60, 64, 72 or 76 columns joined first, at most MAX_DECODES
 * times per input, and redacted whole when the rules find a secret in it.
 */
const MIN_BASE64_RUN = 16;
const MAX_BASE64_RUN = 8192;
const MAX_DECODES = 200;
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
interface DecodeBudget {
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
function redactBase64(text: string, hasSecret: (decoded: string) => boolean, budget: DecodeBudget): string {
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

/** A run of URL-encoded text: at least one `%XX` among URL characters. */
const URL_CHAR = '(?:[A-Za-z0-9._~+/=:@!*-]|%[0-9A-Fa-f]{2})';
const URL_ENCODED = new RegExp(`${URL_CHAR}{0,1024}%[0-9A-Fa-f]{2}${URL_CHAR}{0,4096}`, 'g');

/** URL-encoded secrets (`password%3Dx`, `%2F` inside a key): a run whose decoded text holds one is redacted whole. */
function redactUrlEncoded(text: string, hasSecret: (decoded: string) => boolean): string {
  if (!text.includes('%')) return text;
  return text.replace(URL_ENCODED, (run) => {
    try {
      return hasSecret(decodeURIComponent(run)) ? REDACTED : run;
    } catch {
      return run;
    }
  });
}

function redactAt(text: string, depth: number, budget: DecodeBudget, gated: boolean): string {
  const out = applyRules(text, gated);
  if (depth === 0) return out;
  const hasSecret = (decoded: string) => {
    const plain = withoutTerminalCodes(decoded);
    return redactAt(plain, depth - 1, budget, gated) !== plain;
  };
  return redactUrlEncoded(redactBase64(out, hasSecret, budget), hasSecret);
}

/**
 * Where `out` (`clean` with secrets replaced) replaced what: the spans of `clean` between the
 * text kept around each `[REDACTED]`. Undefined when `out` is not `clean` with spans replaced (a
 * private key's armour is rewritten).
 */
function replacedSpans(clean: string, out: string): [number, number][] | undefined {
  const parts = out.split(REDACTED);
  if (!clean.startsWith(parts[0]!) || !clean.endsWith(parts[parts.length - 1]!)) return undefined;
  const spans: [number, number][] = [];
  let at = parts[0]!.length;
  for (let k = 1; k < parts.length; k++) {
    const next = k === parts.length - 1 ? clean.length - parts[k]!.length : clean.indexOf(parts[k]!, at + 1);
    if (next <= at) return undefined;
    spans.push([at, next]);
    at = next + parts[k]!.length;
  }
  return spans;
}

function redactPersonText(text: string, gated: boolean): string {
  const { clean, places } = cleanedWithPlaces(text);
  const redact = (t: string) => redactAt(t, BASE64_DEPTH, { left: MAX_DECODES }, gated);
  const out = redact(clean);
  if (clean === text || out === clean) return clean === text ? out : text;
  // The secret's place in the original, its codes inside it going with it; checked, else the clean copy redacted.
  const spans = replacedSpans(clean, out);
  if (spans) {
    let kept = '';
    let from = 0;
    for (const [s, e] of spans) {
      kept += text.slice(from, places[s]) + REDACTED;
      from = places[e - 1]! + 1;
    }
    kept += text.slice(from);
    const again = cleanedWithPlaces(kept).clean;
    if (redact(again) === again) return kept;
  } else {
    // A rule rewrote more than its secret (a private key's armour): the text around the change kept as it was.
    let p = 0;
    while (p < clean.length && p < out.length && clean[p] === out[p]) p++;
    let q = 0;
    while (q < clean.length - p && q < out.length - p && clean[clean.length - 1 - q] === out[out.length - 1 - q]) q++;
    const kept = text.slice(0, places[p]) + out.slice(p, out.length - q) + text.slice(places[clean.length - q]);
    const again = cleanedWithPlaces(kept).clean;
    if (redact(again) === again) return kept;
  }
  return out;
}

/**
 * Redact secrets from a person's text (a commit, a note, an objective, a branch name, a path).
 * Secrets are found in a copy without terminal codes and invisible characters, which could split
 * one, and replaced where they are: a text without a secret comes back byte for byte, codes and
 * all. Idempotent: redacting twice gives the same text.
 */
export function redactSecrets(text: string): string {
  return redactPersonText(text, true);
}

/**
 * A tool call's text as it is logged: terminal escape sequences and invisible characters taken
 * out (redact-escapes.ts), which the log has no use for, then redacted as above. Idempotent too.
 */
export function redactToolText(text: string): string {
  return redactPersonText(withoutTerminalCodes(text), true);
}

/**
 * The same pass with every rule run whatever its keywords: for tests, which check that the
 * keyword gates are an optimisation only.
 */
export function redactSecretsUngated(text: string): string {
  return redactPersonText(text, false);
}

/** The rules' names, in the order they run, for tests; base64-wrapped secrets are found after them. */
export const REDACTION_RULES: readonly string[] = [...RULES.map((r) => r.name), 'base64-wrapped'];
