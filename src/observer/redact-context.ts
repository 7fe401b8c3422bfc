/**
 * Secrets found by what surrounds them rather than by their own shape: a private key's armour,
 * a URL's userinfo, an HTTP header, a connection string, a signed URL, a webhook path. Each rule
 * keeps the non-secret part (the key's armour, the user and host, the header and scheme) so the
 * log stays readable. Command lines are in redact-command.ts, `key = value` in redact-assign.ts.
 */

import { Buffer } from 'node:buffer';
import {
  isLiteral,
  isPlaceholder,
  isStandIn,
  isTemplate,
  leadStartingWord,
  REDACTED,
  type RedactionRule,
  rule,
} from './redact-rule.js';

/** `lead` starting a word (also right after a JSON-escaped line break). */
const word = (lead: string) => leadStartingWord(lead, 'A-Za-z0-9_');

/** Offset and whole text, which String.replace passes last to a replacer. */
export function matchPlace(rest: readonly (string | number | undefined)[]): { offset: number; whole: string } {
  return { offset: rest[rest.length - 2] as number, whole: rest[rest.length - 1] as string };
}

/** Bytes of printable ASCII text (tabs and line breaks allowed). */
export function isPrintableAscii(bytes: Uint8Array): boolean {
  for (const b of bytes) if ((b < 0x20 || b > 0x7e) && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}

/**
 * A PEM block keeps its armour with the kind (`RSA`, `OPENSSH`, `ENCRYPTED`, PGP's `BLOCK`). The
 * body stops only at a matching END, or at the end of the text when truncation cut it off, so
 * the match never backtracks. Literal `\n` escapes (a key inside a JSON string) are just body.
 */
export const BLOCK_RULES: readonly RedactionRule[] = [
  rule(
    'private-key',
    ['private key'],
    '-----BEGIN([ A-Z0-9]{0,40})PRIVATE KEY( BLOCK)?-----(?:(?!-----END[ A-Z0-9]{0,40}PRIVATE ' +
      'KEY)[\\s\\S])*(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?(?:-----)?|$)',
    `-----BEGIN$1PRIVATE KEY$2----- ${REDACTED} -----END$1PRIVATE KEY$2-----`,
  ),
  // PuTTY's .ppk: the public half and the MAC are not secret, the Private-Lines are.
  rule(
    'putty-private-key',
    ['private-lines:'],
    // The line break kept as written: raw, or JSON-escaped in a tool's input.
    '(Private-Lines:[ \\t]{0,4}[0-9]{1,4}(\\r?\\n|(?:\\\\r)?\\\\n))(?:(?!Private-MAC:)[\\s\\S]){1,16384}',
    `$1${REDACTED}$2`,
  ),
];

/** `scheme://user:password@host`: keep the user and the host, unless the password is a `${VAR}`. */
function urlPassword(match: string, head: string, password: string): string {
  return isTemplate(password) || isPlaceholder(password) ? match : `${head}${REDACTED}@`;
}

/** Schemes after which a header's value is a credential even when it looks like a word. */
const AUTH_SCHEMES =
  'Bearer|Basic|Digest|Token|Negotiate|NTLM|Bot|SSWS|ApiKey|Api-Key|GenieKey|SharedKey|OAuth|AWS4-HMAC-SHA256';

function authorizationHeader(match: string, head: string, scheme: string | undefined, value: string): string {
  const v = value.trimEnd();
  if (!isLiteral(v) || isStandIn(v) || v.startsWith(REDACTED)) return match;
  // Without a scheme, prose ("Authorization: required for writes") and types
  // (`authorization: SignInRedirect;`) are left: the value must be a token with a digit or base64's + / =.
  const first = v.split(/\s/, 1)[0] ?? '';
  // A placeholder or a plain word followed by more words is prose ("Bearer <token> instead",
  // "Bearer header with the key"), not a header's value.
  if (!isLiteral(first) || isStandIn(first) || (/\s\S/.test(v) && /^[A-Za-z]{1,19}[.,;:!?]*$/.test(first)))
    return match;
  if (!scheme && !(first.length >= 8 && /[0-9+/=]/.test(first))) return match;
  return `${head}${scheme ?? ''}${REDACTED}${value.slice(v.length)}`;
}

/** "Bearer authentication" in prose is not a token: a letters-only word must be long to count. */
function bearer(match: string, head: string, tokenText: string): string {
  return /^[A-Za-z]{1,19}[.,;:!?]*$/.test(tokenText) ? match : head + REDACTED;
}

/** Basic credentials: a base64 `user:password`, or at least a run with a digit, + or / (not an English word). */
function basic(match: string, head: string, b64: string): string {
  const decoded = Buffer.from(b64, 'base64');
  const isPair = isPrintableAscii(decoded) && decoded.includes(0x3a);
  return isPair || (b64.length >= 8 && /[0-9+/]/.test(b64)) ? head + REDACTED : match;
}

const COOKIE_ATTRIBUTES = new Set([
  'path',
  'domain',
  'expires',
  'max-age',
  'samesite',
  'secure',
  'httponly',
  'priority',
  'partitioned',
  'version',
  'comment',
]);

/** Cookie and Set-Cookie: every cookie's value goes, the names and attributes stay. */
function cookieHeader(_match: string, head: string, value: string): string {
  return (
    head +
    value.replace(/([A-Za-z0-9_.!#$%&'*+^`|~-]{1,256})=([^;\s,]{1,4096})/g, (pair: string, name: string, v: string) =>
      COOKIE_ATTRIBUTES.has(name.toLowerCase()) || !isLiteral(v) ? pair : `${name}=${REDACTED}`,
    )
  );
}

/**
 * `Password=` / `Pwd=` are left to the assignment rules unless they sit in a `;`-separated
 * connection string, where a value may hold spaces and runs to the next `;`.
 */
function connectionString(
  match: string,
  head: string,
  value: string,
  ...rest: (string | number | undefined)[]
): string {
  const { offset, whole } = matchPlace(rest);
  if (!isLiteral(value.trim())) return match;
  const key = head.replace(/^[\s;"']+/, '').toLowerCase();
  if (key.startsWith('password') || key.startsWith('pwd')) {
    // `Server=db;Pwd=x y;` but not `let pwd = format(…);`: no space around '=', a ';' beside.
    const tight = /^[;"'\s]*[A-Za-z]+=$/.test(head);
    const beside =
      head.trimStart().startsWith(';') || whole[offset - 1] === ';' || whole[offset + match.length] === ';';
    if (!tight || !beside || /^[/~]/.test(value)) return match;
  }
  return head + REDACTED;
}

export const CONTEXT_RULES: readonly RedactionRule[] = [
  // --- URLs -------------------------------------------------------------------------------
  rule(
    'url-credentials',
    ['://'],
    // The password may itself hold '@': the run goes to the last '@' before the path.
    '(:\\/\\/[^\\s:/?#@"\'<>]{0,256}:)([^\\s/?#"\'<>]{1,1024})@',
    urlPassword,
  ),
  rule(
    'signed-url-signature',
    ['sig', 'security-token', 'credential='],
    '([?&;](?:sig|signature|X-Amz-Signature|X-Goog-Signature|X-Amz-Security-Token' +
      '|X-Goog-Credential)=)(?!\\[REDACTED\\])[^\\s&#"\'<>;]{8,4096}',
    `$1${REDACTED}`,
    'i',
  ),
  rule(
    'webhook-url',
    ['hooks.slack.com', '/api/webhooks/', 'webhook.office.com'],
    '(hooks\\.slack\\.com\\/(?:services|workflows|triggers)\\/|discord' +
      '(?:app)?\\.com\\/api\\/webhooks\\/[0-9]{1,30}\\/|\\.webhook\\.office\\.com\\/webhookb2\\/)' +
      '(?!\\[REDACTED\\])[^\\s"\'<>]{20,1024}',
    `$1${REDACTED}`,
  ),
  rule(
    'connection-string',
    ['accountkey', 'sharedaccess', 'password', 'pwd'],
    '((?:^|[;"\'\\s])[ \\t]{0,4}(?:AccountKey|SharedAccessKey|SharedAccessSignature|Password' +
      '|Pwd)[ \\t]{0,4}=[ \\t]{0,4})(?!\\[REDACTED\\])([^;"\'\\n\\r\\s`][^;"\'\\n\\r`]{0,4095})',
    connectionString,
    'i',
  ),
  // A 64-byte key in base64 (86 characters and '==') standing alone, as `az storage account
  // keys list` prints it. Trade-off: any other 64-byte base64 value standing alone (an Ed25519
  // signature, a SHA-512 digest printed bare) is redacted too; integrity strings are not, since
  // their `sha512-` prefix is attached.
  rule(
    'azure-storage-key-shape',
    ['=='],
    String.raw`[A-Za-z0-9+/](?<=(?:^|[\s"'=:]|\\[nrt])[A-Za-z0-9+/])[A-Za-z0-9+/]{85}==(?![A-Za-z0-9+/=])`,
  ),

  // --- HTTP -------------------------------------------------------------------------------
  rule(
    'authorization-header',
    ['authorization'],
    `(${word('(?:Proxy-)?Authorization')}\\\\?["'\`]?[ \\t]{0,8}[:=][ \\t]{0,8}\\\\?["'\`]?)(?:` +
      `(${AUTH_SCHEMES})([ \\t]+))?([^\\n\\r"'\`\\\\]{1,4096})`,
    (match: string, head: string, scheme: string | undefined, space: string | undefined, value: string) =>
      authorizationHeader(match, head, scheme === undefined ? undefined : `${scheme}${space ?? ''}`, value),
    'i',
  ),
  rule('bearer-token', ['bearer'], '(' + word('Bearer') + '[ \\t]+)([A-Za-z0-9._~+/=-]{8,4096})', bearer, 'i'),
  rule(
    'basic-credentials',
    ['basic'],
    // The run may not be followed by more base64 letters, but may be by '=': whether a match
    // succeeds must not change when a later rule rewrites what follows it (idempotence).
    '(' + word('Basic') + '[ \\t]+)([A-Za-z0-9+/]{6,4096}={0,2})(?![A-Za-z0-9+/])',
    basic,
  ),
  rule(
    'cookie-header',
    ['cookie'],
    '(' + word('(?:Set-)?Cookie') + '\\\\?["\']?[ \\t]{0,4}:[ \\t]{0,8}\\\\?["\']?)([^\\n\\r"\'\\\\]{1,4096})',
    cookieHeader,
    'i',
  ),
];

/** Keep the head and the value's opening quote; a reference stays as written. */
function quotedValue(match: string, head: string, quote: string, value: string): string {
  return isLiteral(value) ? `${head}${quote}${REDACTED}` : match;
}

/** Credential files and config formats whose secrets are not `name = value`. */
export const FILE_RULES: readonly RedactionRule[] = [
  // ~/.netrc: `machine host login me password pw`, on one line or several. Anchored on the
  // `machine` that starts the entry, so "log in with password …" in prose is left alone.
  rule(
    'netrc-password',
    ['machine'],
    // Separators may be JSON-escaped (`\n`) when the file was printed inside a tool's output.
    String.raw`(password(?<=(?:^|[^\\A-Za-z0-9_]|\\[nrt])machine(?:[ \t\r\n]|\\[nrt]){1,64}[^\s\\]{1,256}` +
      String.raw`(?:[ \t\r\n]|\\[nrt]){1,64}(?:(?:login|account)(?:[ \t\r\n]|\\[nrt]){1,64}[^\s\\]{1,256}` +
      String.raw`(?:[ \t\r\n]|\\[nrt]){1,64}){0,2}password)[ \t]+)((?:[^\s\\]|\\(?![nrt])){1,4096})`,
    (match: string, head: string, value: string) => (isLiteral(value) ? head + REDACTED : match),
  ),
  // ~/.docker/config.json and Kubernetes .dockerconfigjson: "auth" is base64 user:password.
  rule(
    'docker-config-auth',
    ['auth', 'identitytoken', 'registrytoken'],
    String.raw`(\\?"(?:auth|identitytoken|registrytoken)\\?"[ \t]{0,4}:[ \t]{0,4}\\?")(?!\[REDACTED\])[^"\\\n]{4,4096}`,
    `$1${REDACTED}`,
  ),
  // `npm config set //host/:_authToken <token>` puts a space where the file has `=`.
  rule(
    'npmrc-auth',
    ['_auth'],
    String.raw`(${leadStartingWord('_auth')}(?:Token)?[ \t]{0,4}=[ \t]{0,4}|_authToken[ \t]+` +
      String.raw`(?=[^\s"']{8}))(?!\[REDACTED\])[^\s"']{1,4096}`,
    `$1${REDACTED}`,
  ),
  rule(
    'php-define-secret',
    ['define('],
    String.raw`(${word('define')}\([ \t]{0,4}(['"])[A-Za-z0-9_]{0,64}(?:PASSWORD|PASS|PWD|SECRET|TOKEN|` +
      String.raw`KEY|SALT|AUTH)[A-Za-z0-9_]{0,64}\2[ \t]{0,4},[ \t]{0,4})(['"])([^'"\n]{1,4096})`,
    (match: string, head: string, _q: string, quote: string, value: string) => quotedValue(match, head, quote, value),
    'i',
  ),
  rule(
    'xml-secret',
    ['<add', '</'],
    String.raw`(<add[ \t]+key=\\?(["'])[^"'\\\n]{0,64}(?:password|secret|token|apikey|api_key|` +
      String.raw`api-key)[^"'\\\n]{0,64}\\?\2[ \t]+value=)(\\?["'])([^"'\\\n]{1,4096})` +
      (String.raw`|(<((?:[A-Za-z0-9_.-]{0,32}[_.-])?(?:password|passwd|passphrase|secret|token|api[_-]?key|` +
        String.raw`apikey|client[_-]?secret|private[_-]?key|access[_-]?key|secret[_-]?key))>)([^<\n]{1,4096})` +
        String.raw`(?=<\/\6>)`),
    (
      match: string,
      addHead?: string,
      _q?: string,
      quote?: string,
      addValue?: string,
      elHead?: string,
      _n?: string,
      elValue?: string,
    ) =>
      addHead !== undefined
        ? quotedValue(match, addHead, quote ?? '', addValue ?? '')
        : quotedValue(match, elHead ?? '', '', elValue ?? ''),
    'i',
  ),
];
