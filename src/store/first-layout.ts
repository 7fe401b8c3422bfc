/**
 * Reading the first layout: one `log.md` per branch (`.GCC/log.md`, `.GCC/branches/<b>/log.md`),
 * committed with projections beside them. What it holds is read here, and only read: the
 * migration (migrate.ts) writes it into segments, and a visit to a commit of that layout
 * (visit.ts) folds it in memory without touching a file git tracks.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type GccEvent, isLocalType } from '../events/types.js';
import { gccError } from '../errors.js';
import { parse } from '../log/codec.js';
import { conflictSides, hasConflictMarkers } from '../log/conflict.js';
import { MACHINE_PREFIX } from '../log/parser.js';
import type { Layout } from './paths.js';

/** How much of a log.md is read to tell an old log from a view. */
const HEAD_BYTES = 64 * 1024;
let headBuffer: Buffer | null = null;

/** The first layout's files besides its logs: projections and the merge driver's attributes, all committed then. */
export const OLD_FILES = ['log.md', 'commit.md', 'main.md', 'metadata.yaml', 'branches', '.gitattributes'] as const;

/**
 * Whether a `log.md` is an old log rather than a view. An old log holds a machine line within
 * its first entries (or right after a conflict marker); a view opens with its heading and never
 * holds one. Only the head of the file is read, so looking costs the same however long the
 * history.
 */
export function isOldLog(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const head = (headBuffer ??= Buffer.alloc(HEAD_BYTES));
    if (readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1', 0, 2) === '# ') return false;
    const n = readSync(fd, head, 0, HEAD_BYTES, 0);
    const text = head.toString('latin1', 0, n);
    return text.startsWith(MACHINE_PREFIX) || text.includes(`\n${MACHINE_PREFIX}`);
  } finally {
    closeSync(fd);
  }
}

/** Old log files: `.GCC/log.md` and `.GCC/branches/**\/log.md` that hold machine lines. */
export function oldLogs(l: Layout): string[] {
  const out: string[] = [];
  if (isOldLog(join(l.gcc, 'log.md'))) out.push(join(l.gcc, 'log.md'));
  const walk = (dir: string, depth: number): void => {
    if (depth > 12) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      if (n === 'log.md' && isOldLog(p)) out.push(p);
      else if (!n.includes('.')) walk(p, depth + 1);
    }
  };
  walk(join(l.gcc, 'branches'), 0);
  return out;
}

/** Whether `.GCC/` is in the old layout (old logs, and no segment yet written from them). */
export function needsMigration(l: Layout): boolean {
  return existsSync(l.gcc) && oldLogs(l).length > 0;
}

/** The events of one old log; a conflicted one gives both sides' events. */
function eventsOf(path: string, rel: string): GccEvent[] {
  const text = readFileSync(path, 'utf8');
  const sides = hasConflictMarkers(text) ? conflictSides(text) : null;
  const texts = sides ? [sides.ours, sides.theirs] : [text];
  const out: GccEvent[] = [];
  for (const t of texts) {
    // The first layout's merge driver could interleave batches: ids need not grow in these.
    const p = parse(t, rel, 0, false);
    out.push(...p.events);
  }
  return out;
}

/** An old event as the new layout holds it: local state out of shared events. */
function upgrade(e: GccEvent): GccEvent {
  if (e.type === 'branch.created' || e.type === 'branch.merged' || e.type === 'branch.abandoned') {
    const { session: _session, ...data } = e.data as typeof e.data & { session?: string };
    return { ...e, data } as GccEvent;
  }
  return e;
}

export interface OldLayout {
  /** The old log files read. */
  logs: string[];
  /** Shared events, upgraded, once each, in id order. */
  shared: GccEvent[];
  /** Local state (switches, session lifecycles), in id order, without batch markers. */
  local: GccEvent[];
}

/**
 * Every event of the old logs, both sides of a conflicted one included. Depends only on the
 * files, so two clones (or a migration and a visit) read one history as the same events.
 * Throws E_CORRUPT when one id carries two different events.
 */
export function readOldLayout(l: Layout): OldLayout {
  const logs = oldLogs(l);
  const seen = new Map<string, GccEvent>();
  for (const path of logs) {
    for (const raw of eventsOf(path, relative(l.root, path))) {
      // Compared as upgraded: both sides of a conflicted log carry their common events.
      const e = upgrade(raw);
      const prev = seen.get(e.id);
      if (prev && JSON.stringify({ ...prev, seq: 0, more: 0 }) !== JSON.stringify({ ...e, seq: 0, more: 0 })) {
        throw gccError('E_CORRUPT', `event ${e.id} appears twice with different content in the old logs`, 'restore the old logs from git, then run any gctx command again', { file: relative(l.root, path) });
      }
      seen.set(e.id, e);
    }
  }
  const all = [...seen.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return {
    logs,
    shared: all.filter((e) => !isLocalType(e.type)),
    local: all.filter((e) => isLocalType(e.type)).map((e) => ({ ...e, more: undefined }) as GccEvent),
  };
}
