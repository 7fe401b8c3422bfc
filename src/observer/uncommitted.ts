import { dirname, join } from 'node:path';
import { childProcess } from '../runtime/lazy-deps.js';
import { gitProgram, safeGit } from '../store/git-probe.js';

/**
 * Does `.GCC/events/` hold anything git does not have committed? Untracked, modified and staged
 * segment files count; ignored ones too when `ignored` is set (for `git clean -x` and
 * `git stash --all`, which remove ignored files). A git command that rewrites the work tree
 * (stash, reset --hard, checkout .) would drop those events, so the guard refuses such commands
 * while this is true. Fails safe: when git is missing, slow or errors, the answer is true.
 */
export function memoryUncommitted(gccDir: string, opts: { ignored?: boolean } = {}): boolean {
  const args = ['status', '--porcelain', '--untracked-files=all', ...(opts.ignored ? ['--ignored'] : []), '--', join(gccDir, 'events')];
  try {
    // safeGit: the repository's config names no program (an fsmonitor hook) for this status.
    const out = childProcess().execFileSync(gitProgram(dirname(gccDir)), safeGit(args), {
      cwd: dirname(gccDir),
      encoding: 'utf8',
      timeout: 2_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: gitEnv(),
    });
    return out.trim().length > 0;
  } catch {
    return true;
  }
}

/** The hook's environment without variables that would point git at another repository, and without index refreshes. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_CEILING_DIRECTORIES']) delete env[k];
  return env;
}
