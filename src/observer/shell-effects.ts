import { isAbsolute, join, resolve, sep } from 'node:path';
import { pathMentionsGcc, resolveToolPath, targetsGcc, textMentionsGcc } from './gcc-paths.js';

/**
 * What a shell command does to files, as the static analysis sees it. The analysis (shell-writes
 * and the per-program rules) produces these; the guard judges them against the memory's `.GCC/`.
 */

/** One shell word after quote removal and the variable expansion the analysis could follow. */
export interface Word {
  text: string;
  /** Part of it could not be known statically (a substitution, an unknown variable). */
  dynamic: boolean;
}

export type ShellWrite =
  | {
      kind: 'path';
      target: string;
      /** Directory the target is relative to, from earlier `cd`s; null when it cannot be known. */
      base: string | null;
      /** The target could not be resolved statically; judged by whether its text names `.GCC`. */
      dynamic: boolean;
      /** The write reaches everything under the target (rm -r, chmod -R, a tree of unknown names). */
      recursive: boolean;
    }
  /** The analysis itself established a write into `.GCC/` (inline code, patch text). */
  | { kind: 'decided'; what: string }
  /** A git command that rewrites `.GCC/` from git's copy: harmful only while events are uncommitted. */
  | { kind: 'git-restore'; what: string; /** It also removes ignored files (clean -x, stash --all). */ ignored: boolean };

export type PathWrite = Extract<ShellWrite, { kind: 'path' }>;

/** The `.GCC/` directory a command could reach: the memory's, else the nearest one above `cwd`. */
export interface Memory {
  cwd: string;
  gccDir: string | undefined;
}

/** Does this path write land in `.GCC/` (or, for a recursive one, above it)? */
export function pathWriteHits(w: PathWrite, { cwd, gccDir }: Memory): boolean {
  // A substitution's text is kept in the target, so `$(echo .GCC)/x` still mentions it.
  if (w.dynamic) return textMentionsGcc(w.target);
  if (pathMentionsGcc(w.target)) return true;
  if (w.base === null) return isAbsolute(w.target) && targetsGcc(w.target, cwd);
  const relative = isAbsolute(w.target) ? w.target : join(w.base || '.', w.target);
  if (targetsGcc(relative, cwd)) return true;
  if (w.recursive && gccDir) return isWithin(resolve(gccDir), resolveToolPath(relative, cwd));
  return false;
}

/** Is `inner` the directory `outer` or somewhere below it? */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

export function describeWrite(w: ShellWrite): string {
  if (w.kind !== 'path') return w.what;
  return w.target.length > 120 ? `${w.target.slice(0, 117)}...` : w.target;
}
