import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CanonicalInput, CanonicalTool } from './envelope.js';

/**
 * The input of a call as one line of log text, said once: a file tool names its file (relative
 * to the project) and how much it wrote — the lines it changed are counted under Files, and
 * the content is in the repository; a shell names its command; the rest is compact JSON.
 * Paths of this machine become project-relative, so the log reads the same in every clone.
 */
const lines = (n: number): string => `${n} line${n === 1 ? '' : 's'}`;

export function describeInput(tool: CanonicalTool | undefined, input: CanonicalInput | undefined, cwd = '', root = ''): string {
  if (!input) return '';
  const path = (p: unknown): string => (typeof p === 'string' ? projectPath(p, cwd, root) : '');
  const local = (text: string): string => (root && text.includes(root) ? text.split(`${root}${sep}`).join('').split(root).join('.') : text);
  switch (tool) {
    case 'Bash':
      return typeof input.command === 'string' ? local(input.command) : '';
    case 'Write':
      return typeof input.content === 'string' ? `${path(input.file_path)} (${lines(lineCount(input.content))})` : path(input.file_path);
    case 'Edit': {
      const n = Array.isArray(input.edits) ? input.edits.length : 0;
      return `${path(input.file_path)}${n > 1 ? ` (${n} edits)` : ''}`;
    }
    case 'Read': {
      const range = typeof input.offset === 'number' ? ` from line ${input.offset}${typeof input.limit === 'number' ? `, ${lines(input.limit)}` : ''}` : '';
      return `${path(input.file_path)}${range}`;
    }
    case 'Grep':
    case 'Glob':
      return `${typeof input.pattern === 'string' ? JSON.stringify(input.pattern) : ''}${input.path ? ` in ${path(input.path)}` : ''}`;
    default:
      try {
        return local(JSON.stringify(input));
      } catch {
        return String(input);
      }
  }
}

function lineCount(text: string): number {
  if (!text) return 0;
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** Project-relative with forward slashes; a file outside the project keeps its absolute path. */
export function projectPath(path: string, cwd: string, root: string): string {
  if (!root) return path;
  const absolute = isAbsolute(path) ? resolve(path) : resolve(cwd || root, path);
  const rel = relative(root, absolute);
  if (!rel) return '.';
  if (rel.startsWith('..') || isAbsolute(rel)) return absolute.split(sep).join('/');
  return rel.split(sep).join('/');
}
