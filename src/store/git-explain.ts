/**
 * Telling git's work from damage. A log that vanished or changed under the store is damage,
 * unless git put the work tree there (a checkout, merge, rebase, reset, pull): what stands now
 * is what git holds, and what went away is held by a commit git can bring back. Events that
 * were acknowledged but never committed are never explained away: no commit holds them (only a
 * stash might, which is said).
 */
import { relative } from 'node:path';
import { gccError, type GccError } from '../errors.js';
import { gitPath, runGit } from './git-probe.js';
import type { LogMeta } from './logfile.js';

/** Where a log stands: the project root, whether it is inside a git work tree, and what the ledger acknowledged of it. */
export interface LogPlace {
  root: string;
  inGit: boolean;
  path: string;
  acknowledged: LogMeta | undefined;
}

/** Whether git holds `rel` in some commit that is not only a stash: it was committed, so a checkout may take it away. */
function committedSomewhere(root: string, rel: string): boolean {
  try {
    if (runGit(root, ['rev-list', '-1', '--exclude=refs/stash', '--all', '--', rel]).trim()) return true;
    return runGit(root, ['log', '-1', '-g', '--format=%H', 'HEAD', '--', rel]).trim() !== '';
  } catch {
    return false;
  }
}

/** A stash holding `rel` (the untracked-files part of `git stash -u`, or its index), if any. */
function stashHolding(root: string, rel: string): string | null {
  try {
    const list = runGit(root, ['stash', 'list', '--format=%gd']).split('\n').filter(Boolean);
    for (const s of list) {
      for (const rev of [`${s}^3`, s, `${s}^2`]) {
        try {
          runGit(root, ['cat-file', '-e', `${rev}:./${rel}`]);
          return s;
        } catch {
          /* not in this part of the stash */
        }
      }
    }
  } catch {
    /* no stash */
  }
  return null;
}

function tracked(root: string, rel: string): boolean {
  try {
    return runGit(root, ['ls-files', '--', rel]).trim() !== '';
  } catch {
    return false;
  }
}

/**
 * null when git removed the log: it is not in the index, and some commit other than a stash
 * holds it (a checkout, reset or rebase took it away, and can bring it back); else the damage.
 */
export function explainVanished({ root, inGit, path, acknowledged }: LogPlace): GccError | null {
  const rel = gitPath(root, path);
  const shown = relative(root, path);
  const held = `it held ${acknowledged?.seq ?? 0} acknowledged events`;
  if (inGit) {
    if (!tracked(root, rel) && committedSomewhere(root, rel)) return null;
    const stash = stashHolding(root, rel);
    if (stash) return gccError('E_CORRUPT', `${shown} vanished (${held}); ${stash} holds it`, `bring it back with \`git stash pop\` (or \`git checkout ${stash}^3 -- ${rel}\`), then retry`, { file: shown });
    if (tracked(root, rel)) return gccError('E_CORRUPT', `${shown} vanished (${held}); git still has it`, `restore it: \`git checkout -- ${rel}\``, { file: shown });
  }
  return gccError('E_CORRUPT', `${shown} vanished (${held})`, 'restore it from a backup, or run `gctx doctor --repair` to record the loss and go on', { file: shown });
}

/** null when the log's bytes are what git holds for it (a checkout wrote them); else the damage. */
export function explainChange({ root, inGit, path, acknowledged: entry }: LogPlace): GccError | null {
  const rel = gitPath(root, path);
  const shown = relative(root, path);
  if (inGit && tracked(root, rel)) {
    try {
      // Clean against the index: the bytes are exactly what git wrote.
      runGit(root, ['diff', '--quiet', '--', rel]);
      return null;
    } catch {
      /* differs from what git holds */
    }
  }
  const fix = inGit && tracked(root, rel) ? `restore it: \`git checkout -- ${rel}\`, or run \`gctx doctor --repair\`` : 'run `gctx doctor --repair`: what still reads is kept, the loss recorded';
  return gccError('E_CORRUPT', `${shown} changed under the memory: ${entry ? `its ${entry.size} acknowledged bytes (${entry.seq} events) are not what they were` : 'it no longer reads'}`, fix, { file: shown });
}
