import { diffLib } from '../runtime/lazy-deps.js';
import type { FileChange } from '../events/types.js';
import type { CanonicalInput, CanonicalTool, FileState } from './envelope.js';
import { lineCount, projectPath } from './describe-call.js';

/**
 * Line counts of an edit, so COMMIT can fill "Files touched" from the log. Exact when the host
 * captured the file before and after the call; otherwise derived from the call's input (a
 * Write's content, an Edit's old/new strings), which is right for the common cases and never
 * worse than nothing.
 */

/** Beyond this many changed lines Myers' diff gets slow; fall back to a line-count estimate. */
const MAX_EDIT_LENGTH = 4_000;

export function fileChangesFor(
  tool: CanonicalTool | undefined,
  input: CanonicalInput | undefined,
  states: FileState[] | undefined,
  cwd: string,
  root: string,
): FileChange[] {
  const display = (p: string) => projectPath(p, cwd, root);
  if (states?.length) {
    return states
      .filter((s) => s.before !== s.after)
      .map((s) => ({ path: display(s.path), ...countLines(s.before ?? '', s.after ?? '') }));
  }
  if (!input) return [];
  const path = typeof input.file_path === 'string' ? input.file_path : '';
  if (!path) return [];
  if (tool === 'Write' && typeof input.content === 'string') {
    return [{ path: display(path), added: lineCount(input.content), removed: 0 }];
  }
  if (tool === 'Edit' && Array.isArray(input.edits)) {
    let added = 0;
    let removed = 0;
    for (const e of input.edits) {
      if (typeof e?.old_string !== 'string' || typeof e?.new_string !== 'string') continue;
      const c = countLines(e.old_string, e.new_string);
      added += c.added;
      removed += c.removed;
    }
    return [{ path: display(path), added, removed }];
  }
  return [];
}

/** Lines with their line ends, as the `diff` package's diffLines splits a text. */
const linesOf = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/**
 * Added and removed lines between two texts: the lines left once the common head and tail are
 * taken off, when no line is on both sides of what is left (an edit's usual shape, and then
 * exactly what a diff counts), else with the `diff` package, which a hook then loads.
 */
export function countLines(before: string, after: string): { added: number; removed: number } {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const gone = a.slice(head, a.length - tail);
  const come = b.slice(head, b.length - tail);
  const left = new Set(gone);
  if (!come.some((line) => left.has(line))) return { added: come.length, removed: gone.length };
  const changes = diffLib().diffLines(before, after, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) {
    // Too different to diff cheaply: report it as a rewrite.
    return { added: lineCount(after), removed: lineCount(before) };
  }
  let added = 0;
  let removed = 0;
  for (const c of changes) {
    if (c.added) added += c.count;
    else if (c.removed) removed += c.count;
  }
  return { added, removed };
}
