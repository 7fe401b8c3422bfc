/**
 * `.GCC/.gitignore` only holds at commits that have it. At a commit from before the memory,
 * the views and local state this clone generated are untracked files git does not ignore —
 * and git refuses to check out a commit that tracks a file at the path of an untracked one. The same rules, written to
 * this clone's `info/exclude` (read at every commit, never committed), make those files
 * ignored everywhere, and ignored files are git's to overwrite.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
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
    "# The memory's views and this clone's state, ignored at every commit as .GCC/.gitignore does (docs/git.md).",
    `${dir}/*`,
    `!${dir}/.gitignore`,
    `!${dir}/events/`,
    `!${dir}/aside/`,
    `# <<< gctx ${name}`,
    '',
  ].join('\n');
}

/**
 * The marked block for `info/attributes`: a segment's bytes are checksummed, so git must never
 * change their line endings (Git for Windows checks text out with CRLF by default,
 * `core.autocrlf`). Read at every commit like `info/exclude`, never committed.
 */
export function attributesBlock(repo: GitRepo, root: string): string | null {
  const rel = relative(repo.top, root).split(sep).join('/');
  if (rel.startsWith('..') || /[\n\r\s"]/.test(rel)) return null;
  const name = rel || '.';
  return [
    `# >>> gctx ${name}`,
    '# Memory segments are checksummed bytes: never converted (docs/git.md).',
    `/${rel ? `${rel}/` : ''}${GCC_DIR}/events/** -text`,
    `# <<< gctx ${name}`,
    '',
  ].join('\n');
}

/** Add (or bring up to date) the blocks in `info/exclude` and `info/attributes`; returns whether a file was written. */
export function ensureExclude(repo: GitRepo, root: string): boolean {
  const excluded = ensureBlock(join(repo.commonDir, 'info', 'exclude'), excludeBlock(repo, root));
  return ensureBlock(join(repo.commonDir, 'info', 'attributes'), attributesBlock(repo, root)) || excluded;
}

function ensureBlock(path: string, block: string | null): boolean {
  if (!block) return false;
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
  const next =
    end !== -1
      ? text.slice(0, start) + block + text.slice(end + close.length)
      : `${text}${text && !text.endsWith('\n') ? '\n' : ''}${block}`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, next);
  return true;
}
