import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundText } from '../../src/observer/bound.js';
import { REDACTED, redactSecrets } from '../../src/observer/redact.js';

const chars = (alphabet: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet.split('')), minLength: min, maxLength: max });
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DIGITS = '0123456789';

/** Secrets shaped like the real ones, each family with its own body alphabet. */
const secret = fc.oneof(
  fc.tuple(fc.constantFrom('sk-', 'sk-proj-', 'sk-ant-api03-'), chars(ALNUM + '_-', 20, 60), chars(DIGITS, 1, 3)).map(([p, b, d]) => p + d + b),
  fc.tuple(fc.constantFrom('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'), chars(ALNUM, 36, 36)).map(([p, b]) => p + b),
  chars(ALNUM + '_', 40, 82).map((b) => `github_pat_${b}`),
  fc.tuple(fc.constantFrom('AKIA', 'ASIA'), chars(UPPER_NUM, 16, 16)).map(([p, b]) => p + b),
  fc.tuple(fc.constantFrom('xoxb-', 'xoxp-', 'xoxa-'), chars(ALNUM + '-', 20, 50)).map(([p, b]) => p + b),
  chars(ALNUM + '_-', 35, 35).map((b) => `AIza${b}`),
  fc.tuple(fc.constantFrom('sk_live_', 'rk_test_'), chars(ALNUM, 24, 40)).map(([p, b]) => p + b),
  chars(ALNUM, 36, 36).map((b) => `npm_${b}`),
  chars(ALNUM + '-', 20, 20).map((b) => `glpat-${b}`),
  fc.tuple(chars(ALNUM, 10, 30), chars(ALNUM, 10, 60), chars(ALNUM + '_-', 20, 40)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
);

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
          const block = `-----BEGIN ${kind}PRIVATE KEY-----\n${body}\n${terminated ? `-----END ${kind}PRIVATE KEY-----\n${post}` : ''}`;
          const out = redactSecrets(`key follows:\n${block}`);
          for (const line of lines) expect(out).not.toContain(line);
          if (terminated) expect(out.endsWith(post)).toBe(true);
        },
      ),
      { numRuns: 300 },
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
    const key = fc.constantFrom('password', 'PASSWORD', 'db_password', 'SMTP_PASSWORD', 'passwd', 'pwd', 'token', 'GITHUB_TOKEN', 'api_key', 'API-KEY', 'apiKey', 'client_secret', 'secret', 'access_key', 'auth_token', 'passphrase');
    const sep = fc.constantFrom('=', ': ', ' = ', ':');
    // A value that is just `$NAME` or `%NAME%` is a variable reference, which is kept (it leaks
    // nothing); one shaped like `obj.field` is a member read in code (a documented trade-off).
    const notReference = (v: string) =>
      !/^\$[A-Za-z_][A-Za-z0-9_]*$/.test(v) && !/^%[A-Za-z_][A-Za-z0-9_]*%$/.test(v) && !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v);
    const bareValue = chars(ALNUM + '!@#$%^*+/~.', 8, 40).filter(notReference);
    const quotedValue = fc
      .tuple(fc.constantFrom('"', "'"), chars(ALNUM + ' !@#$%^*+/~.,;', 8, 40).filter(notReference))
      .map(([q, v]) => ({ q, v }));
    fc.assert(
      fc.property(key, sep, fc.oneof(bareValue.map((v) => ({ q: '', v })), quotedValue), around, (keyName, s, { q, v }, post) => {
        const out = redactSecrets(`export ${keyName}${s}${q}${v}${q}\n${post}`);
        expect(out).not.toContain(v);
      }),
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

  it('is idempotent on arbitrary text', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.array(fc.oneof(fc.constantFrom('password=', 'token: ', 'Bearer ', 'sk-', '-----BEGIN PRIVATE KEY-----', '://u:', '@', '"', "'", ' ', '\n', REDACTED), chars(ALNUM, 1, 24)), { maxLength: 30 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(text, (t) => {
        const once = redactSecrets(t);
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves ordinary prose and code alone', () => {
    const word = fc.constantFrom(
      'the', 'tests', 'passed', 'tokens', 'tokenizer', 'max_tokens=100', 'task-management-system', 'disk-based-approach',
      'author:', 'bob', 'secretary', 'Basic', 'configuration', 'risk-assessment', 'npm', 'install', 'ghost', 'skeleton',
      'const', 'x', '=', '1;', 'return', 'foo(bar)', 'https://example.com/path', 'user@example.com', 'AKIA', 'sk-', 'C003',
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
});

describe('boundText', () => {
  it('never exceeds the limit, keeps head and tail, and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.integer({ min: 100, max: 2000 }), (text, limit) => {
        const out = boundText(text, limit);
        expect(out.length).toBeLessThanOrEqual(limit);
        if (text.length <= limit) expect(out).toBe(text);
        else {
          expect(out).toMatch(/characters omitted/);
          expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
        }
      }),
    );
  });
});
