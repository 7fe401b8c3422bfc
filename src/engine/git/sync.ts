/**
 * `gctx git sync`, run by the hooks right after git changed the work tree (checkout, merge,
 * rebase): open the memory, which folds what git brought and rebuilds the views. At a commit
 * from before the memory there is nothing to open, which is no news worth a line on every
 * checkout of a bisect — the next gctx command says so. While git is mid-operation (a rebase,
 * with or without `--autostash`, a merge, a cherry-pick or revert stopped on a conflict) it
 * stays out: a segment git set aside for a while is not damage, and the next gctx command, once
 * git is done, folds and checks the memory as git left it.
 */
import { existsSync } from 'node:fs';
import { asGccError } from '../../errors.js';
import { Memory } from '../memory.js';
import { layout } from '../../store/paths.js';
import { findRepo, midOperation } from '../../store/git-probe.js';

export async function syncAfterGit(dir: string): Promise<{ warnings: string[]; skipped: boolean }> {
  if (!existsSync(layout(dir).gcc)) return { warnings: [], skipped: true };
  const repo = findRepo(dir);
  if (repo && midOperation(repo)) return { warnings: [], skipped: true };
  let m: Memory;
  try {
    m = await Memory.open(dir);
  } catch (err) {
    if (asGccError(err).code === 'E_NOT_INITIALIZED') return { warnings: [], skipped: true };
    throw err;
  }
  m.close();
  return { warnings: m.warnings, skipped: false };
}
