// Simulates a full disk or a failing device by replacing node:fs functions before the
// library loads (the library's named imports are live bindings to them).
// Usage: failing-writes.mjs <dir> <mode>
//   segment-full    the append to the open segment fails with ENOSPC
//   segment-short   the append writes half its bytes, then fails with ENOSPC (a torn tail)
//   segment-fsync   fsync of the segment fails with EIO
//   local-full      the append to the local log (.GCC/.local/local.md) fails with ENOSPC
//   ledger          writing the ledger fails with ENOSPC (after the append is durable)
//   views           writing a view (main.md, commit.md, …) fails with ENOSPC (after the append)
// One good operation, one under the fault, then one more after it clears. The operation under
// the fault is a branch creation: one shared event (the segment) and one local (the switch).
// Prints one JSON line: the ids acknowledged, what the faulty operation returned or threw,
// whether the faulty operation reached the file it was writing, and the warnings.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const [dir, mode] = process.argv.slice(2);
const paths = new Map();
let armed = false;
let hits = 0;
const fault = (code) => Object.assign(new Error(`${code}: simulated (${mode})`), { code, errno: code === 'ENOSPC' ? -28 : -5, syscall: 'write' });
const { openSync, writeSync, fsyncSync, writeFileSync, closeSync } = fs;
const norm = (p) => String(p).replaceAll('\\', '/');
const isSegment = (p) => /\/\.GCC\/events\/\d{4}-\d{2}\/[^/]+\.md$/.test(p);
const isLocal = (p) => p.endsWith('/.GCC/.local/local.md');
const isLedger = (p) => /\/\.GCC\/\.local\/ledger\.json(\.sealed)?$/.test(p);
// Views go through a temporary file and a rename (`main.md.tmp-…`), or grow by appends.
const isView = (p) => /\/\.GCC\/(?!events\/|\.local\/)[^]*\.(md|yaml)(\.tmp-[^/]*)?$/.test(p);
const target = { 'segment-full': isSegment, 'segment-short': isSegment, 'segment-fsync': isSegment, 'local-full': isLocal, ledger: isLedger, views: isView }[mode];
if (!target) throw new Error(`unknown mode ${mode}`);
const hit = (p) => armed && target(norm(p));

fs.openSync = (path, ...rest) => {
  if ((mode === 'views' || mode === 'ledger') && hit(path)) {
    hits++;
    throw fault('ENOSPC');
  }
  const fd = openSync(path, ...rest);
  paths.set(fd, norm(path));
  return fd;
};
fs.closeSync = (fd) => {
  paths.delete(fd);
  return closeSync(fd);
};
let short = false;
// Arguments pass through untouched: writeSync(fd, string, position) and
// writeSync(fd, buffer, offset, length, position) mean different things.
fs.writeSync = (fd, ...args) => {
  const p = paths.get(fd) ?? '';
  if (hit(p) && (mode === 'segment-full' || mode === 'local-full')) {
    hits++;
    throw fault('ENOSPC');
  }
  if (hit(p) && mode === 'segment-short') {
    hits++;
    if (short) throw fault('ENOSPC');
    short = true;
    const [buf, off = 0, len] = args;
    const b = typeof buf === 'string' ? Buffer.from(buf) : buf;
    const n = typeof len === 'number' ? len : b.length - off;
    return writeSync(fd, b, off, Math.max(1, Math.floor(n / 2)));
  }
  return writeSync(fd, ...args);
};
fs.fsyncSync = (fd) => {
  if (mode === 'segment-fsync' && hit(paths.get(fd) ?? '')) {
    hits++;
    throw fault('EIO');
  }
  return fsyncSync(fd);
};
fs.writeFileSync = (path, ...rest) => {
  if (hit(path)) {
    hits++;
    throw fault('ENOSPC');
  }
  return writeFileSync(path, ...rest);
};
syncBuiltinESMExports();

const { Memory } = await import('../../../dist/index.js');
const m = await Memory.open(dir);
const out = { acked: [], failed: null };
const ids = (r) => r.events.map((e) => e.id);
out.acked.push(...ids(await m.execute({ type: 'commit', contribution: 'before the fault' })));
armed = true;
try {
  const r = await m.execute({ type: 'branch', name: 'under-the-fault', purpose: 'recorded while the disk fails' });
  out.failed = { accepted: ids(r) };
} catch (err) {
  out.failed = { code: err.code, message: err.message };
}
armed = false;
out.hits = hits;
try {
  out.acked.push(...ids(await m.execute({ type: 'commit', contribution: 'after the fault' })));
} catch (err) {
  out.after = { code: err.code, message: err.message };
}
out.warnings = m.warnings;
m.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
