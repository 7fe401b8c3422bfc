/**
 * Writes the generated files: docs/machines.md from the machine definitions, and
 * docs/operations.md and src/operations/fields.generated.ts from the catalogue of operations
 * and the CLI's launchers.
 * Run: npx tsx scripts/gen-docs.ts        (--check: exit 1 if any file is stale)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineDocsMarkdown } from '../src/diagrams/docs.js';
import { operationFieldsSource } from './operation-fields.js';

// The fields table first: the operations' docs are rendered through it (usage lines), so they
// are imported only once it is written.
const FILES: [string, () => string | Promise<string>][] = [
  ['docs/machines.md', machineDocsMarkdown],
  ['src/operations/fields.generated.ts', operationFieldsSource],
  ['docs/operations.md', async () => (await import('./operation-docs.js')).operationDocsMarkdown()],
];

let stale = 0;
for (const [name, render] of FILES) {
  const target = fileURLToPath(new URL(`../${name}`, import.meta.url));
  const text = await render();
  if (!process.argv.includes('--check')) {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${target}\n`);
    continue;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    process.stderr.write(`${name} is out of date: run \`npx tsx scripts/gen-docs.ts\`\n`);
    stale++;
  }
}
process.exit(stale ? 1 : 0);
