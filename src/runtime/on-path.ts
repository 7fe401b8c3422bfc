/**
 * Finding an executable on PATH so that a project's own files never choose it: a PATH entry
 * that is relative (`.`, `node_modules/.bin`) or lies inside the project (`npm run` puts the
 * project's node_modules/.bin first) does not count, nor a file that leads into the project.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';

/** Whether `path` is `dir` or lies under it. */
export const inside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The real path of `p`, or `p` resolved when it cannot be followed. */
export const realOrSelf = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** `name` on PATH, found in an absolute folder outside `project` and leading to a file outside it; null otherwise. */
export function onPathOutside(name: string, env: NodeJS.ProcessEnv, project: string | null): string | null {
  const root = project === null ? null : realOrSelf(project);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir) || (root !== null && inside(root, realOrSelf(dir)))) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
    } catch {
      continue;
    }
    if (root === null || !inside(root, realOrSelf(p))) return p;
  }
  return null;
}
