// Runs one operation on a memory and stops it inside the write of its batch to a log.
// Usage: crash-at.mjs <dir> <operation as JSON> <segment|local> <how>
//   how = kill:<n>      write the first n bytes of the batch, then SIGKILL this process (a real
//                       crash: no fsync, no ledger write, no cleanup after those bytes)
//   how = capture:<out> copy <dir>/.GCC to <out>/.GCC the instant before the batch is written
//                       (everything the crash would find: the ledger, views, caches, the log up
//                       to the batch), let the write finish, and save the batch's bytes and the
//                       log's path to <out>/batch.bin and <out>/target.txt. From that, a crash
//                       at any byte is the capture plus a prefix of the batch (truncate-all.mjs).
//   how = before-ledger: write the whole batch and whatever follows it up to the ledger (the
//                       views), then SIGKILL this process as it starts writing the ledger: the
//                       batch durable, the views ahead of the checkpoint the ledger holds
// The operation's own acknowledgement is printed as `ack <id>` lines when it completes.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join, relative } from 'node:path';

const [dir, opText, which, how] = process.argv.slice(2);
const op = JSON.parse(opText);
const [mode, arg] = [how.slice(0, how.indexOf(':')), how.slice(how.indexOf(':') + 1)];
const isTarget = which === 'local' ? (p) => p.endsWith('/.GCC/.local/local.md') : (p) => /\/\.GCC\/events\/\d{4}-\d{2}\/[^/]+\.md$/.test(p);
const paths = new Map();
let armed = false;
const { openSync, closeSync, writeSync } = fs;
fs.openSync = (path, ...rest) => {
  const fd = openSync(path, ...rest);
  paths.set(fd, String(path).replaceAll('\\', '/'));
  return fd;
};
fs.closeSync = (fd) => {
  paths.delete(fd);
  return closeSync(fd);
};
// A log append is one writeSync(fd, buffer, offset, length) of the whole batch (LogFile.append).
let ledgerArmed = false;
fs.writeSync = (fd, ...args) => {
  const path = paths.get(fd) ?? '';
  if (ledgerArmed && path.endsWith('/.GCC/.local/ledger.json')) process.kill(process.pid, 'SIGKILL');
  if (armed && isTarget(path) && typeof args[0] !== 'string') {
    armed = false;
    if (mode === 'before-ledger') {
      ledgerArmed = true;
      return writeSync(fd, ...args);
    }
    const [buf, off = 0, len = buf.length - off] = args;
    const batch = Buffer.from(buf.subarray(off, off + len));
    if (mode === 'kill') {
      const n = Math.min(Number(arg), batch.length);
      let done = 0;
      while (done < n) done += writeSync(fd, batch, done, n - done);
      process.kill(process.pid, 'SIGKILL');
    }
    fs.cpSync(join(dir, '.GCC'), join(arg, '.GCC'), { recursive: true });
    fs.writeFileSync(join(arg, 'batch.bin'), batch);
    fs.writeFileSync(join(arg, 'target.txt'), relative(dir, path));
  }
  return writeSync(fd, ...args);
};
syncBuiltinESMExports();

const { Memory } = await import('../../../dist/index.js');
const m = await Memory.open(dir);
armed = true;
const r = await m.execute(op);
for (const e of r.events) process.stdout.write(`ack ${e.id}\n`);
m.close();
process.stdout.write('done\n');
