/**
 * `gctx git sync`, run by the hooks right after git changed a memory's logs: open the
 * memory telling it which projection files are exactly what git checked out. Those belong
 * to the checked-out logs (or, after a merge, to our side), not to a person, so the engine
 * replaces them with a fresh render instead of keeping them aside.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { Memory } from '../../engine/memory.js';
import { layout } from '../../store/paths.js';

/** Environment for a git child: hooks export GIT_DIR and friends relative to their own cwd. */
function gitEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX']) delete env[k];
  return env;
}

/** Whether a file is tracked and its working copy equals the index (what git just wrote). */
export function checkedOut(root: string): (path: string) => boolean {
  return (path) => {
    const rel = relative(root, path);
    try {
      const tracked = execFileSync('git', ['ls-files', '--', rel], { cwd: root, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      if (!tracked.trim()) return false;
      const modified = execFileSync('git', ['ls-files', '--modified', '--', rel], { cwd: root, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      return !modified.trim();
    } catch {
      return false; // unknown: the engine keeps the file aside, which loses nothing
    }
  };
}

export async function syncAfterGit(dir: string): Promise<{ warnings: string[]; skipped: boolean }> {
  if (!existsSync(layout(dir).gcc)) return { warnings: [], skipped: true };
  const m = await Memory.open(dir, { checkedOut: checkedOut(dir) });
  m.close();
  return { warnings: [...m.warnings], skipped: false };
}
