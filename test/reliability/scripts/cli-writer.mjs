// Runs `gctx log` <count> times, one process after another, as a shell loop of a user's would:
// each opens the memory afresh. Usage: cli-writer.mjs <cli> <dir> <tag> <count>
import { spawnSync } from 'node:child_process';

const [cli, dir, tag, countText] = process.argv.slice(2);
for (let i = 1; i <= Number(countText); i++) {
  const r = spawnSync(process.execPath, [cli, 'log', '--observation', `${tag} ${i}`], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`gctx log exited ${r.status}: ${r.stderr}`);
    process.exit(1);
  }
}
