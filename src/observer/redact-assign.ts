/**
 * Keyworded secrets: a value assigned to a name that says it is secret, in any of the forms
 * config and code use (`.env` and `export`, JSON, YAML, TOML, INI, properties, Python / JS / Go
 * literals, query strings). The regex finds `name <sep> value` where the name contains a secret
 * word; the name and value are then judged in code, which is where the care is:
 *
 * - The name, split into words (snake, kebab, dotted and camelCase), must hold a secret word
 *   (password, passwd, passphrase, pwd, pass, secret, …token, api/access/private/… key), with no
 *   word after it that makes it metadata (`password_file`, `token_url`, `secret_name`, `api_key_id`).
 * - A reference is not a secret (`$TOKEN`, `${{ secrets.X }}`, `process.env.X`, `<your-key>`).
 * - In code a bare word is usually a variable, not a literal: `token = await getToken()`,
 *   `password: string`, `{ apiKey: apiKey, … }`, `const token = provider`, `password =
 *   req.body.password` are left. A bare value counts as a literal in `NAME=value` env style, in
 *   a query string, or when it ends its line (YAML, INI, .env).
 * - Tokens, keys and secrets are long and random: after such a name a value under 8
 *   characters, or words mid-expression (`{ token: "userMessageText", … }`), is data. Passwords
 *   are exempt: a short one is still one. Versions (`"jsonwebtoken": "^9.0.2"`) and stand-ins
 *   (`your-api-key`, `STRING_VALUE`, `sk-ant-...`) are left too.
 * - Weak words (auth, credentials, an env `*_KEY`) need a value that looks random.
 */

import {
  isLiteral,
  isProseAfterQuote,
  isStandIn,
  matchPlace,
  QUOTED_VALUE,
  REDACTED,
  type RedactionRule,
  requote,
  rule,
  startAfterNone,
  unquote,
  words,
} from './redact-rule.js';

/** Qualifiers that make a following `key` a secret (`api_key`, `clientKey`, `SIGNING_KEY`). */
const KEY_QUALIFIERS = new Set(
  (
    'api access secret private account master encryption signing client app auth license ' +
    'subscription consumer shared service admin sas deploy ssh jwt hmac webhook bot integration'
  ).split(' '),
);
/** Env names ending in _KEY that are not secrets. */
const NON_SECRET_KEY_QUALIFIERS = new Set(
  (
    'primary foreign sort partition cache public pub gpg pgp hash lookup index map group ' +
    'object s3 idempotency routing storage session'
  ).split(' '),
);
/** Words after the secret word that make the name metadata, not a secret. */
const METADATA_WORDS = new Set(
  (
    'file files path paths dir directory url uri urls endpoint host hostname port name names ' +
    'id ids type types length len size count limit ' +
    ('budget min max ttl expiry expires expiration expire exp lifetime timeout field fields ' +
      'label placeholder hint prompt policy policies rules ') +
    ('regex pattern required enabled disabled header param mode format version ref arn location ' +
      'provider source strength validation visible ') +
    ('reset changed updated created at rotation kind class validator input error errors message ' +
      'msg schema help text description title env var ') +
    ('prefix suffix store manager generator algorithm alg method methods scope scopes audience ' +
      'issuer usage encoding mask masked column ') +
    'scheme schemes strategy strategies flow flows level config options settings plan plans model models sentinel'
  ).split(' '),
);
/** Bare words that are code or config keywords, never a secret's literal value. */
const CODE_WORDS = new Set(
  (
    'null nil none undefined true false yes no on off string str number int integer bool ' +
    'boolean bytes any unknown object optional required ' +
    ('void await new this self function class lambda async yield typeof return not and or env ' +
      'sensitive hidden masked redacted omitted value flag list text')
  ).split(' '),
);

/** Words before the secret word that make the name a count or a rate: `CHARS_PER_TOKEN`, `maxToken`, `startToken`. */
const LEADING_METADATA_WORDS = new Set(
  'per max min num count total next prev page start end first last is has use show hide toggle no'.split(' '),
);

type Strength = 'strong' | 'weak';

interface NameVerdict {
  strength: Strength;
  /** A password (any length may be real), not a token or key (real ones are long). */
  password: boolean;
}

function wordStrength(w: string, previous: string | undefined, envStyle: boolean): Strength | null {
  if (/pass(?:word|wd|phrase|code)/.test(w) || w === 'pass' || (w.endsWith('pwd') && w !== 'oldpwd')) return 'strong';
  // SSHPASS (read by `sshpass -e`), DBPASS, SMTPPASS.
  if (/^(?:ssh|db|my|pg|root|admin|user|smtp|mail|ftp|ldap|redis|vault)pass$/.test(w)) return 'strong';
  if (w.includes('secret') && !w.startsWith('secretar')) return 'strong';
  if (w.endsWith('token')) return 'strong';
  if (/(?:api|access|secret|private|account|master|encryption|signing)key$/.test(w)) return 'strong';
  if (w === 'key' && previous !== undefined) {
    if (KEY_QUALIFIERS.has(previous)) return 'strong';
    if (envStyle && !NON_SECRET_KEY_QUALIFIERS.has(previous)) return 'weak';
  }
  // An env GH_PAT / AZURE_DEVOPS_PAT is a personal access token; in code `pat` is a pattern.
  if (w === 'pat' && envStyle) return 'strong';
  if (w === 'auth' || w === 'credential' || w === 'credentials' || w === 'creds') return 'weak';
  return null;
}

/**
 * Whether and how strongly a name marks its value as secret. The strongest word counts
 * (`auth_token` is a token, not a weak `auth`), unless a metadata word follows it
 * (`password_file`) or a count word precedes it (`max_token`).
 */
function judgeName(name: string, envStyle: boolean): NameVerdict | null {
  // `--flag=value` is the command-line rules' call (`--pass-arg=…` is not a password).
  if (name.startsWith('-')) return null;
  const ws = words(name);
  let found: { at: number; strength: Strength } | undefined;
  for (let i = 0; i < ws.length && found?.strength !== 'strong'; i++) {
    const strength = wordStrength(ws[i]!, ws[i - 1], envStyle);
    if (strength !== null && (found === undefined || strength === 'strong')) found = { at: i, strength };
  }
  if (found === undefined) return null;
  if (ws.slice(found.at + 1).some((w) => METADATA_WORDS.has(w)) || LEADING_METADATA_WORDS.has(ws[found.at - 1] ?? ''))
    return null;
  return { strength: found.strength, password: /pass|pwd/.test(ws[found.at]!) };
}

/** A value a random generator made, not words: letters mixed with digits, or long mixed case without separators. */
function looksRandom(v: string): boolean {
  return (
    (v.length >= 8 && /[0-9]/.test(v) && /[A-Za-z]/.test(v)) ||
    (v.length >= 16 && /[A-Z]/.test(v) && /[a-z]/.test(v) && !/[\s_.-]/.test(v))
  );
}

/** Words, not a random string: letters in camelCase, kebab or snake case (`userMessageText`, `gitlab-duo`). */
function isWordy(v: string): boolean {
  if (!/^[A-Za-z]+(?:[-_ ][A-Za-z]+)*$/.test(v)) return false;
  return (v.match(/[A-Z]/g)?.length ?? 0) <= v.length / 4;
}

/**
 * A package version or range: `"jsonwebtoken": "^9.0.2"` and `"@aws-sdk/token-providers":
 * "3.1127.0"` in package.json name packages, not secrets.
 */
function isVersionSpec(v: string): boolean {
  return (
    /^(?:[~^]|[<>]=?|=)?v?\d{1,9}\.\d{1,9}(?:\.\d{1,9})?(?:-[0-9A-Za-z.-]{1,64})?(?:\+[0-9A-Za-z.-]{1,64})?$/.test(v) ||
    /^(?:latest|next|\*|workspace:\S{0,64}|npm:\S{1,200}|catalog:\S{0,64})$/.test(v)
  );
}

/** What follows the value on its line, bounded so a long line costs nothing per match. */
function endsLine(whole: string, end: number): boolean {
  return /^[ \t]*(?:#[^\n]*)?(?:\r?\n|\\[nr]|\\?"|$)/.test(whole.slice(end, end + 200));
}

/**
 * The value is an item in code: what follows it on the line closes or separates an expression
 * (`{ token: t, … }`, `f(password=pw)`, `ResponseBody | undefined`, `a ? token : b`). A query
 * string's `&` or a shell's next word do not.
 */
function endsCodeItem(whole: string, end: number): boolean {
  return /^[ \t]*[,;)}\]|>?:]/.test(whole.slice(end, end + 16));
}

/** The secret word inside a name (`db_password` → password), to spot `x = password` reads. */
function secretWordOf(name: string): string {
  return /pass(?:word|wd)?|pwd|secret|token|key|auth|cred/.exec(name.toLowerCase())?.[0] ?? name.toLowerCase();
}

/** A member read: `smallR.commit.median`, `req.body.password`, `opts?.token`, `Config::KEY`, `this.#field`. */
function isMemberRead(v: string): boolean {
  return new RegExp(
    String.raw`^(?:this\.#[A-Za-z_$][\w$]*|[A-Za-z_$][\w$]*(?:\?\.|\.|::|->)[A-Za-z_$][\w$]*)(?:(?:\?\.` +
      String.raw`|\.|::|->)[A-Za-z_$][\w$]*)*$`,
  ).test(v);
}

/** An expression: a name or member read followed by an operator (`apiKey??null`, `a.b===c`, `opts?x:y`). */
function isExpression(v: string): boolean {
  return /^(?:this\.#)?[A-Za-z_$][\w$]*(?:(?:\?\.|\.|::|->)[A-Za-z_$][\w$]*)*(?:\?|={1,3}|!=)/.test(v);
}

/**
 * A statement in code rather than a config line: a declaration (`const token = provider`,
 * `type T = …`), an assignment to a member (`user.password = hashed`) or an index (`c[token] = x`).
 */
function isCodeStatement(name: string, sep: string, whole: string, offset: number): boolean {
  if (/\b(?:const|let|var|val|final|auto|my|local|type)[ \t]+$/.test(whole.slice(Math.max(0, offset - 16), offset)))
    return true;
  return (/[.>]/.test(name) && /^[ \t]+=/.test(sep)) || /^\\?["']?\]/.test(sep);
}

/**
 * A bare word that reads as code: a keyword, a small number (`CHARS_PER_TOKEN = 4`, `-1`), a
 * call, a member read, an expression, an identifier that is an item in code (`{ token: t, … }`,
 * `tokenOutput: ResponseBody2 | undefined`), an identifier after `const x =` or `obj[k] =`, or
 * one that names the secret (`self.password = password`).
 * Trade-offs: a password shaped like `a.b` is taken for a member read; a letters-only word
 * ending a config-like line is redacted, as YAML's `password: hunter`, INI's `password =
 * hunter` and Python's `password = hashed` look the same.
 */
function isCode(v: string, name: string, sep: string, whole: string, offset: number, end: number): boolean {
  if (CODE_WORDS.has(v.toLowerCase()) || /^-?[0-9]{1,5}$/.test(v)) return true;
  const after = whole[end];
  if (after === '(' || after === '[' || after === '<' || after === '{') return true;
  if (isMemberRead(v) || isExpression(v)) return true;
  // After `const x =` a bare value is never a string literal.
  if (/^[A-Za-z_$!+-]/.test(v) && isCodeStatement(name, sep, whole, offset)) return true;
  if (/^[A-Za-z_$][\w$]*$/.test(v) && endsCodeItem(whole, end)) return true;
  if (!/^[A-Za-z_$][A-Za-z_$]*$/.test(v)) return false;
  // A word mid-sentence after `: ` or ` = ` ("Forgot your password: use the link") is prose; a
  // tight `=` is a query string or shell (`?password=hunter&…`), where a word is a literal.
  return v.toLowerCase().includes(secretWordOf(name)) || (sep.trim() !== '=' && !endsLine(whole, end));
}

function assignment(envStyle: boolean) {
  return (
    match: string,
    name: string,
    sep: string,
    value: string,
    ...rest: (string | number | undefined)[]
  ): string => {
    const verdict = judgeName(name, envStyle);
    if (verdict === null) return match;
    const inner = unquote(value);
    // A value already (partly) redacted by a token rule keeps what that rule left.
    if (!isLiteral(inner) || inner.includes(REDACTED) || isProseAfterQuote(value)) return match;
    // Backticks are a JS template or markdown code: judged like a bare word; a span with a
    // space ("`Pwd=` / `Password=` are …") is prose, one with `${…}` a template.
    const backtick = value.startsWith('`');
    if (backtick && (/\s/.test(inner) || inner.includes('${'))) return match;
    const quoted = inner !== value && !backtick;
    const { offset, whole } = matchPlace(rest);
    const end = offset + match.length;
    // `PWD=/home/me` in `env` output is the shell's working directory, not a password.
    if ((name === 'PWD' || name === 'OLDPWD') && inner.startsWith('/')) return match;
    // i18n files: "password": "Password", "apiKey": "API key".
    if (inner.replace(/[\s_-]/g, '').toLowerCase() === name.replace(/[\s_-]/g, '').toLowerCase()) return match;
    if (isVersionSpec(inner) || isStandIn(inner)) return match;
    // A space before the colon is a ternary or a type (`a ? token : b`), unless both sides are
    // quoted as some JSON printers (Jackson) write them.
    if (/^\\?["']?\]?[ \t]+:/.test(sep) && !(quoted && /^\\?["']/.test(sep))) return match;
    // Tokens and keys are long and random; a short value or a worded one mid-line after `token`
    // is data (`{ token: "text", on: … }`, `apiKey: "gitlab-duo",`).
    if (!verdict.password && (inner.length < 8 || (isWordy(inner) && endsCodeItem(whole, end)))) return match;
    if (!quoted && !envStyle && isCode(inner, name, sep, whole, offset, end)) return match;
    // Weak names need a random-looking value; a plain URL (`[auth]: https://…` in markdown) or a
    // path (`GOOGLE_APPLICATION_CREDENTIALS=/path/key.json`) is not one.
    if (
      verdict.strength === 'weak' &&
      (!looksRandom(inner) || /^(?:https?:\/\/[^@\s]*|~?\/\S*|\.{1,2}\/\S*)$/.test(inner))
    )
      return match;
    return name + sep + requote(value);
  };
}

// The name starts a word; `$`, `@` and `-` before it mean a variable read, a decorator or a flag.
const NAME_START = startAfterNone('A-Za-z0-9_.$@-');

/**
 * The end of a line after a value: a line break (raw or JSON-escaped), a JSON string's closing quote, the end of the
 * text.
 */
const LINE_END = String.raw`(?=[ \t]{0,16}(?:\r?\n|\\[nr]|\\?"|$))`;
/** One word of a passphrase: no quote, bracket, separator or shell character. */
const PHRASE_WORD = String.raw`[^\s"'\x60(){}\[\]<>;,|&#$=\\]{1,40}`;

/**
 * `password: correct horse battery staple`: after a password or passphrase name and `:` or `=`,
 * two to eight words that end the line are one secret. Not a sentence (`Forgot your password:
 * use the link below.`) nor a stand-in (`your password here`). Trade-off: a short line of help
 * text after `Password:` is redacted too.
 */
function passphrase(match: string, name: string, sep: string, value: string): string {
  if (!judgeName(name, false)?.password) return match;
  if (/[.?!:]$/.test(value) || isStandIn(value)) return match;
  return name + sep + REDACTED;
}

/** A call, an index or a generic at the start of a value: `getSecret(x)`, `settings[KEY]`, `a.b<T>()`. */
const CALL = /^[A-Za-z_$][\w$]*(?:(?:\?\.|\.|::|->)[A-Za-z_$][\w$]*)*[([<{]/;

/**
 * `SECRET_KEY = Zx9!abc(def)ghi`: a secret-named key whose bare value holds a character that
 * ends a value in code (brackets, comma, `;`, `&`, `|`, `<>`) and runs, without a space, to the
 * end of its line. The keyword rule stops at that character and the rest was read as code; here
 * the whole value is one secret unless it reads as code: a call or index, a declaration, shell
 * or expression operators (`&&`, `||`, `;`, `=>`), a query string going on (`&next=`), or a
 * value that opens or continues a statement.
 */
function punctuated(
  match: string,
  name: string,
  sep: string,
  value: string,
  ...rest: (string | number | undefined)[]
): string {
  if (judgeName(name, false)?.strength !== 'strong') return match;
  // A value another rule redacted in part keeps what that rule left.
  if (!/[(){}[\],;&|<>]/.test(value) || value.includes(REDACTED) || !isLiteral(value) || isStandIn(value)) return match;
  if (
    /^[[({<]/.test(value) ||
    CALL.test(value) ||
    /&&|\|\||;|=>|->|&[\w.-]{1,64}=/.test(value) ||
    /[,{([]$/.test(value)
  )
    return match;
  const { offset, whole } = matchPlace(rest);
  if (isCodeStatement(name, sep, whole, offset)) return match;
  return name + sep + REDACTED;
}

const envAssignment = assignment(true);

export const ASSIGN_RULES: readonly RedactionRule[] = [
  // csh's `setenv NAME value` and fish's `set -x NAME value` put a space where sh has `=`.
  rule(
    'set-variable',
    ['setenv', 'set -'],
    String.raw`((?:setenv|set[ \t]+-[gxUlu]{1,4})[ \t]{1,8})([A-Za-z_][A-Za-z0-9_]{0,95})([ \t]+)` +
      String.raw`(${QUOTED_VALUE}|[^\s"'\x60;&|<>\\]{1,4096})`,
    (match: string, lead: string, name: string, sep: string, value: string, offset: number, whole: string) =>
      lead + envAssignment(match.slice(lead.length), name, sep, value, offset + lead.length, whole),
  ),
  rule(
    'passphrase-line',
    ['pass', 'pwd'],
    String.raw`${NAME_START}(?=[A-Za-z0-9_.-]{0,64}?(?:pass|pwd))([A-Za-z0-9_.-]{1,64})` +
      String.raw`([ \t]{0,4}[:=][ \t]{0,8})(${PHRASE_WORD}(?:[ \t]{1,4}${PHRASE_WORD}){1,7})${LINE_END}`,
    passphrase,
    'i',
  ),
  rule(
    'keyword-punctuated-value',
    ['pass', 'pwd', 'secret', 'token', 'key'],
    String.raw`${NAME_START}(?=[A-Za-z0-9_.-]{0,96}?(?:pass|pwd|secret|token|key))([A-Za-z0-9_.-]{1,96})` +
      String.raw`([ \t]{0,4}(?:=(?!=)|:(?![:=]))[ \t]{0,8})([^\s"'\x60\\]{8,256})${LINE_END}`,
    punctuated,
    'i',
  ),
  // NAME=value, as in .env files, `export`, `docker run -e`, `env` output: the value runs to
  // whitespace (commas and brackets included; a password may hold them).
  rule(
    'env-assignment',
    ['pass', 'pwd', 'secret', 'token', 'key', 'auth', 'cred', 'pat'],
    String.raw`${NAME_START}(?=[A-Z0-9_]{0,96}?(?:PASS|PWD|SECRET|TOKEN|KEY|AUTH|CRED|PAT))` +
      String.raw`([A-Z][A-Z0-9_]{0,95})(=)(${QUOTED_VALUE}|[^\s"'` +
      '`' +
      String.raw`;&|<>\\]{1,4096})`,
    envAssignment,
  ),
  rule(
    'keyword-assignment',
    ['pass', 'pwd', 'secret', 'token', 'key', 'auth', 'cred'],
    String.raw`${NAME_START}(?=[A-Za-z0-9_.-]{0,96}?(?:pass|pwd|secret|token|key|auth|cred))` +
      String.raw`([A-Za-z0-9_.-]{1,96})((?:\\?["'])?\]?[ \t]{0,4}(?::=|=>|\?=|=(?!=)|:(?![:=]))[ \t]{0,8})` +
      String.raw`(${QUOTED_VALUE}|(?:\[REDACTED\]|[^\s"'` +
      '`' +
      String.raw`,;&|<>(){}\[\]\\]){1,4096})`,
    assignment(false),
    'i',
  ),
];
