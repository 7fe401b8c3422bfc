import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';

/**
 * Where a path lands: resolved the way a file tool or the shell would (`~`, relative to the
 * directory), and whether that is inside the memory's `.GCC/`. The comparison ignores case (a
 * case-insensitive file system makes `.gcc/log.md` the same file).
 */

/** `~` and `~/…` as the user's home, then relative to `cwd`. */
export function resolveFrom(cwd: string, path: string): string {
  const p = path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
  return isAbsolute(p) ? resolve(p) : resolve(cwd, p);
}

/**
 * Resolve a path the way a file tool would (Claude Code's `@` mention too), then follow symlinks
 * of its deepest existing ancestor, so a link pointing into `.GCC/` is caught too.
 */
export function resolveToolPath(path: string, cwd: string): string {
  return realpathOfExistingPrefix(resolveFrom(cwd, path.startsWith('@') ? path.slice(1) : path));
}

/** A memory's `.GCC/`, by its path as given and as the file system resolves it. */
export class GccDir {
  private readonly roots: string[];

  constructor(gccDir: string) {
    this.roots = [...new Set([resolve(gccDir), realpathOfExistingPrefix(resolve(gccDir))])];
  }

  /** The part of an absolute path inside `.GCC/` (`''` for the folder itself), or null when outside. */
  inside(absolute: string): string | null {
    const lower = absolute.toLowerCase();
    for (const root of this.roots) {
      const r = root.toLowerCase();
      if (lower === r || lower.startsWith(r + sep)) return absolute.slice(root.length + 1);
    }
    return null;
  }
}

function realpathOfExistingPrefix(absolute: string): string {
  let head = absolute;
  const rest: string[] = [];
  // Walk up until something exists; the missing tail is re-appended after resolving links.
  for (let i = 0; i < 256; i++) {
    try {
      const real = realpathSync(head);
      return rest.length ? real + sep + rest.reverse().join(sep) : real;
    } catch {
      const parent = dirname(head);
      if (parent === head) break;
      rest.push(head.slice(parent.length).replace(/^[\\/]+/, ''));
      head = parent;
    }
  }
  return absolute;
}
