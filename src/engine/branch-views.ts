/**
 * The views under `.GCC/branches/`, found on disk: a full rebuild removes those of branches no
 * longer in memory (a revert took their events), and verify reports them.
 */
import { lstatSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MemoryState } from '../decider/state.js';
import type { Layout } from '../store/paths.js';

const BRANCH_VIEWS = new Set(['commit.md', 'log.md', 'summary.md']);

/**
 * The views under `.GCC/branches/` (relative to `.GCC/`, forward slashes), each with the branch
 * its folder names. Links are not followed, and other files are not views.
 */
export function branchViews(gcc: string): { rel: string; branch: string }[] {
  const out: { rel: string; branch: string }[] = [];
  const walk = (parts: string[]) => {
    let ents;
    try {
      ents = readdirSync(join(gcc, 'branches', ...parts), { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of ents) {
      if (d.isDirectory()) walk([...parts, d.name]);
      else if (d.isFile() && parts.length && BRANCH_VIEWS.has(d.name))
        out.push({ rel: ['branches', ...parts, d.name].join('/'), branch: parts.join('/') });
    }
  };
  // A link in place of the folder is never walked: what it leads to is not the memory's.
  if (lstatSync(join(gcc, 'branches'), { throwIfNoEntry: false })?.isDirectory()) walk([]);
  return out;
}

/** Views a rebuild does not make (a branch no longer in memory, or the summary of one whose creation a
 * revert took): removed, and their emptied folders. */
export function removeGoneViews(l: Layout, state: MemoryState): void {
  for (const v of branchViews(l.gcc)) {
    const b = state.branches[v.branch];
    if (b && !(b.life === 'unborn' && v.rel.endsWith('/summary.md'))) continue;
    rmSync(join(l.gcc, v.rel), { force: true });
    for (let dir = dirname(join(l.gcc, v.rel)); dir.startsWith(join(l.gcc, 'branches', '')); dir = dirname(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        break; // not empty: another branch's or a person's files
      }
    }
  }
}
