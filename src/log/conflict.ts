/**
 * A log with git's conflict markers in it (left by a text merge of an older layout, or by a
 * hand merge): the two sides it holds, each a log that parses on its own. Git writes every
 * line of both sides between the markers (and, with `merge.conflictStyle diff3|zdiff3`, the
 * ancestor's), so taking the common lines plus one side gives that side's file back.
 */

const OURS = /^<{7}(?: |$)/;
const BASE = /^\|{7}(?: |$)/;
const SPLIT = /^={7}$/;
const THEIRS = /^>{7}(?: |$)/;

/** Whether the text holds a conflict block (a marker line at the start of a line). */
export function hasConflictMarkers(text: string): boolean {
  return /^<{7}(?: |$)/m.test(text) && /^>{7}(?: |$)/m.test(text);
}

/**
 * The sides of a conflicted file, or null when the markers do not nest as git writes them
 * (then the file is not a merge git left, and is left to the usual corruption checks).
 */
export function conflictSides(text: string): { ours: string; theirs: string } | null {
  const lines = text.split('\n');
  let ours = '';
  let theirs = '';
  let state: 'common' | 'ours' | 'base' | 'theirs' = 'common';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const nl = i < lines.length - 1 ? '\n' : '';
    if (OURS.test(line)) {
      if (state !== 'common') return null;
      state = 'ours';
    } else if (BASE.test(line) && state === 'ours') {
      state = 'base';
    } else if (SPLIT.test(line) && (state === 'ours' || state === 'base')) {
      state = 'theirs';
    } else if (THEIRS.test(line) && state === 'theirs') {
      state = 'common';
    } else if (state === 'common') {
      ours += line + nl;
      theirs += line + nl;
    } else if (state === 'ours') {
      ours += line + nl;
    } else if (state === 'theirs') {
      theirs += line + nl;
    }
  }
  return state === 'common' ? { ours, theirs } : null;
}
