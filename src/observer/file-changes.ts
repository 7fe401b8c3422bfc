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

/** Added and removed lines between two texts, with the `diff` package. */
export function countLines(before: string, after: string): { added: number; removed: number } {
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
