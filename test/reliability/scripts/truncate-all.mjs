// For each given cut n, rebuilds what a crash after n bytes of a batch leaves — the memory as
// crash-at.mjs captured it the instant before the batch was written, plus the first n bytes
// of the batch in its log — opens it, and reports what survived.
// Usage: truncate-all.mjs <capture-dir> <work-dir> <cuts as a JSON array>
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Memory } from '../../../dist/index.js';

const [capture, work] = process.argv.slice(2);
const cuts = JSON.parse(process.argv[4]);
const batch = readFileSync(join(capture, 'batch.bin'));
const target = readFileSync(join(capture, 'target.txt'), 'utf8');
const results = [];
for (const cut of cuts) {
  const dir = join(work, `cut-${cut}`);
  cpSync(join(capture, '.GCC'), join(dir, '.GCC'), { recursive: true });
  mkdirSync(dirname(join(dir, target)), { recursive: true });
  appendFileSync(join(dir, target), batch.subarray(0, cut));
  const r = { cut };
  try {
    const m = await Memory.open(dir);
    r.ids = m.events().map((e) => e.id);
    r.warnings = m.warnings;
    r.problems = m.verify();
    r.logLength = readFileSync(join(dir, target)).length;
    try {
      r.quarantined = readdirSync(join(dir, '.GCC', 'quarantine')).map((f) => readFileSync(join(dir, '.GCC', 'quarantine', f), 'latin1'));
    } catch {
      r.quarantined = [];
    }
    m.close();
  } catch (err) {
    r.error = { name: err?.name, code: err?.code, message: String(err?.message ?? err) };
  }
  results.push(r);
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(results));
