/**
 * `gctx git install` (and `gctx init --git`): git hooks (post-merge, post-checkout,
 * post-rewrite) that rebuild the memory's views right after git changed the work tree. No
 * merge driver: segments are owned by one writer each, so every merge path is a union of
 * files (docs/git.md). Hooks are per clone (git never takes executables from committed
 * files, and neither do we): the command is this package's executable by absolute path, run
 * by the node that runs this install; re-run install if either moves. Without the hooks,
 * the next gctx call does the same work.
 */
import { existsSync, realpathSync } from 'node:fs';
import { gccError } from '../../errors.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { gctxBin } from '../../runtime/self.js';
import { layout } from '../../store/paths.js';
import { git, repoTop, shellQuote } from './git.js';
import { HOOKS, hookBlock, installHook, type HookResult } from './hooks.js';

export interface InstallReport {
  repo: string;
  hooks: HookResult[];
}

/** How git should run this gctx: the current node and this package's executable, both absolute. */
export function selfCommand(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(gctxBin())}`;
}

const inside = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * A core.hooksPath inside the working tree (and outside .git) belongs to a hook manager
 * such as husky or lefthook: its files are committed or regenerated, and must not carry
 * this clone's absolute paths.
 */
function managedHooks(top: string, hooksDir: string): boolean {
  const gitDir = git(top, ['rev-parse', '--absolute-git-dir']).trim();
  return inside(top, hooksDir) && !inside(gitDir, hooksDir);
}

export function installGit(projectDir: string, command = selfCommand()): InstallReport {
  if (!existsSync(layout(resolve(projectDir)).gcc))
    throw gccError('E_NOT_INITIALIZED', `no memory in ${resolve(projectDir)}`, 'run `gctx init --git` there');
  const root = realpathSync(resolve(projectDir));
  const top = realpathSync(repoTop(root));
  const project = relative(top, root) || '.';
  // Asked from the top, where git runs hooks, so a relative core.hooksPath resolves alike.
  const hooksPath = git(top, ['rev-parse', '--git-path', 'hooks']).trim();
  const hooksDir = resolve(top, hooksPath);
  const block = hookBlock(command, project);
  const managed = managedHooks(top, hooksDir);
  const hooks = HOOKS.map(
    (h): HookResult =>
      managed
        ? {
            hook: h,
            path: join(hooksDir, h),
            action: 'skipped',
            why: `core.hooksPath (${hooksPath}) is managed in the repository; have it run the line in docs/git.md`,
          }
        : installHook(hooksDir, h, block, project),
  );
  return { repo: top, hooks };
}
