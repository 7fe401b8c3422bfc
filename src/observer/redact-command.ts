/**
 * Passwords on command lines. Two kinds:
 *
 * - Flags that name a secret on any command: `--password x`, `--api-key=x`, `--token x`,
 *   `-passin pass:x`. The flag must end with the secret word, so `--password-stdin` and
 *   `--token-file path` are left alone.
 * - Short flags whose meaning depends on the command: `-p` is a password for `mysql -pX` (only
 *   attached: `mysql -p db` prompts and names a database), `sshpass -p`, `docker login -p`,
 *   `mongosh -p`, but a port for ssh and a parent-dir switch for mkdir. These rules look back
 *   (at most 512 characters, within one command: no newline, `|`, `;` or `&` between, though
 *   `\`-continued lines count) for the command that gives the flag its meaning.
 */

import {
  isLiteral,
  isProseAfterQuote,
  matchPlace,
  QUOTED_VALUE,
  REDACTED,
  type RedactionRule,
  requote,
  rule,
  unquote,
} from './redact-rule.js';

// A bare value stops at a JSON-escaped line break (`\n`) as at a real one.
const VALUE = `${QUOTED_VALUE}|(?:[^\\s"'\`;&|<>\\\\]|\\\\(?![nrt"])){1,4096}`;

/**
 * `flag`, on a command line started by one of `commands`. The flag comes first, then `ahead` (a
 * cheap lookahead at what follows it), and only then the check that looks back for the
 * command: the engine skips through the text by the flag's literal, and `mkdir -p dir` costs
 * no look back when only an attached `-pX` can be a password.
 */
function onCommand(commands: string, flag: string, ahead = ''): string {
  const start = String.raw`(?:^|[\s;&|(` + '`' + String.raw`"'/]|\\[nrt])`;
  return (
    String.raw`(?:${flag})${ahead}(?<=${start}(?:${commands})[ \t](?:(?:[^\n|;&]|\\\r?\n){0,512}[ \t])?` +
    String.raw`(?:${flag}))`
  );
}

/** Words that follow a flag in prose ("pass --token or --password to …"), never a password. */
const PROSE_WORDS = new Set(
  (
    'a an and are as at be by can flag flags for from if in instead is it must not of on ' +
    'option options or parameter should switch that the this to value when which will with'
  ).split(' '),
);

/** Redact a flag's value, keeping its quotes; spaced values that are the next flag are left. */
function flagValue(match: string, flag: string, sep: string, value: string): string {
  const inner = unquote(value);
  if (!isLiteral(inner) || inner.includes(REDACTED) || isProseAfterQuote(value)) return match;
  if (sep.trim() === '' && value.startsWith('-')) return match;
  if (PROSE_WORDS.has(value.replace(/[.,:;!?]+$/, '').toLowerCase())) return match;
  return flag + sep + requote(value);
}

/**
 * flagValue for a flag on any command, which may also be text about the flag: a help table
 * (`--api-key    Save an API key …`, two or more spaces) or a sentence (`--api-key requires a
 * model`: a letters-only word followed by another word) is left.
 */
function anyCommandFlagValue(
  match: string,
  flag: string,
  sep: string,
  value: string,
  ...rest: (string | number | undefined)[]
): string {
  const { offset, whole } = matchPlace(rest);
  if (/^[ \t]{2,}$/.test(sep)) return match;
  if (
    sep.trim() === '' &&
    /^[A-Za-z]+$/.test(value) &&
    /^ [A-Za-z]/.test(whole.slice(offset + match.length, offset + match.length + 2))
  )
    return match;
  return flagValue(match, flag, sep, value);
}

/** `user:password` style values: keep the user. */
function userValue(match: string, flag: string, sep: string, user: string, value: string): string {
  return isLiteral(value) && !value.includes(REDACTED) ? flag + sep + user + REDACTED : match;
}

const SECURE_STRING_ARG = new RegExp(
  String.raw`(?:[ \t]+|(?<=-String:))(-[A-Za-z]{1,16}:?|${QUOTED_VALUE}|[^\s"'$(|;]{1,4096})`,
  'g',
);

/**
 * ConvertTo-SecureString's arguments with the password redacted: the first word that is not a
 * switch (the value of `-String`, or the positional one); `-AsPlainText` and `-Force` may come anywhere.
 */
function secureStringArgs(args: string): string {
  for (const m of args.matchAll(SECURE_STRING_ARG)) {
    const word = m[1]!;
    if (word.startsWith('-')) continue;
    if (!isLiteral(unquote(word)) || word.includes(REDACTED)) return args;
    const at = m.index + m[0].length - word.length;
    return args.slice(0, at) + requote(word) + args.slice(at + word.length);
  }
  return args;
}

type Spacing = 'attached' | 'spaced' | 'either';
const MYSQL_TOOLS = 'mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mysqlsh|mysqlbinlog';
const MONGO_TOOLS = 'mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop|mongofiles';
const REGISTRY_LOGINS =
  String.raw`(?:docker|podman|nerdctl|buildah|skopeo|oras|finch)[ \t]+login|helm[ \t]+registry[ \t]+login|` +
  String.raw`crane[ \t]+auth[ \t]+login|regctl[ \t]+registry[ \t]+login`;
/** The gap between flag and value, and a lookahead that the value can start there. */
const SPACING: Record<Spacing, { gap: string; ahead: string }> = {
  attached: { gap: '()', ahead: '(?=[^\\s\\\\]|\\\\(?![nrt]))' },
  spaced: { gap: '([ \\t]+)', ahead: '(?=[ \\t]+[^\\s-])' },
  either: { gap: '(=|[ \\t]*)', ahead: '(?=[ \\t]*[^\\s-])' },
};

/** A password given to `flag` on one of `commands`: [name, keywords, commands, flag, spacing]. */
const COMMAND_FLAGS: readonly (readonly [string, string, string, string, Spacing])[] = [
  [
    'mysql-password',
    'mysql mariadb mycli',
    `mysql|${MYSQL_TOOLS}|mariadb|mariadb-dump|mariadb-admin|mycli`,
    '-p',
    'attached',
  ],
  ['sshpass-password', 'sshpass', 'sshpass', '-p', 'either'],
  ['registry-login-password', 'login', REGISTRY_LOGINS, '-p', 'either'],
  ['mongo-password', 'mongo', `mongo|mongosh|${MONGO_TOOLS}`, '-p', 'either'],
  ['redis-cli-password', '-cli', 'redis-cli|keydb-cli|valkey-cli', '-a', 'spaced'],
  ['zip-password', 'zip', 'zip|unzip|zipcloak', '-P', 'spaced'],
  ['7z-password', '7z', '7z|7za|7zz|7zr', '-p', 'attached'],
  ['ssh-keygen-passphrase', 'ssh-keygen', 'ssh-keygen', '-[NP]', 'either'],
  ['gh-secret-body', 'secret', String.raw`gh[ \t]+secret[ \t]+set`, '-b|--body', 'spaced'],
];

/** A `user:password` given to `flag` on one of `commands`: [name, keywords, commands, flag, separator]. */
const USER_FLAGS: readonly (readonly [string, string, string, string, string])[] = [
  ['curl-user-password', 'curl wget', 'curl|wget|curlie', '-u|--user|--proxy-user|-U|--http-user', ':'],
  ['httpie-auth', 'http xh', 'http|https|xh|xhs', '-a|--auth', ':'],
  ['smbclient-password', 'smb rpcclient', 'smbclient|rpcclient|smbcacls|smbget|smbmap', '-U|--user', '%'],
];

/** Last word of a flag that names a secret. */
const FLAG_WORDS = [
  'pass(?:word|wd|phrase|in|out)?',
  'pwd',
  'secret',
  'token',
  'apikey',
  'api-?key',
  '(?:secret|access|account|private|master|client|storage|encryption|signing|auth|app|license' +
    '|subscription|admin|sas|deploy|bot)[-_]?key',
  'credentials?',
  'sas',
].join('|');

export const COMMAND_RULES: readonly RedactionRule[] = [
  ...COMMAND_FLAGS.map(([name, keywords, commands, flag, spacing]) =>
    rule(
      name,
      keywords.split(' '),
      `(${onCommand(commands, flag, SPACING[spacing].ahead)})${SPACING[spacing].gap}(${VALUE})`,
      flagValue,
    ),
  ),
  ...USER_FLAGS.map(([name, keywords, commands, flag, separator]) =>
    rule(
      name,
      keywords.split(' '),
      `(${onCommand(commands, flag)})(=|[ \\t]*)` +
        `(\\\\?["']?[^\\s${separator}"'@]{0,256}${separator})([^\\s"'\\\\]{1,4096})`,
      userValue,
    ),
  ),
  rule(
    'kubectl-secret-literal',
    ['--from-literal'],
    `(${onCommand(String.raw`(?:kubectl|oc)[ \t]+create[ \t]+secret`, '--from-literal')}(?:=` +
      `|[ \\t]+)\\\\?["']?[^\\s="']{1,256}=)()([^\\s"'\\\\]{1,4096})`,
    flagValue,
  ),
  rule(
    'powershell-secure-string',
    ['convertto-securestring'],
    String.raw`(ConvertTo-SecureString)((?:(?:[ \t]+|(?<=-String:))(?:-[A-Za-z]{1,16}:?|${QUOTED_VALUE}|` +
      String.raw`[^\s"'$(|;]{1,4096})){1,6})`,
    (match: string, head: string, args: string) => head + secureStringArgs(args),
    'i',
  ),
  rule(
    'powershell-piped-secure-string',
    ['convertto-securestring'],
    String.raw`(${QUOTED_VALUE})(?=[ \t]*\|[ \t]*ConvertTo-SecureString)`,
    (match: string) => (isLiteral(unquote(match)) && !match.includes(REDACTED) ? requote(match) : match),
    'i',
  ),
  rule(
    'network-credential',
    ['credential'],
    String.raw`((?:NetworkCredential\]::new|NetworkCredential|PSCredential)[ \t]{0,4}\([ \t]{0,4}` +
      String.raw`(?:${QUOTED_VALUE}|\$\w{1,64})[ \t]{0,4},[ \t]{0,4})(${QUOTED_VALUE})`,
    (match: string, head: string, value: string) =>
      isLiteral(unquote(value)) && !value.includes(REDACTED) ? head + requote(value) : match,
    'i',
  ),
  // Any command: a flag whose last word names a secret. Single-dash forms are openssl's
  // (-pass pass:x, -passin, -passout) and Go's (-token x).
  rule(
    'secret-flag',
    ['pass', 'pwd', 'secret', 'token', 'key', 'credential', 'sas'],
    String.raw`(-(?<=(?:^|[\s"'(\[,=]|\\[nrt])-)-?(?!no-)(?:[A-Za-z0-9]{1,24}[-_.]){0,4}` +
      String.raw`(?:${FLAG_WORDS}))(=|[ \t]+|\\?["'][ \t]{0,4},[ \t]{0,4})(${VALUE})`,
    anyCommandFlagValue,
    'i',
  ),
];
