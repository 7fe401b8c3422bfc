/**
 * Our rules beside secretlint's preset, as tables: provider tokens the preset misses or takes at
 * one exact length only (a literal prefix the provider puts on every token, then a bounded run of
 * its charset, after gitleaks' facts; generous lengths and no entropy filter, since a fake key in
 * a log costs nothing and a real one does), and secrets found by what surrounds them: a private
 * key's armour, a URL's userinfo, an HTTP header, a connection string, a credential file. Each
 * keeps the non-secret part so the log stays readable. Command lines are in redact-command.ts,
 * `key = value` in redact-assign.ts.
 */

import { Buffer } from 'node:buffer';
import {
  isLiteral,
  isPlaceholder,
  isPrintableAscii,
  isStandIn,
  isTemplate,
  leadStartingWord,
  matchPlace,
  REDACTED,
  type RedactionRule,
  rule,
} from './redact-rule.js';

/** [name, lead (a literal alternation), body]: a token is `lead` starting a word, then `body`. */
type Shape = readonly [name: string, lead: string, body: string];

const SHAPES: readonly Shape[] = [
  ['aws-session-token', 'IQoJb3JpZ2luX2|FwoGZXIvYXdz|FQoGZXIvYXdz', '[A-Za-z0-9/+=]{40,4096}'],
  ['aws-bedrock-key', 'ABSK', '[A-Za-z0-9+/]{100,400}={0,2}'],
  ['aws-key-id', 'ABIA|ACCA|APKA', '[A-Z0-9]{16}(?![A-Za-z0-9])'],
  ['gcp-api-key', 'AIza', '[0-9A-Za-z_-]{30,512}'],
  ['gcp-oauth', 'GOCSPX-|ya29\\.|1//0', '[0-9A-Za-z_-]{20,4096}'],
  ['digitalocean-token', 'do[opr]_v1_', '[a-f0-9]{64}'],
  ['heroku-api-key', 'HRKU-', '[0-9A-Za-z_-]{20,255}'],
  ['vault-token', 'hv[sbr]\\.', '[0-9A-Za-z_-]{20,512}'],
  ['cloudflare-origin-ca-key', 'v1\\.0-', '[a-f0-9]{24}-[a-f0-9]{146}'],
  ['openshift-token', 'sha256~', '[0-9A-Za-z_-]{43}'],
  ['fly-token', 'fo1_', '[0-9A-Za-z_-]{40,255}'],
  ['fly-macaroon', 'fm[12][ar]?_', '[A-Za-z0-9+/]{100,4096}={0,3}'],
  ['supabase-token', 'sbp_|sb_secret_', '[0-9A-Za-z_-]{20,255}'],
  ['grafana-api-key', 'eyJrIjoi', '[A-Za-z0-9]{70,400}={0,3}'],
  ['github-fine-grained-pat', 'github_pat_', '[A-Za-z0-9_]{22,255}'],
  ['gitlab-token', 'gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|oas|soat|ffct|wt)-|GR1348941', '[0-9A-Za-z_.-]{20,512}'],
  ['atlassian-token', 'ATATT3', '[0-9A-Za-z_=-]{100,512}'],
  ['buildkite-token', 'bkua_', '[a-f0-9]{40}'],
  ['postman-token', 'PMAK-', '[a-f0-9]{24}-[a-f0-9]{34}'],
  ['sentry-token', 'sntry[su]_', '[0-9A-Za-z+/=_-]{40,1024}'],
  ['pypi-token', 'pypi-Ag', '[0-9A-Za-z_-]{50,4096}'],
  ['rubygems-token', 'rubygems_', '[A-Za-z0-9]{40,255}'],
  ['nuget-api-key', 'oy2', '[a-z0-9]{43}(?![A-Za-z0-9])'],
  ['docker-hub-org-token', 'dckr_oat_', '[0-9A-Za-z_-]{20,255}'],
  ['clojars-token', 'CLOJARS_', '[A-Za-z0-9]{40,255}'],
  ['artifactory-token', 'AKCp|cmVmd', '[A-Za-z0-9]{55,255}'],
  ['anthropic-key', 'sk-ant-', '[0-9A-Za-z_-]{20,512}'],
  // sk- is shared by OpenAI (sk-proj-, sk-svcacct-, sk-admin-), DeepSeek and others; a digit
  // early on keeps hyphenated words out (sk-learn-compatible).
  ['openai-style-key', 'sk-', '(?=[A-Za-z_-]{0,48}[0-9])[0-9A-Za-z_-]{16,512}'],
  ['ai-provider-key', 'api_org_|gsk_|r8_|pplx-|xai-|lsv2_(?:pt|sk)_', '[0-9A-Za-z_]{30,255}'],
  ['stripe-webhook-secret', 'whsec_', '[0-9A-Za-z+/=_-]{20,255}'],
  ['square-token', 'sq0(?:atp|csp)-', '[0-9A-Za-z_-]{22,255}'],
  ['twilio-api-key', 'SK', '[0-9a-fA-F]{32}(?![A-Za-z0-9])'],
  ['sendgrid-key', 'SG\\.', '[0-9A-Za-z_-]{16,64}\\.[0-9A-Za-z_-]{16,128}'],
  ['mailgun-key', 'key-', '[a-f0-9]{32}(?![A-Za-z0-9])'],
  ['brevo-key', 'xkeysib-', '[a-f0-9]{64}-[A-Za-z0-9]{16}'],
  ['slack-token', 'xox[abposre]-|xapp-', '[0-9A-Za-z-]{10,512}'],
  ['linear-oauth', 'lin_oauth_', '[A-Za-z0-9]{30,255}'],
  ['notion-token', 'ntn_', '[A-Za-z0-9]{40,255}'],
  ['notion-legacy-token', 'secret_', '[A-Za-z0-9]{43}(?![A-Za-z0-9])'],
  ['mapbox-secret-token', 'sk\\.eyJ', '[0-9A-Za-z_-]{20,1024}\\.[0-9A-Za-z_-]{20,1024}'],
  ['doppler-token', 'dp\\.(?:pt|st|sa|ct|scim|audit)\\.', '[A-Za-z0-9]{40,255}'],
  ['pulumi-token', 'pul-', '[a-f0-9]{40}'],
  ['planetscale-token', 'pscale_(?:tkn|oauth|pw)_', '[0-9A-Za-z_.=-]{30,255}'],
  ['new-relic-key', 'NRAK-', '[A-Z0-9]{27}'],
  ['dynatrace-token', 'dt0c01\\.', '[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}'],
  ['age-secret-key', 'AGE-SECRET-KEY-1', '[A-Z0-9]{58}'],
  // JWTs: a base64url JSON header, a payload and a signature (an empty one still redacted).
  ['jwt', 'eyJ', '[0-9A-Za-z_-]{4,4096}\\.[0-9A-Za-z_-]{4,8192}\\.[0-9A-Za-z_-]{0,4096}'],
];

/** The lowercase literal each branch of a lead starts with, for the rule's keyword gate. */
function keywords(lead: string): string[] {
  return lead.split('|').map((b) => /^[^[(\\]*/.exec(b.replace(/\\\./g, '.'))![0].toLowerCase());
}

/** A Discord bot token's first part is the bot's numeric id in base64: checked, so dotted identifiers are left. */
function discordToken(match: string): string {
  const id = Buffer.from(match.slice(0, match.indexOf('.')), 'base64').toString('latin1');
  return /^[0-9]{15,22}$/.test(id) ? REDACTED : match;
}

export const TOKEN_RULES: readonly RedactionRule[] = [
  // The key id and its 40-character secret side by side (the console's credentials CSV): the
  // key-id rule alone would leave the secret next to a redacted id.
  rule(
    'aws-credential-pair',
    ['akia', 'asia'],
    `${leadStartingWord('AKIA|ASIA')}[A-Z0-9]{16}[ \\t]{0,4}[,:|;\\t ][ \\t]{0,4}[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
  ),
  // `aws configure set` puts a space where files put `=`.
  rule(
    'aws-secret-access-key',
    ['secret'],
    '((?:aws_?)?secret_?access_?key|aws_?secret_?key)(\\\\?["\']?[ \\t]{0,4}(?:[:=]' +
      '|[ \\t])[ \\t]{0,8}\\\\?["\']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])',
    `$1$2${REDACTED}`,
    'i',
  ),
  ...SHAPES.map(([name, lead, body]) => {
    return rule(name, keywords(lead), leadStartingWord(lead) + body);
  }),
  rule(
    'azure-ad-client-secret',
    ['q~'],
    leadStartingWord('[A-Za-z0-9_~.]', 'A-Za-z0-9_~.-') +
      '[A-Za-z0-9_~.]{2}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])',
  ),
  rule(
    'terraform-cloud-token',
    ['.atlasv1.'],
    `${leadStartingWord('[A-Za-z0-9]')}[A-Za-z0-9]{13}\\.atlasv1\\.[0-9A-Za-z_=-]{60,255}`,
  ),
  rule('mailchimp-key', ['-us'], `${leadStartingWord('[a-f0-9]')}[a-f0-9]{31}-us[0-9]{1,2}(?![A-Za-z0-9])`),
  rule(
    'discord-bot-token',
    ['.'],
    leadStartingWord('[MNO]', '0-9A-Za-z_-') +
      '[0-9A-Za-z_-]{23,27}\\.[0-9A-Za-z_-]{6,7}\\.[0-9A-Za-z_-]{27,40}(?![0-9A-Za-z_-])',
    discordToken,
  ),
  rule('telegram-bot-token', [':aa'], '(?<![0-9])[0-9]{6,12}:AA[0-9A-Za-z_-]{30,255}'),
];

/** `lead` starting a word (also right after a JSON-escaped line break). */
const word = (lead: string) => leadStartingWord(lead, 'A-Za-z0-9_');

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
