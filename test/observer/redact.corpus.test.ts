import { describe, expect, it } from 'vitest';
import { REDACTED, REDACTION_RULES, redactSecrets, redactSecretsUngated } from '../../src/observer/redact.js';
import { PROVIDER_PATTERNS } from '../../src/observer/redact-provider.js';
import { FALSE_POSITIVES, TRUE_POSITIVES } from './redact.corpus.js';

/**
 * Contexts a sample reaches the log in: as is, JSON-encoded inside a tool's input, inside a
 * stack trace, on one log line, in a markdown fence, in a YAML block scalar.
 */
const CONTEXTS: Record<string, (text: string) => string> = {
  raw: (t) => t,
  'json tool input': (t) => JSON.stringify({ tool: 'Bash', input: { command: t, description: 'run it' } }),
  'stack trace': (t) =>
    `Error: request failed\n    at handler (/app/src/server.ts:12:5)\n${t}\n    at ` +
    `process.processTicksAndRejections (node:internal/process/task_queues:95:5)`,
  'log line': (t) =>
    `2025-03-03T10:12:00.000Z INFO worker[4242]: ${t}\n2025-03-03T10:12:00.001Z INFO worker[4242]: done\n`,
  'markdown fence': (t) => `Output:\n\n\`\`\`\n${t}\n\`\`\`\n`,
  'yaml block': (t) => `steps:\n  - run: |\n${t.replace(/^/gm, '      ')}\n    name: step`,
};

/** A secret is gone if neither it nor its JSON-escaped form is in the output. */
function expectGone(out: string, secret: string): void {
  expect(out).not.toContain(secret);
  expect(out).not.toContain(JSON.stringify(secret).slice(1, -1));
}

describe('redaction corpus: true positives', () => {
  it('has at least 40 samples over at least 30 kinds', () => {
    expect(TRUE_POSITIVES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(TRUE_POSITIVES.map((s) => s.kind)).size).toBeGreaterThanOrEqual(30);
    for (const s of TRUE_POSITIVES) expect(s.secrets.length, s.kind).toBeGreaterThan(0);
  });

  for (const sample of TRUE_POSITIVES) {
    it(`${sample.kind}: ${sample.text.slice(0, 60).replace(/\n/g, '⏎')}`, () => {
      for (const [name, wrap] of Object.entries(CONTEXTS)) {
        const text = wrap(sample.text);
        const out = redactSecrets(text);
        for (const secret of sample.secrets) expectGone(out, secret);
        expect(out, name).toContain(REDACTED);
        if (name === 'raw') for (const kept of sample.keep ?? []) expect(out, `keeps ${kept}`).toContain(kept);
      }
    });
  }
});

describe('redaction corpus: false positives', () => {
  for (const text of FALSE_POSITIVES) {
    it(`unchanged: ${text.slice(0, 60).replace(/\n/g, '⏎')}`, () => {
      for (const wrap of Object.values(CONTEXTS)) {
        const wrapped = wrap(text);
        expect(redactSecrets(wrapped)).toBe(wrapped);
      }
    });
  }
});

describe('redaction corpus: invariants', () => {
  const all = [...TRUE_POSITIVES.map((s) => s.text), ...FALSE_POSITIVES].flatMap((t) =>
    Object.values(CONTEXTS).map((wrap) => wrap(t)),
  );

  it('is idempotent on every sample', () => {
    for (const text of all) {
      const once = redactSecrets(text);
      expect(redactSecrets(once)).toBe(once);
    }
  });

  it('keyword gates only skip work: every sample redacts the same with every rule run', () => {
    for (const text of all) expect(redactSecrets(text)).toBe(redactSecretsUngated(text));
  });

  it("reads the patterns of secretlint's preset from the package (a release that hides them fails here)", () => {
    const ids = new Set(PROVIDER_PATTERNS.map(([id]) => id));
    for (const id of [
      'aws',
      'github',
      'gitlab',
      'slack',
      'stripe',
      'sendgrid',
      'npm',
      'openai',
      'anthropic',
      'privatekey',
      'basicauth',
      'database-connection-string',
    ])
      expect(ids, id).toContain(id);
    expect(ids).not.toContain('filter-comments');
  });

  it('names every rule once', () => {
    expect(new Set(REDACTION_RULES).size).toBe(REDACTION_RULES.length);
  });
});
