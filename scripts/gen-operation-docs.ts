/**
 * Writes docs/operations.md from the catalogue of operations and the CLI's launchers.
 * Run: npx tsx scripts/gen-operation-docs.ts        (--check: exit 1 if the file is stale)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operationDocsMarkdown } from './operation-docs.js';

const target = fileURLToPath(new URL('../docs/operations.md', import.meta.url));
const text = operationDocsMarkdown();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    process.stderr.write('docs/operations.md is out of date: run `npx tsx scripts/gen-operation-docs.ts`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
