/**
 * Telling git's work from damage. A log that vanished or changed under the store is damage,
 * unless git put the work tree there (a checkout, merge, rebase, reset, pull): what stands now
 * is what git holds, and what went away is held by a commit git can bring back. Events that
 * were acknowledged but never committed are never explained away: no commit holds them (only a
 * stash might, which is said). Held means the acknowledged bytes themselves, not only the
 * file's name: an append that landed after `git add` read the file leaves a commit holding
 * less than was acknowledged, and a checkout of that commit would take the rest for good.
 */
import { relative } from 'node:path';
import { gccError, type GccError } from '../errors.js';
import { crc32 } from '../log/crc32.js';
import { fixWithoutGit } from '../log/parser.js';
import { gitPath, runGit, runGitBuffer } from './git-probe.js';
import type { LogMeta } from './log-meta.js';

/**
 * Where a log stands: the project root, whether it is inside a git work tree, and what the ledger acknowledged of it.
 */
export interface LogPlace {
  root: string;
  inGit: boolean;
  path: string;
  acknowledged: LogMeta | undefined;
}

/**
 * Every ref's commits but a stash's and gctx's own baselines (a snapshot of the work tree and
 * index at a memory commit, for the files it touched: not a commit anyone made, so it explains
 * nothing). `--exclude` applies to the `--all` after it. `--full-history`: a merge whose first
 * parent never had the file would otherwise hide the side that added and reverted it.
 */
const PEOPLES_COMMITS = [
  '--full-history',
  '--exclude=refs/stash',
  '--exclude=refs/worktree/gcc/*',
  '--exclude=refs/gcc/*',
  '--all',
];

/**
 * Whether git holds `rel` in some commit that is not only a stash: it was committed, so a checkout may take it away.
 */
function committedSomewhere(root: string, rel: string): boolean {
  try {
    if (runGit(root, ['rev-list', '-1', ...PEOPLES_COMMITS, '--', rel]).trim()) return true;
    return runGit(root, ['log', '-1', '-g', '--format=%H', 'HEAD', '--', rel]).trim() !== '';
  } catch {
    return false;
  }
}

/** Commits looked into, newest first, for the acknowledged bytes of one log. */
const COMMITS_LOOKED = 32;

/** Where the acknowledged bytes of a log are held: the newest commit, and whether a branch or tag reaches it. */
export interface Holding {
  commit: string;
  /** False when only HEAD's reflog reaches it (a reset or an amend left it behind; `git gc` prunes it in time). */
  reachable: boolean;
}

/**
 * The newest commit holding a version of `rel` that begins with the acknowledged bytes (their
 * size and CRC-32): one a branch or tag reaches, else one only HEAD's reflog does; null when
 * none does. Nothing acknowledged: held, trivially.
 */
export function holding(root: string, rel: string, ack: LogMeta | undefined): Holding | null {
  if (!ack || ack.size === 0) return { commit: '', reachable: true };
  const ways: [string[], boolean][] = [
    [['rev-list', ...PEOPLES_COMMITS, '--', rel], true],
    [['log', '-g', '--format=%H', 'HEAD', '--', rel], false],
  ];
  for (const [args, reachable] of ways) {
    let commits: string[];
    try {
      commits = [...new Set(runGit(root, args).split('\n').filter(Boolean))].slice(0, COMMITS_LOOKED);
    } catch {
      continue;
    }
    const commit = firstHolding(root, rel, commits, ack);
    if (commit) return { commit, reachable };
  }
  return null;
}

/**
 * The first of `commits` whose version of `rel` begins with the acknowledged bytes, read in one `git cat-file --batch`.
 */
function firstHolding(root: string, rel: string, commits: readonly string[], ack: LogMeta): string | null {
  if (commits.length === 0) return null;
  let out: Buffer;
  try {
    out = runGitBuffer(root, ['cat-file', '--batch'], commits.map((c) => `${c}:${rel}\n`).join(''));
  } catch {
    return null;
  }
  let at = 0;
  for (const c of commits) {
    const eol = out.indexOf(0x0a, at);
    if (eol === -1) return null;
    const header = out.toString('utf8', at, eol).split(' ');
    at = eol + 1;
    if (header[1] !== 'blob') continue; // `<name> missing`: this commit has no such file
    const size = Number(header[2]);
    if (size >= ack.size && crc32(out.subarray(at, at + ack.size)) === ack.crc) return c;
    at += size + 1;
  }
  return null;
}

const short = (commit: string) => commit.slice(0, 12);

/** Acknowledged events only a commit no branch reaches holds: damage until brought back or let go. */
function onlyInReflog(shown: string, rel: string, what: string, h: Holding): GccError {
  return gccError(
    'E_CORRUPT',
    `${shown} ${what}; only commit ${short(h.commit)} holds what was acknowledged, ` +
      'and no branch or tag reaches it any more (a reset or an amend left it behind)',
    `bring them back: \`git checkout ${short(h.commit)} -- ${rel}\`; or run \`gctx doctor --repair\` to let them go`,
    { file: shown },
  );
}

/**
 * A stash holding `rel`, and the part of it that does: its untracked files (`git stash -u`,
 * `^3`), the work tree it saved (the stash itself), or its index (`^2`). Null when none does.
 */
function stashHolding(root: string, rel: string): { stash: string; rev: string } | null {
  try {
    const list = runGit(root, ['stash', 'list', '--format=%gd']).split('\n').filter(Boolean);
    for (const s of list) {
      for (const rev of [`${s}^3`, s, `${s}^2`]) {
        try {
          runGit(root, ['cat-file', '-e', `${rev}:./${rel}`]);
          return { stash: s, rev };
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

/**
 * The commit of HEAD's history that removed `rel` (a revert, a committed `git rm`), however it
 * arrived: the newest commit touching it, merges' every side walked, when it no longer holds
 * it. What the team removed on purpose stays removed: no fix may bring it back. Null otherwise.
 */
export function removedByHistory(root: string, rel: string): string | null {
  let last: string;
  try {
    last = runGit(root, ['log', '-1', '--full-history', '--format=%H', 'HEAD', '--', rel]).trim();
  } catch {
    return null;
  }
  if (!last) return null;
  try {
    runGit(root, ['cat-file', '-e', `${last}:./${rel}`]);
    return null;
  } catch {
    return last;
  }
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
  const held = `it held ${events(acknowledged?.seq ?? 0)}`;
  if (inGit) {
    const inIndex = tracked(root, rel);
    if (!inIndex && inHead(root, rel))
      return gccError(
        'E_CORRUPT',
        `${shown} vanished (${held}); its deletion is staged in git but not committed`,
        `restore it: \`git checkout HEAD -- ${rel}\``,
        { file: shown },
      );
    if (!inIndex && removedByHistory(root, rel)) return null;
    if (!inIndex) {
      const h = holding(root, rel, acknowledged);
      if (h?.reachable) return null;
      if (h) return onlyInReflog(shown, rel, `vanished (${held})`, h);
    }
    const stash = stashHolding(root, rel);
    if (stash)
      return gccError(
        'E_CORRUPT',
        `${shown} vanished (${held}); ${stash.stash} holds it`,
        `bring it back with \`git stash pop\` (or only it: \`git checkout ${stash.rev} -- ${rel}\`), then retry`,
        { file: shown },
      );
    if (inIndex)
      return gccError(
        'E_CORRUPT',
        `${shown} vanished (${held}); git still has it`,
        `restore it: \`git checkout -- ${rel}\``,
        { file: shown },
      );
    if (committedSomewhere(root, rel))
      return gccError(
        'E_CORRUPT',
        `${shown} vanished (${held}); ` +
          'git took it away, but no commit holds all of them (the newest were never committed)',
        'restore it from a backup, or run `gctx doctor --repair` to record the loss and go on',
        { file: shown },
      );
  }
  return gccError(
    'E_CORRUPT',
    `${shown} vanished (${held})`,
    'restore it from a backup, or run `gctx doctor --repair` to record the loss and go on',
    { file: shown },
  );
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
  const asGitHolds = equalsIndex && same(['HEAD']);
  if (asGitHolds) {
    const h = holding(root, rel, entry);
    if (h?.reachable) return null;
    if (h)
      return onlyInReflog(
        shown,
        rel,
        `is as git holds it, but ${entry ? events(entry.seq) : 'the events'} acknowledged are not`,
        h,
      );
  }
  const stash = inGit ? stashHolding(root, rel) : null;
  // Unstaged damage: the index still holds the file. Staged damage: HEAD may.
  const fix = stash
    ? `${stash.stash} holds a copy: \`git stash pop\` brings it back; or run \`gctx doctor --repair\``
    : asGitHolds
      ? 'no commit holds them all (the newest were written after git last read the file, and never committed): ' +
        'restore it from a backup, or run `gctx doctor --repair` to record the loss'
      : isTracked
        ? `restore it: \`git checkout ${equalsIndex ? 'HEAD ' : ''}-- ${rel}\`, or run \`gctx doctor --repair\``
        : 'run `gctx doctor --repair`: what still reads is kept, the loss recorded';
  const how = entry
    ? `its ${entry.size} acknowledged bytes (${plural(entry.seq, 'event')}) are not what they were`
    : 'it no longer reads';
  return gccError('E_CORRUPT', `${shown} changed under the memory: ${how}`, fix, { file: shown });
}

/**
 * A log's damage, with a fix that works: one that says to restore the file from git is only
 * for a file git holds (not the open segment before its first commit, nor the local log, which
 * is never committed); for those the repair is the way.
 */
export function fixFor(err: GccError, { root, inGit, path }: LogPlace, local: boolean): GccError {
  if (!err.fix || !err.file) return err;
  if (!local && inGit && tracked(root, gitPath(root, path))) return err;
  const fix = fixWithoutGit(err.fix, err.file);
  return fix === err.fix
    ? err
    : gccError(err.code, err.message, fix, { file: err.file, ...(err.line ? { line: err.line } : {}) });
}

/** "1 acknowledged event", "3 acknowledged events". */
export function events(n: number): string {
  return `${n} acknowledged ${plural(n, 'event').slice(String(n).length + 1)}`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
