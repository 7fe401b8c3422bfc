/**
 * Setting a person's file aside under `.GCC/aside/`, which is committed (`.GCC/.gitignore`
 * lets aside/ through): the copy is redacted as every command's text is, so a secret typed
 * into main.md or metadata.yaml reaches no file git may take. The original is neither read
 * through a link nor written through one.
 */
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GccError } from '../errors.js';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { asCommitted, recordSetAside, teammateSegment } from '../store/set-aside.js';
import { Store } from '../store/store.js';
import { readText } from '../store/text-file.js';
import type { Redact } from '../projections/adopt.js';

export type { Redact };

export interface SetAside {
  target: string;
  /** Some secret in the file was replaced by [REDACTED] in the copy. */
  redacted: boolean;
}

/**
 * Write `path`'s text, redacted, to `aside/<name>`; with `move`, remove `path` after. Null when `path` cannot be read.
 */
export function setAside(l: Layout, path: string, name: string, redact: Redact, move = false): SetAside | null {
  assertNoSymlink(l.root, path);
  const text = readText(path);
  if (text === null) return null;
  const target = join(l.aside, name);
  assertNoSymlink(l.root, target);
  mkdirSync(l.aside, { recursive: true });
  const clean = redact(text);
  writeFileSync(target, clean, { flag: 'wx' }); // a new name: never over a file, nor through a link
  if (move) unlinkSync(path);
  return { target, redacted: clean !== text };
}

/** What a warning adds when the copy is not the person's text byte for byte. */
export const REDACTED_NOTE = ' (secrets in it were replaced by [REDACTED]: aside/ is committed)';

/** The segment names (relative to events/) an error about logs names: both copies of a repeated id. */
function namesIn(err: GccError): string[] {
  const seg = (rel: string) => /events\/(\d{4}-\d{2}\/[^/\s]+\.md)$/.exec(rel.replaceAll('\\', '/'))?.[1] ?? null;
  // stream.ts names both files of a repeated id; `file` is the later in merge order.
  const both = / appears in (\S+) and (\S+) with different content/.exec(err.message);
  const rels = both ? [both[2]!, both[1]!] : err.file ? [err.file] : [];
  return rels.map(seg).filter((n): n is string => n !== null);
}

/**
 * A teammate's segment that stops the open (an event dated days ahead, an id another log holds
 * with other content, an entry that does not read), set aside by a record (store/set-aside.ts)
 * rather than left to stop every command in every clone. Only a file git holds, that this clone
 * does not write and never acknowledged: this clone's own damage stays for repair to report.
 * Returns what the user is told, or null when nothing was set aside.
 */
export function setAsideTeammate(l: Layout, err: GccError, now: Date): string | null {
  return setAsideNamed(l, err, now)?.said ?? null;
}

/** setAsideTeammate, with the segment's name (relative to events/). */
export function setAsideNamed(l: Layout, err: GccError, now: Date): { name: string; said: string } | null {
  if (err.code !== 'E_CORRUPT') return null;
  const names = namesIn(err);
  if (names.length === 0) return null;
  const store = new Store(l);
  const own = (n: string) => n === store.ledger.open || store.journaled(n);
  // Of a repeated id, the copy this clone acknowledged stays; the other is set aside.
  const pick = names.filter((n) => !store.ledger.logs[n]).find((n) => teammateSegment(l, n, own) && asCommitted(l, n));
  if (!pick) return null;
  const why = err.message.replace(/\s*\(\.GCC\/events\/[^)]*\)$/, '');
  return { name: pick, said: recordSetAside(l, pick, why, now) ?? `.GCC/events/${pick} is set aside (${why})` };
}
