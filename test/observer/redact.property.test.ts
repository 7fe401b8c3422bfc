import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundText } from '../../src/observer/bound.js';
import { REDACTED, redactSecrets, redactSecretsUngated } from '../../src/observer/redact.js';
import { LONG } from '../support/runs.js';

const chars = (alphabet: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet.split('')), minLength: min, maxLength: max });
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DIGITS = '0123456789';
const HEX = '0123456789abcdef';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const B64 = ALNUM + '+/';

/** Secrets shaped like the real ones, each family with its own body alphabet. */
const secret = fc.oneof(
  fc
    .tuple(fc.constantFrom('sk-', 'sk-proj-', 'sk-ant-api03-'), chars(ALNUM + '_-', 20, 60), chars(DIGITS, 1, 3))
    .map(([p, b, d]) => p + d + b),
  fc.tuple(fc.constantFrom('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'), chars(ALNUM, 36, 36)).map(([p, b]) => p + b),
  chars(ALNUM + '_', 40, 82).map((b) => `github_pat_${b}`),
  fc.tuple(fc.constantFrom('AKIA', 'ASIA'), chars(UPPER_NUM, 16, 16)).map(([p, b]) => p + b),
  fc.tuple(fc.constantFrom('xoxb-', 'xoxp-', 'xoxa-'), chars(ALNUM + '-', 20, 50)).map(([p, b]) => p + b),
  chars(ALNUM + '_-', 35, 35).map((b) => `AIza${b}`),
  fc.tuple(fc.constantFrom('sk_live_', 'rk_test_'), chars(ALNUM, 24, 40)).map(([p, b]) => p + b),
  chars(ALNUM, 36, 36).map((b) => `npm_${b}`),
  chars(ALNUM + '-', 20, 20).map((b) => `glpat-${b}`),
  fc
    .tuple(chars(ALNUM, 10, 30), chars(ALNUM, 10, 60), chars(ALNUM + '_-', 20, 40))
    .map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  // The families the issue found leaking, and more provider shapes.
  chars(LETTERS, 34, 34).map((b) => `hf_${b}`),
  chars(ALNUM + '_-', 27, 27).map((b) => `dckr_pat_${b}`),
  chars(ALNUM + '_-', 60, 160).map((b) => `pypi-AgEIcHlwaS5vcmc${b}`),
  fc.tuple(fc.constantFrom('shpat_', 'shpss_', 'dapi', 'key-'), chars(HEX, 32, 32)).map(([p, b]) => p + b),
  fc.tuple(fc.constantFrom('dop_v1_', 'doo_v1_'), chars(HEX, 64, 64)).map(([p, b]) => p + b),
  chars(HEX, 48, 48).map((b) => `rubygems_${b}`),
  fc.tuple(fc.constantFrom('lin_api_', 'gsk_', 'ntn_'), chars(ALNUM, 40, 48)).map(([p, b]) => p + b),
  fc.tuple(chars(ALNUM + '_-', 22, 22), chars(ALNUM + '_-', 43, 43)).map(([a, b]) => `SG.${a}.${b}`),
  fc.tuple(fc.constantFrom('glrt-', 'gldt-', 'glptt-'), chars(ALNUM, 20, 40)).map(([p, b]) => p + b),
  fc.tuple(fc.constantFrom('hvs.', 'ya29.', 'GOCSPX-', 'whsec_'), chars(ALNUM + '_', 28, 100)).map(([p, b]) => p + b),
  fc.tuple(chars(DIGITS, 8, 10), chars(ALNUM + '_-', 33, 33)).map(([id, b]) => `${id}:AA${b}`),
  chars(UPPER_NUM, 58, 58).map((b) => `AGE-SECRET-KEY-1${b}`),
  fc.tuple(chars(ALNUM, 3, 3), chars(DIGITS, 1, 1), chars(ALNUM + '_~.-', 34, 34)).map(([a, d, b]) => `${a}${d}Q~${b}`),
  fc
    .tuple(chars(DIGITS, 17, 17), chars(ALNUM + '_-', 6, 6), chars(ALNUM + '_-', 38, 38))
    .map(([id, t, h]) => `${Buffer.from(`1${id}`).toString('base64').replace(/=+$/, '')}.${t}.${h}`),
);

/** Passwords for command lines: no shell metacharacters or quotes, always a digit. */
const password = fc.tuple(chars(ALNUM + '!@%^*+~.,', 7, 30), chars(DIGITS, 1, 1)).map(([p, d]) => d + p);

/** Text around a secret: anything at all, cut off from it by a realistic delimiter. */
const around = fc.string({ unit: 'binary', maxLength: 80 });
const delimiter = fc.constantFrom(' ', '\n', '"', "'", ',', ';', '(', ')', '=', ': ', '\t', '`', '<', '>');

describe('redactSecrets', () => {
  it('removes every generated API key, wherever it sits in arbitrary text', () => {
    fc.assert(
      fc.property(around, delimiter, secret, delimiter, around, (pre, d1, s, d2, post) => {
        const out = redactSecrets(pre + d1 + s + d2 + post);
        expect(out).not.toContain(s);
        expect(out).toContain(REDACTED);
      }),
      { numRuns: 500 },
    );
  });

  it('removes bearer tokens, keeping the scheme', () => {
    fc.assert(
      fc.property(around, chars(ALNUM + '._-~+/', 12, 80), around, (pre, token, post) => {
        const out = redactSecrets(`${pre}\nAuthorization: Bearer ${token}\n${post}`);
        expect(out).not.toContain(token);
        expect(out).toContain('Bearer');
      }),
      { numRuns: 300 },
    );
  });

  it('removes private key blocks, terminated or cut off', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ', ''),
        fc.array(chars(ALNUM + '+/=', 16, 64), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        around,
        (kind, lines, terminated, post) => {
          const body = lines.join('\n');
          const block =
            `-----BEGIN ${kind}PRIVATE ` +
            `KEY-----\n${body}\n${terminated ? `-----END ${kind}PRIVATE KEY-----\n${post}` : ''}`;
          const out = redactSecrets(`key follows:\n${block}`);
          for (const line of lines) expect(out).not.toContain(line);
          if (terminated) expect(out.endsWith(post)).toBe(true);
        },
      ),
      // A full-width character after the block came back folded to ASCII.
      { numRuns: 300, examples: [['RSA ', ['AAAAAAAAAAAAAAAA'], true, '！']] },
    );
  });

  it('removes passwords in URLs and keeps the user and host', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('https', 'postgres', 'mysql', 'redis', 'amqp', 'git+ssh'),
        chars('abcdefghijklmnop_', 1, 12),
        chars(ALNUM + '!$%^*()-_+~.', 8, 40),
        chars('abcdefghij.', 1, 20),
        (scheme, user, password, host) => {
          const out = redactSecrets(`connect ${scheme}://${user}:${password}@${host}/db now`);
          expect(out).not.toContain(`:${password}@`);
          expect(out).toContain(`${scheme}://${user}:${REDACTED}@${host}/db`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('removes values of password= / token= style assignments, quoted or bare', () => {
    const key = fc.constantFrom(
      'password',
      'PASSWORD',
      'db_password',
      'SMTP_PASSWORD',
      'passwd',
      'pwd',
      'token',
      'GITHUB_TOKEN',
      'api_key',
      'API-KEY',
      'apiKey',
      'client_secret',
      'secret',
      'access_key',
      'auth_token',
      'passphrase',
    );
    const sep = fc.constantFrom('=', ': ', ' = ', ':');
    // A value that is just `$NAME` or `%NAME%` is a variable reference, which is kept (it leaks
    // nothing); one shaped like `obj.field` is a member read in code (a documented trade-off).
    const notReference = (v: string) =>
      !/^\$[A-Za-z_][A-Za-z0-9_]*$/.test(v) &&
      !/^%[A-Za-z_][A-Za-z0-9_]*%$/.test(v) &&
      !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v);
    const bareValue = chars(ALNUM + '!@#$%^*+/~.', 8, 40).filter(notReference);
    const quotedValue = fc
      .tuple(fc.constantFrom('"', "'"), chars(ALNUM + ' !@#$%^*+/~.,;', 8, 40).filter(notReference))
      .map(([q, v]) => ({ q, v }));
    fc.assert(
      fc.property(
        key,
        sep,
        fc.oneof(
          bareValue.map((v) => ({ q: '', v })),
          quotedValue,
        ),
        around,
        (keyName, s, { q, v }, post) => {
          const out = redactSecrets(`export ${keyName}${s}${q}${v}${q}\n${post}`);
          expect(out).not.toContain(v);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('removes JSON-style and command-line secrets', () => {
    fc.assert(
      fc.property(chars(ALNUM, 8, 30), (v) => {
        expect(redactSecrets(`{"password": "${v}", "user": "bob"}`)).not.toContain(v);
        expect(redactSecrets(`mysql --password ${v} -h db`)).not.toContain(v);
        expect(redactSecrets(`tool --api-key=${v}`)).not.toContain(v);
        expect(redactSecrets(`curl -u admin:${v} https://x`)).not.toContain(v);
      }),
    );
  });

  it('removes secrets wrapped in base64, on one line or wrapped at 76 columns, alone or after a label', () => {
    fc.assert(
      fc.property(
        around,
        fc.constantFrom(' ', '\n', '"', ': ', '='),
        fc.constantFrom('', 'token: ', 'bob:', 'export GH_TOKEN=', '{"auth":"'),
        secret,
        fc.boolean(),
        fc.constantFrom(' ', '\n', '"', ' | base64 -d'),
        around,
        (pre, d1, label, s, wrap, d2, post) => {
          const b64 = Buffer.from(label + s).toString('base64');
          const text = wrap ? b64.replace(/.{76}/g, '$&\n').trimEnd() : b64;
          const out = redactSecrets(pre + d1 + text + d2 + post);
          for (const line of text.split('\n')) expect(out).not.toContain(line);
          expect(out).not.toContain(s);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('removes passwords from command lines, raw or JSON-encoded in a tool input', () => {
    const commands = [
      (p: string) => `mysql -h db -uroot -p${p} shop`,
      (p: string) => `mysqldump -u root -p'${p}' --all-databases`,
      (p: string) => `sshpass -p ${p} ssh deploy@host uptime`,
      (p: string) => `docker login -u bob -p ${p} registry.example.com`,
      (p: string) => `tool --password ${p} --verbose`,
      (p: string) => `tool --api-key=${p}`,
      (p: string) => `curl -u bob:${p} https://example.com`,
      (p: string) => `PGPASSWORD=${p} psql -h db`,
      (p: string) => `redis-cli -h cache -a ${p} ping`,
      (p: string) => `git clone https://bob:${p}@github.com/org/repo.git`,
    ];
    fc.assert(
      fc.property(fc.constantFrom(...commands), password, fc.boolean(), around, (command, p, json, post) => {
        const line = command(p);
        const out = redactSecrets(`${json ? JSON.stringify({ command: line }) : line}\n${post}`);
        expect(out).not.toContain(p);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent on arbitrary text', () => {
    const fragment = fc.constantFrom(
      'password=',
      'token: ',
      'Bearer ',
      'Basic ',
      'sk-',
      '-----BEGIN PRIVATE KEY-----',
      '://u:',
      '@',
      '"',
      "'",
      ' ',
      '\n',
      '\\n',
      REDACTED,
      'mysql -p',
      'sshpass -p ',
      ' --password ',
      'curl -u u:',
      'AccountKey=',
      ';Pwd=',
      'machine h login u password ',
      'Cookie: a=',
      'Authorization: ',
      'ghp_',
      'Z2hwX',
      '=',
      ':',
      ',',
      '`',
      'SECRET_KEY = ',
      'passphrase: ',
      '(',
      ')',
      '[',
      ']',
      '&',
      ';',
      '.',
      '\u001b[31m',
      '\u200b',
      '\\u001b[m',
    );
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.array(fc.oneof(fragment, chars(ALNUM, 1, 24)), { maxLength: 30 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(text, (t) => {
        const once = redactSecrets(t);
        expect(redactSecrets(once)).toBe(once);
        // The keyword gates only skip work: running every rule gives the same text.
        expect(redactSecretsUngated(t)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves ordinary identifiers, hashes and data alone, however they are joined', () => {
    const camel = fc
      .array(
        fc.constantFrom(
          'handle',
          'Request',
          'Token',
          'Refresh',
          'Password',
          'Reset',
          'User',
          'Field',
          'Secret',
          'Manager',
          'Key',
          'Auth',
        ),
        { minLength: 2, maxLength: 6 },
      )
      .map((a) => a.join(''));
    const ordinary = fc.oneof(
      fc.uuid(),
      chars(HEX, 40, 40),
      chars(HEX, 7, 7),
      chars(B64, 86, 86).map((b) => `sha512-${b}==`),
      fc.tuple(fc.nat(30), fc.nat(30), fc.nat(30)).map(([a, b, c]) => `^${a}.${b}.${c}`),
      chars(HEX, 6, 6).map((h) => `#${h}`),
      camel,
      camel.map((c) => `${c}()`),
      fc.constantFrom(
        '--password-stdin',
        'mysql -p',
        'Bearer ${TOKEN}',
        '$GITHUB_TOKEN',
        '${{ secrets.NPM_TOKEN }}',
        'ls -l',
        'npm ci',
      ),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(ordinary, fc.constantFrom(' ', '\n', ', ', '\t')), { maxLength: 30 }), (parts) => {
        const text = parts.map(([w, sep]) => w + sep).join('');
        expect(redactSecrets(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves ordinary prose and code alone', () => {
    const word = fc.constantFrom(
      'the',
      'tests',
      'passed',
      'tokens',
      'tokenizer',
      'max_tokens=100',
      'task-management-system',
      'disk-based-approach',
      'author:',
      'bob',
      'secretary',
      'Basic',
      'configuration',
      'risk-assessment',
      'npm',
      'install',
      'ghost',
      'skeleton',
      'const',
      'x',
      '=',
      '1;',
      'return',
      'foo(bar)',
      'https://example.com/path',
      'user@example.com',
      'AKIA',
      'sk-',
      'C003',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(word, fc.constantFrom(' ', '\n', ', ')), { maxLength: 40 }), (parts) => {
        const text = parts.map(([w, s]) => w + s).join('');
        expect(redactSecrets(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('stays linear on hostile inputs of a few hundred kilobytes (completes, no catastrophic backtracking)', () => {
    const hostile = [
      'sk-'.repeat(100_000),
      'password='.repeat(30_000),
      '-----BEGIN PRIVATE KEY-----'.repeat(10_000) + '-----END CERTIFICATE-----',
      'a://b:'.repeat(50_000),
      `${'a'.repeat(250_000)}@`,
      'Bearer '.repeat(40_000),
      `"password": "${'x'.repeat(250_000)}`,
      'eyJ' + 'a.'.repeat(120_000),
    ];
    for (const h of hostile) expect(typeof redactSecrets(h)).toBe('string');
  });

  // Each string aims at one rule's worst case: a literal that starts a match which then fails
  // far along, over and over. A superlinear rule would not finish within the test's timeout.
  it('stays linear on hostile inputs of a megabyte aimed at each kind of rule', () => {
    // A fifth of a megabyte still turns a quadratic rule into a hang; GCC_LONG runs the whole megabyte.
    const MB = LONG ? 1_000_000 : 200_000;
    const fill = (s: string) => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
    const b64 = (n: number) => Buffer.from('x'.repeat(n)).toString('base64');
    const hostile = [
      fill('sk-'),
      fill('mysql -p'),
      `mysql ${fill(' -p')}`,
      `sshpass ${fill(' -p -')}`,
      `curl ${fill('-u a:b ')}`,
      fill('machine x login y '),
      fill('Authorization: '),
      `Cookie: ${fill('a=b;')}`,
      fill('x://u:p@'),
      fill('abc1Q~'),
      fill('1234567:AA'),
      fill('MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdef.'),
      fill('Basic '),
      fill('PASSWORD='),
      fill('"token": "'),
      fill('--password '),
      fill('\\n'),
      fill(';Pwd='),
      fill(`${b64(60)}\n`),
      fill(`${b64(57)}\n`),
      fill(`  key: ${b64(30)}\n`),
      fill('A'),
      fill('=='),
      `-----BEGIN RSA PRIVATE KEY-----${fill('-----END RSA PRIV')}`,
    ];
    for (const h of hostile) expect(typeof redactSecrets(h)).toBe('string');
  });
});

describe('boundText', () => {
  it('never exceeds the limit, keeps head and tail, and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 3000 }),
        fc.integer({ min: 100, max: 2000 }),
        (text, limit) => {
          const out = boundText(text, limit);
          expect(out.length).toBeLessThanOrEqual(limit);
          if (text.length <= limit) expect(out).toBe(text);
          else {
            expect(out).toMatch(/characters omitted/);
            expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
          }
        },
      ),
    );
  });
});
