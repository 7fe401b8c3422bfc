import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';

/**
 * Whether a path lands inside a `.GCC/` directory. The segment is compared case-insensitively
 * (a case-insensitive file system makes `.gcc/log.md` the same file) and glob segments count
 * when they could match it (`.G?C`, `.*`), since the shell expands them before the command runs.
 */

const GCC_SEGMENT = '.gcc';
const MAX_BRACE_EXPANSIONS = 64;

/** Does one path segment (possibly a glob or brace pattern) name the `.GCC` directory? */
export function segmentNamesGcc(segment: string): boolean {
  for (const candidate of expandBraces(segment)) {
    if (candidate.toLowerCase() === GCC_SEGMENT) return true;
    if (/[*?[]/.test(candidate) && globMatches(candidate, '.GCC')) return true;
  }
  return false;
}

/** Does any segment of `path` name `.GCC`? Pure text check: no resolution, no file system. */
export function pathMentionsGcc(path: string): boolean {
  return path.split(/[\\/]+/).some(segmentNamesGcc);
}

/** Does `text` contain `.GCC` anywhere, quotes and escapes aside? A cheap pre-filter. */
export function textMentionsGcc(text: string): boolean {
  // `.gcc` as a whole name (not `.gccache`), or a glob that could spell it; with quotes and
  // braces dropped (the shell's `.G''CC`) and, for code, read as separators (`'.GCC',{`).
  const mentions = (plain: string) => /\.gcc(?![a-z0-9_-])|\.g\?c|\.\?cc|\.g\[|\.\[g|\.g\*|\.gc\*/.test(plain);
  const lower = text.toLowerCase();
  return mentions(lower.replace(/['"\\{},]/g, '')) || mentions(lower.replace(/['"\\{},]/g, ' '));
}

/**
 * Resolve a path the way a file tool would (`~`, relative to `cwd`), then follow symlinks of its
 * deepest existing ancestor, so a link pointing into `.GCC/` is caught too.
 */
export function resolveToolPath(path: string, cwd: string): string {
  let p = path.startsWith('@') ? path.slice(1) : path;
  if (p === '~' || p.startsWith('~/')) p = homedir() + p.slice(1);
  const absolute = isAbsolute(p) ? resolve(p) : resolve(cwd, p);
  return realpathOfExistingPrefix(absolute);
}

/** Is `path` (a tool's target, relative to `cwd`) inside a `.GCC/` directory? */
export function targetsGcc(path: string, cwd: string): boolean {
  if (pathMentionsGcc(path)) return true;
  return pathMentionsGcc(resolveToolPath(path, cwd));
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

/** Bash-style brace expansion, bounded: `{a,b}c` gives `ac`, `bc`. */
export function expandBraces(word: string): string[] {
  const out: string[] = [];
  const queue = [word];
  while (queue.length && out.length < MAX_BRACE_EXPANSIONS) {
    const w = queue.shift() as string;
    const open = w.indexOf('{');
    const close = open >= 0 ? matchingBrace(w, open) : -1;
    if (open < 0 || close < 0) {
      out.push(w);
      continue;
    }
    const parts = splitTopLevel(w.slice(open + 1, close));
    if (parts.length < 2) {
      // `{x}` is literal in bash; drop the braces for matching purposes and keep going.
      queue.push(w.slice(0, open) + w.slice(open + 1, close) + w.slice(close + 1));
      continue;
    }
    for (const part of parts) queue.push(w.slice(0, open) + part + w.slice(close + 1));
  }
  return out.length ? out : [word];
}

function matchingBrace(w: string, open: number): number {
  let depth = 0;
  for (let i = open; i < w.length; i++) {
    if (w[i] === '{') depth++;
    else if (w[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/**
 * Shell glob match of one segment, case-insensitive. Like bash without `dotglob`, a pattern that
 * does not start with a literal dot never matches a dot-name, so `rm -rf *` is not a `.GCC` write.
 */
export function globMatches(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.')) return false;
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      re += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  re += '$';
  try {
    return new RegExp(re, 'i').test(name);
  } catch {
    // An unparsable class: assume it could match rather than let a write through.
    return true;
  }
}
