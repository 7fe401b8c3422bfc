// Run as an unprivileged user on a memory it cannot write: reads must work, writes must be
// refused with a typed error. Prints one JSON line. Usage: as-reader.mjs <dir>
const { Memory } = await import('../../../dist/index.js');
const [dir] = process.argv.slice(2);
const out = { uid: process.getuid() };
try {
  const m = await Memory.open(dir, { lockTimeoutMs: 2_000 });
  out.opened = true;
  out.warnings = m.warnings;
  out.status = m.context({ level: 'status' }).text.length > 0;
  out.events = m.events().length;
  try {
    await m.execute({ type: 'commit', contribution: 'should be refused' });
    out.write = 'accepted';
  } catch (err) {
    out.write = { code: err.code, message: err.message };
  }
  m.close();
} catch (err) {
  out.opened = { code: err.code, message: err.message };
}
process.stdout.write(`${JSON.stringify(out)}\n`);
