/**
 * Secret redaction for everything the hook writes into log.md. The log is meant to be committed
 * and shared, so a key that shows up in a tool's input or output must never reach it.
 *
 * Every pattern is anchored on a literal prefix and uses bounded, non-nested quantifiers, so the
 * whole pass stays linear in the input (the property tests feed it hostile megabyte strings).
 * Over-redaction is preferred to a leak: a redacted harmless value costs nothing.
 */

export const REDACTED = '[REDACTED]';

interface Rule {
  name: string;
  pattern: RegExp;
  /** Replacement; `$1`-style groups keep the non-secret part (a key name, a URL's user). */
  replace: string;
}

// Token charsets are deliberately wide: a redaction that stops early leaks the tail.
const TOKEN = '[A-Za-z0-9_\\-]';

// Names that mark the value after them as secret. A name must end at a separator ("passed",
// "tokens", "tokenizer" are not secrets), but may carry any prefix (GITHUB_TOKEN, db.password).
const SECRET_WORD =
  '(?:passw(?:or)?d|passphrase|pass|pwd|secrets?|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|authorization|auth[_-]?token|cookie)';

// A value: quoted (possibly unterminated, cut by a line end) or a bare word. Never the marker
// itself, so a second pass leaves "password=[REDACTED]" alone.
const VALUE = `(?!\\[REDACTED\\]|(?:Bearer|Basic|Digest|Token|Negotiate)\\s)("[^"\\n]{0,4096}"?|'[^'\\n]{0,4096}'?|[^\\s,;&|"'<>)}\\]]{1,4096})`;

const RULES: Rule[] = [
  // PEM private keys; an unterminated block (cut by truncation upstream) is redacted to the end.
  // The body stops only at a matching END, so the match never backtracks (linear on hostile input).
  {
    name: 'private-key',
    pattern: /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?!-----END[ A-Z0-9]{0,40}PRIVATE KEY)[\s\S])*(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?(?:-----)?|$)/g,
    replace: `-----BEGIN PRIVATE KEY----- ${REDACTED} -----END PRIVATE KEY-----`,
  },
  // OpenAI / Anthropic style keys: sk-..., sk-proj-..., sk-ant-... Not inside a word ("task-...")
  // and holding a digit, so prose like "disk-based-approach" survives.
  {
    name: 'sk-key',
    pattern: new RegExp(`(?<![A-Za-z0-9])sk-(?=[A-Za-z_-]{0,256}[0-9])${TOKEN}{16,}`, 'g'),
    replace: REDACTED,
  },
  // Stripe live/test secret and restricted keys.
  { name: 'stripe', pattern: /[rs]k_(?:live|test)_[A-Za-z0-9]{8,}/g, replace: REDACTED },
  // GitHub tokens: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained.
  { name: 'github', pattern: /gh[pousr]_[A-Za-z0-9]{16,}/g, replace: REDACTED },
  { name: 'github-pat', pattern: /github_pat_[A-Za-z0-9_]{16,}/g, replace: REDACTED },
  // GitLab personal access tokens.
  { name: 'gitlab', pattern: /glpat-[A-Za-z0-9_-]{16,}/g, replace: REDACTED },
  // AWS access key ids (long-term and temporary).
  {
    name: 'aws-key-id',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16,}/g,
    replace: REDACTED,
  },
  // Slack tokens.
  { name: 'slack', pattern: /xox[abposr]-[A-Za-z0-9-]{8,}/g, replace: REDACTED },
  // Google API keys.
  { name: 'google', pattern: /AIza[0-9A-Za-z_-]{20,}/g, replace: REDACTED },
  // npm tokens.
  { name: 'npm', pattern: /npm_[A-Za-z0-9]{20,}/g, replace: REDACTED },
  // JSON Web Tokens.
  { name: 'jwt', pattern: /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, replace: REDACTED },
  // An Authorization header's credential, whatever its scheme (base64 "user:pass" has no digit).
  {
    name: 'authorization-header',
    pattern: /\b(Authorization["']?\s{0,8}[:=]\s{0,8}["']?(?:(?:Bearer|Basic|Digest|Token|Negotiate)\s+)?)(?!\[REDACTED\])[^\s"',;]{1,4096}/gi,
    replace: `$1${REDACTED}`,
  },
  // Authorization headers: "Bearer" always marks a credential; Basic / Digest / Token only when
  // the word after looks like one (has a digit or base64 padding), so "Basic configuration" stays.
  {
    name: 'bearer',
    pattern: /\b(Bearer)(\s+)(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{6,}/gi,
    replace: `$1$2${REDACTED}`,
  },
  {
    name: 'auth-scheme',
    pattern: /\b(Basic|Digest|Token)(\s+)(?!\[REDACTED\])(?=[A-Za-z._~-]{0,256}[0-9+/])[A-Za-z0-9._~+/-]{6,}={0,2}/g,
    replace: `$1$2${REDACTED}`,
  },
  // Passwords in URLs: scheme://user:password@host keeps the user, drops the password.
  {
    name: 'url-password',
    pattern: /([A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/[^\s:/?#@]{0,256}:)[^\s/?#@]{1,4096}@/g,
    replace: `$1${REDACTED}@`,
  },
  // curl / wget style credentials: -u user:password, --user=user:password.
  {
    name: 'user-password-flag',
    pattern: /((?:^|\s)(?:-u|--user|--proxy-user)(?:\s+|=)["']?[^\s:"']{1,256}:)(?!\[REDACTED\])[^\s"']{1,4096}/g,
    replace: `$1${REDACTED}`,
  },
  // Command-line flags: --password hunter2, --api-key=abc, -token xyz.
  {
    name: 'cli-flag',
    pattern: new RegExp(`(-{1,2}[A-Za-z0-9_-]{0,32}${SECRET_WORD}(?:[_-][A-Za-z0-9_-]{0,32})?)(\\s+|=)${VALUE}`, 'gi'),
    replace: `$1$2${REDACTED}`,
  },
  // Assignments: password=..., "token": "...", API_KEY: ..., DB_PASSWORD_FILE=... .
  {
    name: 'assignment',
    pattern: new RegExp(
      `([A-Za-z0-9_.-]{0,64}${SECRET_WORD}(?:[_.-][A-Za-z0-9_.-]{0,63})?["']?)(\\s{0,8}[=:]\\s{0,8}|\\s+(?=["']))${VALUE}`,
      'gi',
    ),
    replace: `$1$2${REDACTED}`,
  },
];

/** Redact secrets from `text`. Idempotent: redacting twice gives the same text. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule.pattern, rule.replace);
  return out;
}

/** Names of the rules, for documentation and tests. */
export const REDACTION_RULES: readonly string[] = RULES.map((r) => r.name);
