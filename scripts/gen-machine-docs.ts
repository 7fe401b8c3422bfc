/**
 * Writes docs/machines.md from the machine definitions.
 * Run: npx tsx scripts/gen-machine-docs.ts        (--check: exit 1 if the file is stale)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineDocsMarkdown } from '../src/diagrams/docs.js';

const target = fileURLToPath(new URL('../docs/machines.md', import.meta.url));
const text = machineDocsMarkdown();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    process.stderr.write('docs/machines.md is out of date: run `npx tsx scripts/gen-machine-docs.ts`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
