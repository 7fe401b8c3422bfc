// Simulates a full disk or a failing device by replacing node:fs functions before the
// library loads (the library's named imports are live bindings to them).
// Usage: failing-writes.mjs <dir> <mode>
//   log-full      the write of the log append fails with ENOSPC
//   log-short     the log append writes half its bytes, then fails with ENOSPC (torn tail)
//   log-fsync     fsync of the log fails with EIO
//   projection    writing a projection file fails with ENOSPC (after the log append)
// One good commit, one commit under the fault, then one more commit after it clears.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const [dir, mode] = process.argv.slice(2);
const paths = new Map();
let armed = false;
const fault = (code) => Object.assign(new Error(`${code}: simulated (${mode})`), { code, errno: code === 'ENOSPC' ? -28 : -5, syscall: 'write' });
const { openSync, writeSync, fsyncSync, writeFileSync, closeSync } = fs;
const isProjectionTemp = (path) => /\.md\.tmp-|\.yaml\.tmp-/.test(String(path));
fs.openSync = (path, ...rest) => {
  if (armed && mode === 'projection' && isProjectionTemp(path)) throw fault('ENOSPC');
  const fd = openSync(path, ...rest);
  paths.set(fd, String(path));
  return fd;
};
fs.closeSync = (fd) => {
  paths.delete(fd);
  return closeSync(fd);
};
const isLog = (fd) => (paths.get(fd) ?? '').endsWith('log.md');
fs.writeSync = (fd, buf, off = 0, len, pos) => {
  if (armed === true && isLog(fd)) {
    if (mode === 'log-full') throw fault('ENOSPC');
    if (mode === 'log-short') {
      const b = typeof buf === 'string' ? Buffer.from(buf) : buf;
      const n = len ?? b.length - off;
      armed = 'short-written';
      return writeSync(fd, b, off, Math.max(1, Math.floor(n / 2)), pos);
    }
  }
  if (armed === 'short-written' && isLog(fd)) throw fault('ENOSPC');
  return writeSync(fd, buf, off, len, pos);
};
fs.fsyncSync = (fd) => {
  if (armed && mode === 'log-fsync' && isLog(fd)) throw fault('EIO');
  return fsyncSync(fd);
};
fs.writeFileSync = (path, ...rest) => {
  if (armed && mode === 'projection' && isProjectionTemp(path)) throw fault('ENOSPC');
  return writeFileSync(path, ...rest);
};
syncBuiltinESMExports();

const { Memory } = await import('../../../dist/index.js');
const m = await Memory.open(dir);
const out = { acked: [], failed: null };
out.acked.push(...(await m.execute({ type: 'commit', contribution: 'before the fault' })).events.map((e) => e.id));
armed = true;
try {
  const r = await m.execute({ type: 'commit', contribution: 'under the fault' });
  out.failed = { accepted: r.events.map((e) => e.id) };
} catch (err) {
  out.failed = { code: err.code, message: err.message };
}
armed = false;
try {
  out.acked.push(...(await m.execute({ type: 'commit', contribution: 'after the fault' })).events.map((e) => e.id));
} catch (err) {
  out.after = { code: err.code, message: err.message };
}
out.warnings = m.warnings;
m.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
