/**
 * Git objects' bytes, from one `git cat-file --batch`: commits for COMMIT's files, blobs for stale checks
 * and reads at a ref.
 */
import { gitProgram, safeGit } from './git-probe.js';
import { childProcess } from '../runtime/lazy-deps.js';

/** The environment git runs in: a hook's GIT_DIR and the like must not point it elsewhere. */
export function gitEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base = { ...process.env, ...env };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_PREFIX']) delete base[k];
  return base;
}

export interface GitObject {
  /** The object's id (a rev like HEAD resolved). */
  id: string;
  type: string;
  body: Buffer;
}

/** Each rev's object in order, or null where git has none. Throws when git fails. */
export function readObjects(root: string, revs: readonly string[], timeout: number): (GitObject | null)[] {
  if (!revs.length) return [];
  const out = childProcess().execFileSync(gitProgram(root), safeGit(['cat-file', '--batch']), {
    cwd: root,
    env: gitEnv(),
    input: `${revs.join('\n')}\n`,
    stdio: ['pipe', 'pipe', 'ignore'],
    timeout,
    maxBuffer: 1024 * 1024 * 1024,
  });
  const found: (GitObject | null)[] = [];
  let at = 0;
  for (let i = 0; i < revs.length; i++) {
    const nl = out.indexOf(10, at);
    if (nl < 0) break;
    const head = out.subarray(at, nl).toString('utf8').split(' ');
    at = nl + 1;
    // "<rev> missing" has no size: nothing follows it.
    if (head.length !== 3 || !/^\d+$/.test(head[2]!)) {
      found.push(null);
      continue;
    }
    const size = Number(head[2]);
    found.push({ id: head[0]!, type: head[1]!, body: out.subarray(at, at + size) });
    at += size + 1;
  }
  return found;
}

/** Each id git holds as a blob, with its bytes. Throws when git fails. */
export function readBlobs(root: string, ids: readonly string[], timeout: number): Map<string, Buffer> {
  const got = new Map<string, Buffer>();
  readObjects(root, ids, timeout).forEach((o, i) => o?.type === 'blob' && got.set(ids[i]!, o.body));
  return got;
}
