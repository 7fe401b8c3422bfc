/**
 * `.GCC/.gitignore` only holds at commits that have it. At a commit from before the memory,
 * or of its first layout, the views and local state this clone generated are untracked files
 * git does not ignore — and git refuses to check out a commit that tracks a file at the path
 * of an untracked one (a first-layout commit tracks `main.md`, `branches/<b>/log.md`, …), so a
 * `git bisect` step between two old commits would stop on a view. The same rules, written to
 * this clone's `info/exclude` (read at every commit, never committed), make those files
 * ignored everywhere, and ignored files are git's to overwrite.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { GitRepo } from './git-probe.js';
import { GCC_DIR } from './paths.js';

/** A path as a gitignore pattern matches it literally: its special characters escaped. */
function literal(path: string): string {
  return path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, '\\ ');
}

/** The marked block for the memory in `root` (a folder of the work tree). */
export function excludeBlock(repo: GitRepo, root: string): string | null {
  const rel = relative(repo.top, root).split(sep).join('/');
  if (rel.startsWith('..') || /[\n\r]/.test(rel)) return null;
  const dir = `/${rel ? `${literal(rel)}/` : ''}${GCC_DIR}`;
  const name = rel || '.';
  return [
    `# >>> gctx ${name}`,
    '# The memory\'s views and this clone\'s state, ignored at every commit as .GCC/.gitignore does (docs/git.md).',
    `${dir}/*`,
    `!${dir}/.gitignore`,
    `!${dir}/events/`,
    `!${dir}/aside/`,
    `# <<< gctx ${name}`,
    '',
  ].join('\n');
}

/** Add (or bring up to date) the block in `info/exclude`; returns whether the file was written. */
export function ensureExclude(repo: GitRepo, root: string): boolean {
  const block = excludeBlock(repo, root);
  if (!block) return false;
  const path = join(repo.commonDir, 'info', 'exclude');
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    /* none yet */
  }
  if (text.includes(block)) return false;
  // Whole lines, so the block of a project `a` is not taken for that of `ab`.
  const lines = block.split('\n');
  const [open, close] = [`${lines[0]}\n`, `${lines.at(-2)}\n`];
  const start = text.startsWith(open) ? 0 : text.indexOf(`\n${open}`) + 1;
  const end = start > 0 || text.startsWith(open) ? text.indexOf(close, start) : -1;
  const next = end !== -1 ? text.slice(0, start) + block + text.slice(end + close.length) : `${text}${text && !text.endsWith('\n') ? '\n' : ''}${block}`;
  mkdirSync(join(repo.commonDir, 'info'), { recursive: true });
  writeFileSync(path, next);
  return true;
}
