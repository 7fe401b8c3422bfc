/**
 * `gctx git sync`, run by the hooks right after git changed the work tree (checkout, merge,
 * rebase): open the memory, which folds what git brought and rebuilds the views. At a commit
 * of the first layout it reads and changes nothing (a visit: store/visit.ts), and at a commit
 * from before the memory there is nothing to open; neither is news worth a line on every
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

export async function syncAfterGit(dir: string): Promise<{ warnings: string[]; skipped: boolean; visiting: boolean }> {
  if (!existsSync(layout(dir).gcc)) return { warnings: [], skipped: true, visiting: false };
  const repo = findRepo(dir);
  if (repo && midOperation(repo)) return { warnings: [], skipped: true, visiting: false };
  let m: Memory;
  try {
    m = await Memory.open(dir);
  } catch (err) {
    if (asGccError(err).code === 'E_NOT_INITIALIZED') return { warnings: [], skipped: true, visiting: false };
    throw err;
  }
  m.close();
  const note = m.visitNote;
  return { warnings: m.warnings.filter((w) => w !== note), skipped: false, visiting: note !== null };
}
