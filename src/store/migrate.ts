/**
 * From the first layout (one committed `log.md` per branch, projections committed beside
 * them, merged by a git driver) to writer-owned segments. Every event of every old log —
 * both sides of a log git left with conflict markers included — moves, with its id, into new
 * segments; what the old layout kept in shared logs but is local state (switches, session
 * lifecycles) moves to the local log. The transformation depends only on the events, so two
 * clones that migrate one history write the same events, and the union keeps each once.
 *
 * The old files become views (regenerated, ignored by git); in a git work tree they are
 * taken out of the index so the next commit removes them from the repository.
 */
import { randomHex } from '../runtime/random.js';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type GccEvent, isLocalType } from '../events/types.js';
import { gccError } from '../errors.js';
import { parse, serialize } from '../log/codec.js';
import { conflictSides, hasConflictMarkers } from '../log/conflict.js';
import { MACHINE_PREFIX } from '../log/parser.js';
import { runGit } from './git-probe.js';
import { writeFileSync } from 'node:fs';
import { emptyMeta } from './logfile.js';
import { GCC_DIR, type Layout, newSegmentName } from './paths.js';
import { SEGMENT_MAX, type Store } from './store.js';

/** How much of a log.md is read to tell an old log from a view. */
const HEAD_BYTES = 64 * 1024;

/** Old log files: `.GCC/log.md` and `.GCC/branches/**\/log.md` that hold machine lines. */
export function oldLogs(l: Layout): string[] {
  const out: string[] = [];
  // An old log holds a machine line within its first entries (or right after a conflict
  // marker); a view never does (its lines are prose). Only the head of each file is read, so
  // looking costs the same however long the history.
  const head = Buffer.alloc(HEAD_BYTES);
  const isOld = (path: string): boolean => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return false;
    }
    try {
      const n = readSync(fd, head, 0, HEAD_BYTES, 0);
      const text = head.toString('latin1', 0, n);
      return text.startsWith(MACHINE_PREFIX) || text.includes(`\n${MACHINE_PREFIX}`);
    } finally {
      closeSync(fd);
    }
  };
  if (isOld(join(l.gcc, 'log.md'))) out.push(join(l.gcc, 'log.md'));
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
      if (n === 'log.md' && isOld(p)) out.push(p);
      else if (!n.includes('.')) walk(p, depth + 1);
    }
  };
  walk(join(l.gcc, 'branches'), 0);
  return out;
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

/**
 * Events in id order as segments of at most SEGMENT_MAX, renumbered. Each event stands alone:
 * the batches of the first layout were appends long acknowledged, and a union may have
 * interleaved them, so their markers say nothing a reader needs.
 */
function renumber(events: GccEvent[]): GccEvent[][] {
  const files: GccEvent[][] = [[]];
  let bytes = 0;
  const batches: GccEvent[][] = events.map((e) => [e]);
  for (const batch of batches) {
    const size = batch.reduce((n, e) => n + JSON.stringify(e).length * 2, 0);
    if (bytes > 0 && bytes + size > SEGMENT_MAX) {
      files.push([]);
      bytes = 0;
    }
    const file = files[files.length - 1]!;
    batch.forEach((e, i) => {
      const { more: _more, ...rest } = e;
      const left = batch.length - 1 - i;
      file.push({ ...rest, seq: file.length + 1, ...(left > 0 ? { more: left } : {}) } as GccEvent);
    });
    bytes += size;
  }
  return files.filter((f) => f.length);
}

export interface Migration {
  events: number;
  segments: string[];
  untracked: boolean;
}

/**
 * Move the old layout's events into segments and the local log. Under the lock. Throws
 * E_CORRUPT (changing nothing) when an old log cannot be read.
 */
export function migrate(store: Store, now: Date): Migration {
  const l = store.layout;
  const logs = oldLogs(l);
  const seen = new Map<string, GccEvent>();
  for (const path of logs) {
    for (const e of eventsOf(path, relative(l.root, path))) {
      const prev = seen.get(e.id);
      if (prev && JSON.stringify({ ...prev, seq: 0, more: 0 }) !== JSON.stringify({ ...e, seq: 0, more: 0 })) {
        throw gccError('E_CORRUPT', `event ${e.id} appears twice with different content in the old logs`, 'restore the old logs from git, then run any gctx command again', { file: relative(l.root, path) });
      }
      seen.set(e.id, upgrade(e));
    }
  }
  const all = [...seen.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const shared = all.filter((e) => !isLocalType(e.type));
  const local = all.filter((e) => isLocalType(e.type)).map((e) => ({ ...e, more: undefined }) as GccEvent);
  const segments: string[] = [];
  for (const file of renumber(shared)) {
    const name = newSegmentName(now, randomHex(3));
    const f = store.file(name);
    f.append(serialize(file), file);
    segments.push(name);
  }
  if (local.length && store.local.meta.size === 0 && store.local.sizeOnDisk() === null) {
    const renumbered = local.map((e, i) => {
      const { more: _more, ...rest } = e;
      return { ...rest, seq: i + 1 } as GccEvent;
    });
    store.local.append(serialize(renumbered), renumbered);
  }
  // The old files are views from now on; the caches and the drivers' attributes are obsolete.
  // The old views were written by the first layout's gctx, which took a person's edits of
  // main.md in as events on every run, so they hold nothing the events do not.
  for (const path of logs) rmSync(path, { force: true });
  for (const view of ['main.md', 'metadata.yaml', 'commit.md']) rmSync(join(l.gcc, view), { force: true });
  rmSync(join(l.gcc, 'branches'), { recursive: true, force: true });
  rmSync(join(l.gcc, '.cache'), { recursive: true, force: true });
  rmSync(join(l.gcc, '.gitattributes'), { force: true });
  for (const stale of ['.lock', '.lock.break']) rmSync(join(l.gcc, stale), { force: true });
  let untracked = false;
  if (store.repo) {
    try {
      const old = ['log.md', 'commit.md', 'main.md', 'metadata.yaml', 'branches', '.gitattributes'].map((p) => `${GCC_DIR}/${p}`);
      runGit(l.root, ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...old]);
      untracked = true;
    } catch {
      /* not tracked, or git refused: the warning says what to do */
    }
  }
  return { events: all.length, segments, untracked };
}

/** Whether `.GCC/` is in the old layout (old logs, and no segment yet written from them). */
export function needsMigration(l: Layout): boolean {
  return existsSync(l.gcc) && oldLogs(l).length > 0;
}


/**
 * A segment git (or a hand merge) left with conflict markers: the union of its sides' events,
 * written back as one valid segment. Segments are never appended to by two writers, so this
 * only meets files merged by hand or by an older gctx. Under the lock.
 */
export function resolveConflict(store: Store, name: string): number {
  const f = store.file(name);
  const text = readFileSync(f.path, 'utf8');
  const sides = conflictSides(text);
  if (!sides) throw gccError('E_CORRUPT', `${f.rel} holds conflict markers that do not nest as git writes them`, 'resolve the conflict by hand (keep both sides\' entries), then retry', { file: f.rel });
  const byId = new Map<string, GccEvent>();
  for (const t of [sides.ours, sides.theirs]) for (const e of parse(t, f.rel, 0, false).events) if (!byId.has(e.id)) byId.set(e.id, e);
  const events = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const files = renumber(events);
  writeFileSync(f.path, files.length ? serialize(files[0]!) : '');
  const written = [f];
  for (const extra of files.slice(1)) {
    const more = store.file(newSegmentName(new Date(), randomHex(3)));
    more.append(serialize(extra), extra);
    written.push(more);
  }
  f.meta = emptyMeta();
  f.load();
  // The union holds every event of both sides, what this clone acknowledged among them; it is
  // acknowledged as it now stands (ids sort the other side's events in among ours, so the old
  // bytes are no longer a prefix), and the memory is folded again from it.
  store.acknowledge(written, true, true);
  return events.length;
}
