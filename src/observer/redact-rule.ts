/** The shape every redaction rule shares, and the value checks several rules need. */

export const REDACTED = '[REDACTED]';

/**
 * A replacer gets what String.replace passes: the match, the groups (undefined when a group did
 * not take part), the offset and the whole text. Each declares the leading ones it reads.
 */
type Replacer = (match: string, ...rest: never[]) => string;

/** What a rule does with its match: a fixed replacement (`$1` keeps a group) or a function. */
type Replacement = string | Replacer;

export interface RedactionRule {
  /** Stable id, used in docs and tests. */
  readonly name: string;
  /**
   * Lowercase literals of which every match contains at least one. The rule is only run when
   * the lowercased text contains one of them, so the many rules cost a substring search each on
   * text that holds no secret. A keyword list that misses a match's literal is a bug (the
   * corpus test checks the gates never change the outcome).
   */
  readonly keywords: readonly string[];
  /** Global; bounded, non-nested quantifiers only, so the pass stays linear in the input. */
  readonly pattern: RegExp;
  readonly replace: Replacement;
  /** Instead of `replace`, for a pattern whose groups' places (the `d` flag) tell what to keep. */
  readonly onMatch?: (m: RegExpExecArray) => string;
}

/**
 * A lookbehind: the match starts at the beginning, after a character outside `chars` (a class
 * body) other than a backslash, or right after a JSON-escaped `\n`, `\r` or `\t`. Tool output
 * is often logged JSON-encoded, where a line's first word follows the letter of `\n`.
 */
export function startAfterNone(chars: string): string {
  return `(?<=^|[^\\\\${chars}]|\\\\[nrt])`;
}

/**
 * `lead` (a short literal or alternation of literals), where it starts a word in the sense of
 * startAfterNone. The literal comes first and the check looks back over it, so the engine can
 * skip through the text by the literal instead of trying the lookbehind at every position.
 */
export function leadStartingWord(lead: string, chars = 'A-Za-z0-9'): string {
  return `(?:${lead})(?<=(?:^|[^\\\\${chars}]|\\\\[nrt])(?:${lead}))`;
}

/**
 * Build a rule; `source` is compiled with the `g` flag plus `flags` when the rule first runs: a
 * text gives most rules no cause (their keywords), and building every pattern up front cost a
 * hook process more than its redaction.
 */
export function rule(
  name: string,
  keywords: readonly string[],
  source: string,
  replace: Replacement = REDACTED,
  flags = '',
): RedactionRule {
  let compiled: RegExp | undefined;
  return {
    name,
    keywords,
    get pattern() {
      return (compiled ??= new RegExp(source, `g${flags}`));
    },
    replace,
  };
}

/**
 * A reference to a secret kept elsewhere, not the secret: `$TOKEN`, `${TOKEN}`, `$(cat f)`,
 * `${{ secrets.X }}`, `{{ .Values.x }}`, `%TOKEN%`, `<your-token>`, `process.env.X`,
 * `os.environ[...]`, openssl's `env:VAR` / `file:path`. Logging one leaks nothing.
 */
function isReference(value: string): boolean {
  return (
    // `${…` and `$(…` may be cut short by the quote or space that ends the value.
    /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}\n]{1,200}\}?|\{\{[^}\n]{1,200}\}\}|\([^)\n]{1,200}\)?)$/.test(value) ||
    /^\{\{[^}\n]{1,200}\}\}$/.test(value) ||
    /^%[A-Za-z_][A-Za-z0-9_]*%$/.test(value) ||
    /^<[A-Za-z][A-Za-z0-9 _.-]{0,60}>$/.test(value) ||
    /^(?:process\.env|os\.environ|ENV|System\.getenv|Deno\.env)\b/.test(value) ||
    /^(?:env|file|fd):[A-Za-z0-9_./-]{1,200}$/.test(value)
  );
}

/**
 * A template placeholder: `${VAR}`, `{{ var }}`, `<your-token>`. Stricter than isReference:
 * where `$` and `%` may be literal characters (a URL's password), `$VAR` and `%VAR%` are not
 * taken for references.
 */
export function isTemplate(value: string): boolean {
  return /^(?:\$\{[^}\n]{1,200}\}|\$?\{\{[^}\n]{1,200}\}\}|<[A-Za-z][A-Za-z0-9 _.-]{0,60}>)$/.test(value);
}

/** `aws_secret_access_key` → aws secret access key; `clientSecret` → client secret; `APIKey` → api key. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * A stand-in that names what belongs there: letters and separators only, holding the word
 * (`your-api-key`, `mock-token`, `SuperSecretToken`), a constant's name (`STRING_VALUE`,
 * `GEMINI_API_KEY`), or a provider prefix trailing off (`sk-ant-...`, `ghp_…`). Trade-off: a
 * real password made only of letters around the word "password", or only of capitals, is left.
 */
export function isStandIn(value: string): boolean {
  return (
    (/^[A-Za-z_ -]{3,64}$/.test(value) &&
      words(value).some((w) => /^(?:pass(?:word|wd)?|secrets?|token|key|apikey|credentials?|creds)$/.test(w))) ||
    /^[A-Z]+_[A-Z_]{1,62}$/.test(value) ||
    /^[a-z0-9]{1,8}[-_][A-Za-z0-9_-]{0,16}(?:\.\.\.|…)$/.test(value)
  );
}

/** Nothing worth hiding: empty, already redacted, or an obvious placeholder (`***`, `xxxx`). */
export function isPlaceholder(value: string): boolean {
  return value === '' || value === REDACTED || /^(?:\*+|x{3,}|X{3,}|\.{3,}|…)$/.test(value);
}

/**
 * Neither a reference nor a placeholder, and holding a letter or digit: a literal that may be a
 * secret. (A lone `)` or `",` after a name is the end of the code around it, not a value.)
 */
export function isLiteral(value: string): boolean {
  return !isReference(value) && !isPlaceholder(value) && /[A-Za-z0-9]/.test(value);
}

/**
 * A value after a name or flag: inside backslash-escaped quotes (a command inside a JSON
 * string), inside quotes or backticks (possibly cut off by a line end), or a bare word. The
 * quote alternatives cannot overlap, so matching never backtracks between them.
 */
export const QUOTED_VALUE =
  String.raw`\\"(?:[^"\\\n]|\\(?!")[^\n]){0,4096}(?:\\")?|"(?:[^"\\\n]|\\[^\n]){0,4096}"?|'[^'\n]{0,4096}'?` +
  '|`[^`\\n]{0,4096}`?';

/** The redacted form of a value: its quotes kept, its content replaced. */
export function requote(raw: string): string {
  const open = /^\\?["'`]/.exec(raw)?.[0];
  if (open === undefined) return REDACTED;
  const closed = raw.length >= open.length * 2 && raw.endsWith(open);
  return `${open}${REDACTED}${closed ? open : ''}`;
}

/**
 * An unterminated quote whose content holds a space: prose after a closing quote (markdown's
 * "`--token` is needed"), not a value cut off by the end of its line.
 */
export function isProseAfterQuote(raw: string): boolean {
  const open = /^\\?["'`]/.exec(raw)?.[0];
  if (open === undefined || (raw.length >= open.length * 2 && raw.endsWith(open))) return false;
  return /\s/.test(raw);
}

/** Strip one pair of surrounding quotes (plain or backslash-escaped), for the checks above. */
export function unquote(value: string): string {
  const m = /^(\\?["'`])([\s\S]*?)(\1)?$/.exec(value);
  return m ? (m[2] ?? '') : value;
}

/** Offset and whole text, which String.replace passes last to a replacer. */
export function matchPlace(rest: readonly (string | number | undefined)[]): { offset: number; whole: string } {
  return { offset: rest[rest.length - 2] as number, whole: rest[rest.length - 1] as string };
}

/** Bytes of printable ASCII text (tabs and line breaks allowed). */
export function isPrintableAscii(bytes: Uint8Array): boolean {
  for (const b of bytes) if ((b < 0x20 || b > 0x7e) && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}
