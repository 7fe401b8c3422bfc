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
import type { LogMeta } from './log-meta.js';

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

/** Whether the commit HEAD names holds `rel`. */
function inHead(root: string, rel: string): boolean {
  try {
    runGit(root, ['cat-file', '-e', `HEAD:./${rel}`]);
    return true;
  } catch {
    return false;
  }
}

function tracked(root: string, rel: string): boolean {
  try {
    return runGit(root, ['ls-files', '--', rel]).trim() !== '';
  } catch {
    return false;
  }
}

/** Whether git took `rel` (a file or folder) out of the work tree: the index holds none of it, and some commit does. */
export function takenByGit(root: string, rel: string): boolean {
  return !tracked(root, rel) && committedSomewhere(root, rel);
}

/**
 * null when git removed the log: neither the index nor HEAD holds it, and some commit other
 * than a stash does (a checkout, reset or rebase took it away, and can bring it back); else the
 * damage. A file HEAD still holds but the index does not had its deletion staged (`git rm`):
 * that drops acknowledged events without any commit saying so.
 */
export function explainVanished({ root, inGit, path, acknowledged }: LogPlace): GccError | null {
  const rel = gitPath(root, path);
  const shown = relative(root, path);
  const held = `it held ${acknowledged?.seq ?? 0} acknowledged events`;
  if (inGit) {
    const inIndex = tracked(root, rel);
    if (!inIndex && inHead(root, rel)) return gccError('E_CORRUPT', `${shown} vanished (${held}); its deletion is staged in git but not committed`, `restore it: \`git checkout HEAD -- ${rel}\``, { file: shown });
    if (!inIndex && committedSomewhere(root, rel)) return null;
    const stash = stashHolding(root, rel);
    if (stash) return gccError('E_CORRUPT', `${shown} vanished (${held}); ${stash} holds it`, `bring it back with \`git stash pop\` (or \`git checkout ${stash}^3 -- ${rel}\`), then retry`, { file: shown });
    if (tracked(root, rel)) return gccError('E_CORRUPT', `${shown} vanished (${held}); git still has it`, `restore it: \`git checkout -- ${rel}\``, { file: shown });
  }
  return gccError('E_CORRUPT', `${shown} vanished (${held})`, 'restore it from a backup, or run `gctx doctor --repair` to record the loss and go on', { file: shown });
}

/**
 * null when git wrote the log's bytes: they are what git's index and HEAD both hold (a
 * checkout, reset, rebase or pull rewrote the work tree); else the damage. Equal to the index
 * alone is not enough: `git add` puts any bytes there, so a rewrite of acknowledged events
 * that was only staged would pass for git's doing. (Writers own their segments and start a new
 * one once git has seen the open one, so no ordinary git command leaves a segment's bytes
 * differing from HEAD's while changing them.) A rewrite that was committed is git's truth.
 */
export function explainChange({ root, inGit, path, acknowledged: entry }: LogPlace): GccError | null {
  const rel = gitPath(root, path);
  const shown = relative(root, path);
  const isTracked = inGit && tracked(root, rel);
  const same = (args: string[]): boolean => {
    try {
      runGit(root, ['diff', '--quiet', ...args, '--', rel]);
      return true;
    } catch {
      return false; // differs, or there is no such commit
    }
  };
  const equalsIndex = isTracked && same([]);
  if (equalsIndex && same(['HEAD'])) return null;
  const stash = inGit ? stashHolding(root, rel) : null;
  // Unstaged damage: the index still holds the file. Staged damage: HEAD may.
  const fix = stash
    ? `${stash} holds a copy: \`git stash pop\` brings it back; or run \`gctx doctor --repair\``
    : isTracked
      ? `restore it: \`git checkout ${equalsIndex ? 'HEAD ' : ''}-- ${rel}\`, or run \`gctx doctor --repair\``
      : 'run `gctx doctor --repair`: what still reads is kept, the loss recorded';
  return gccError('E_CORRUPT', `${shown} changed under the memory: ${entry ? `its ${entry.size} acknowledged bytes (${entry.seq} events) are not what they were` : 'it no longer reads'}`, fix, { file: shown });
}
