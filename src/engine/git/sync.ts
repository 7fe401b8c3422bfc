/**
 * `gctx git sync`, run by the hooks right after git changed the work tree (checkout, merge,
 * rebase): open the memory, which folds what git brought and rebuilds the views.
 */
import { existsSync } from 'node:fs';
import { Memory } from '../memory.js';
import { layout } from '../../store/paths.js';

export async function syncAfterGit(dir: string): Promise<{ warnings: string[]; skipped: boolean }> {
  if (!existsSync(layout(dir).gcc)) return { warnings: [], skipped: true };
  const m = await Memory.open(dir);
  m.close();
  return { warnings: [...m.warnings], skipped: false };
}
