// For each given byte offset (inside the last batch of a log), opens a copy of the memory
// cut there, and reports what survived.
// Usage: truncate-all.mjs <dir-with-.GCC> <work-dir> <offsets as a JSON array>
import { cpSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from '../../../dist/index.js';

const [src, work] = process.argv.slice(2);
const offsets = JSON.parse(process.argv[4]);
const results = [];
for (const cut of offsets) {
  const dir = join(work, `cut-${cut}`);
  cpSync(join(src, '.GCC'), join(dir, '.GCC'), { recursive: true });
  rmSync(join(dir, '.GCC', '.cache'), { recursive: true, force: true });
  truncateSync(join(dir, '.GCC', 'log.md'), cut);
  const r = { cut };
  try {
    const m = await Memory.open(dir);
    r.ids = m.events().map((e) => e.id);
    r.warnings = m.warnings;
    r.problems = m.verify();
    r.logLength = readFileSync(join(dir, '.GCC', 'log.md')).length;
    let q = [];
    try {
      q = readdirSync(join(dir, '.GCC', 'quarantine')).map((f) => readFileSync(join(dir, '.GCC', 'quarantine', f), 'utf8'));
    } catch {
      /* none */
    }
    r.quarantined = q;
    m.close();
  } catch (err) {
    r.error = { name: err?.name, code: err?.code, message: String(err?.message ?? err) };
  }
  results.push(r);
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(results));
