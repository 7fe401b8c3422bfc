/** Git blobs' bytes by id, from one `git cat-file --batch`: what stale checks and reads at a ref need. */
import { gitProgram, safeGit } from './git-probe.js';
import { childProcess } from '../runtime/lazy-deps.js';

/** Each id git holds as a blob, with its bytes; missing ones and other objects are left out. Throws when git fails. */
export function readBlobs(root: string, ids: readonly string[], timeout: number): Map<string, Buffer> {
  const got = new Map<string, Buffer>();
  if (!ids.length) return got;
  const out = childProcess().execFileSync(gitProgram(root), safeGit(['cat-file', '--batch']), {
    cwd: root,
    input: `${ids.join('\n')}\n`,
    stdio: ['pipe', 'pipe', 'ignore'],
    timeout,
    maxBuffer: 1024 * 1024 * 1024,
  });
  let at = 0;
  for (const id of ids) {
    const nl = out.indexOf(10, at);
    if (nl < 0) break;
    const head = out.subarray(at, nl).toString('utf8').split(' ');
    at = nl + 1;
    // "<id> missing" has no size: nothing follows it.
    if (!/^\d+$/.test(head[2] ?? '')) continue;
    const size = Number(head[2]);
    if (head[1] === 'blob') got.set(id, out.subarray(at, at + size));
    at += size + 1;
  }
  return got;
}
