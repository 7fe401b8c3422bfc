/**
 * Writes the generated files: docs/machines.md from the machine definitions, docs/operations.md
 * from the catalogue of operations and the CLI's launchers.
 * Run: npx tsx scripts/gen-docs.ts        (--check: exit 1 if any file is stale)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineDocsMarkdown } from './machine-docs.js';
import { operationDocsMarkdown } from './operation-docs.js';

const FILES: [string, () => string][] = [
  ['docs/machines.md', machineDocsMarkdown],
  ['docs/operations.md', operationDocsMarkdown],
];

let stale = 0;
for (const [name, render] of FILES) {
  const target = fileURLToPath(new URL(`../${name}`, import.meta.url));
  const text = render();
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
