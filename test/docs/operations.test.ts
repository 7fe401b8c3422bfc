import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operationDocsMarkdown } from '../../scripts/operation-docs.js';
import { LAUNCHERS } from '../../src/adapters/cli/launchers/index.js';
import { CATALOGUE } from '../../src/operations/index.js';
import { argsOf } from '../../src/operations/schema.js';

describe('docs/operations.md', () => {
  it('is up to date with the catalogue (regenerate: npx tsx scripts/gen-docs.ts)', () => {
    const committed = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    expect(committed).toBe(operationDocsMarkdown());
  });

  it('has a section for every operation and launcher, and documents every argument', () => {
    const text = operationDocsMarkdown();
    for (const op of [...CATALOGUE, ...LAUNCHERS]) {
      const start = text.indexOf(`\n## ${op.name}\n`);
      expect(start, op.name).toBeGreaterThan(0);
      const end = text.indexOf('\n## ', start + 1);
      const section = text.slice(start, end === -1 ? undefined : end);
      for (const field of Object.keys(argsOf(op).shape))
        expect(section, `${op.name}.${field}`).toContain(`| \`${field}\` |`);
    }
  });
});
