/**
 * `gctx git install` (and `gctx init --git`): make a memory ready to be committed, shared
 * and merged through git. Three parts, all idempotent:
 *  - `.GCC/.gitattributes` (committed): exact bytes, which driver merges which file;
 *  - the two drivers in the repository's own git config (per clone: git never takes
 *    executables from committed files, and neither do we). The log driver is this
 *    package's CLI by absolute path, run by the node that runs this install, so no file in
 *    the project can choose what executes; if the package or node moves, re-run install;
 *  - post-merge / post-checkout / post-rewrite hooks that rebuild projections (hooks.ts).
 */
import { existsSync, realpathSync } from 'node:fs';
import { gccError } from '../../errors.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { gctxBin } from '../../runtime/self.js';
import { layout } from '../../store/paths.js';
import { writeAttributes, LOG_DRIVER, PROJECTION_DRIVER } from './attributes.js';
import { git, repoTop, shellQuote } from './git.js';
import { HOOKS, hookBlock, installHook, type HookResult } from './hooks.js';

export interface InstallReport {
  repo: string;
  attributesWritten: boolean;
  drivers: Record<string, string>;
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
  if (!existsSync(layout(resolve(projectDir)).gcc)) throw gccError('E_NOT_INITIALIZED', `no memory in ${resolve(projectDir)}`, 'run `gctx init --git` there');
  const root = realpathSync(resolve(projectDir));
  const top = realpathSync(repoTop(root));
  const project = relative(top, root) || '.';
  const attributesWritten = writeAttributes(layout(root).gcc);
  // Placeholders: %O ancestor, %A ours (the result goes there), %B theirs, %P the path.
  // git shell-quotes what it substitutes.
  const drivers: Record<string, string> = {
    [LOG_DRIVER]: `${command} git merge-driver %O %A %B %P`,
    // `true` leaves ours in place and reports success: projections are rebuilt from the
    // merged logs afterwards, so merging their text would only invent hand edits.
    [PROJECTION_DRIVER]: 'true',
  };
  const names: Record<string, string> = {
    [LOG_DRIVER]: 'gctx: union of two memory logs by event id',
    [PROJECTION_DRIVER]: 'gctx: keep ours; projections are rebuilt from the merged logs',
  };
  for (const [name, driver] of Object.entries(drivers)) {
    git(root, ['config', '--local', `merge.${name}.name`, names[name]!]);
    git(root, ['config', '--local', `merge.${name}.driver`, driver]);
  }
  // Asked from the top, where git runs hooks, so a relative core.hooksPath resolves alike.
  const hooksPath = git(top, ['rev-parse', '--git-path', 'hooks']).trim();
  const hooksDir = resolve(top, hooksPath);
  const block = hookBlock(command, project);
  const managed = managedHooks(top, hooksDir);
  const hooks = HOOKS.map((h): HookResult =>
    managed ? { hook: h, path: join(hooksDir, h), action: 'skipped', why: `core.hooksPath (${hooksPath}) is managed in the repository; have it run the line in docs/git.md` } : installHook(hooksDir, h, block, project),
  );
  return { repo: top, attributesWritten, drivers, hooks };
}
