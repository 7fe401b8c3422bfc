// Takes a memory's lock and holds it. Prints "locked <pid>", then releases on a line
// "release" on stdin (printing "released"), or never when told to die holding it.
// Usage: lock-holder.mjs <dir> [die]   (die: exit without releasing, as a crash would)
import { createInterface } from 'node:readline';
import { FileLock } from '../../../dist/store/lock.js';
import { layout } from '../../../dist/store/paths.js';

const [dir, mode] = process.argv.slice(2);
const lock = new FileLock(layout(dir).lock);
await lock.acquire({ timeoutMs: 60_000 });
process.stdout.write(`locked ${process.pid}\n`);
if (mode === 'die') process.kill(process.pid, 'SIGKILL');
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.trim() === 'release') {
    lock.release();
    process.stdout.write('released\n');
    break;
  }
}
rl.close();
