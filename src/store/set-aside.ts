/**
 * Teammates' segments this clone sets aside: a file git brought that cannot be folded (a
 * symbolic link, an event dated days ahead, an id another log holds with other content) stays
 * where git put it — deleting it would delete it for the whole team at the next commit — and is
 * left unread, by a record in `.GCC/.local/set-aside.json` (what and why). The record holds the
 * file's size: a file that changes is looked at again. Nothing committed by a teammate may
 * stop the memory; doctor lists what is set aside.
 */
import { lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Layout } from './paths.js';
import { blobOf, runGit } from './git-probe.js';
import { writeTextAtomic } from './text-file.js';

export interface SetAsideRecord {
  why: string;
  /** lstat size when set aside: another size is another file, looked at again. */
  size: number;
  at: string;
}

export type SetAsideList = Record<string, SetAsideRecord>;

const fileOf = (l: Layout) => join(l.local, 'set-aside.json');

function sizeOf(l: Layout, name: string): number | null {
  try {
    return lstatSync(join(l.events, name)).size;
  } catch {
    return null;
  }
}

export function readSetAside(l: Layout): SetAsideList {
  try {
    const raw = JSON.parse(readFileSync(fileOf(l), 'utf8')) as unknown;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
    const out: SetAsideList = {};
    for (const [name, r] of Object.entries(raw as Record<string, Partial<SetAsideRecord>>))
      if (r && typeof r.why === 'string' && typeof r.size === 'number' && typeof r.at === 'string')
        out[name] = { why: r.why, size: r.size, at: r.at };
    return out;
  } catch {
    return {};
  }
}

/** Names (segment or month folder, relative to events/) set aside and still as they were. */
export function setAsideNames(l: Layout): Set<string> {
  const list = readSetAside(l);
  return new Set(Object.keys(list).filter((name) => sizeOf(l, name) === list[name]!.size));
}

/**
 * Record `name` as set aside; returns the sentence the user is told once, or null when it was
 * already recorded as it stands. Records of files gone are dropped on the way.
 */
export function recordSetAside(l: Layout, name: string, why: string, now: Date): string | null {
  const size = sizeOf(l, name);
  if (size === null) return null;
  const list = readSetAside(l);
  if (list[name]?.size === size) return null;
  for (const n of Object.keys(list)) if (sizeOf(l, n) === null) delete list[n];
  list[name] = { why, size, at: now.toISOString() };
  mkdirSync(l.local, { recursive: true });
  writeTextAtomic(fileOf(l), `${JSON.stringify(list, null, 2)}\n`);
  return (
    `.GCC/events/${name} (from git) was set aside and is not read: ${why}. It stays where git put it; ` +
    '`gctx doctor` lists it (record: .GCC/.local/set-aside.json)'
  );
}

/**
 * Whether the segment's bytes are git's own (index or HEAD): what is wrong came in a commit, not
 * from a change here (a line-ending conversion, an edit), which repair mends from git instead.
 */
export function asCommitted(l: Layout, name: string): boolean {
  const path = join(l.events, name);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return false;
  }
  return ['index', 'HEAD'].some((rev) => blobOf(l.root, rev, path)?.equals(bytes) === true);
}

/**
 * Whether `name` is a teammate's segment: git holds it (index or HEAD) and it is not one this
 * clone writes. Only such a file is set aside; this clone's own damage is repaired, not hidden.
 */
export function teammateSegment(l: Layout, name: string, own: (name: string) => boolean): boolean {
  if (own(name)) return false;
  try {
    const rel = `${l.events}/${name}`;
    return runGit(l.root, ['ls-files', '--with-tree=HEAD', '--', rel]).trim() !== '';
  } catch {
    return false;
  }
}
