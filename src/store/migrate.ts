/**
 * From the first layout (one committed `log.md` per branch, projections committed beside
 * them, merged by a git driver) to writer-owned segments. Every event of every old log —
 * both sides of a log git left with conflict markers included — moves, with its id, into new
 * segments; what the old layout kept in shared logs but is local state (switches, session
 * lifecycles) moves to the local log. The transformation depends only on the events, so two
 * clones that migrate one history write the same events, and the union keeps each once.
 *
 * The old files become views (regenerated, ignored by git); in a git work tree the change is
 * staged — the old files out of the index, the new `.GCC/.gitignore` in — so the next commit
 * records the migration, and until then the index is one git can leave for a commit of the
 * new layout. Callers migrate only where the user works (visit.ts says where not).
 */
import { randomHex } from '../runtime/random.js';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { parse, serialize } from '../log/codec.js';
import { conflictSides } from '../log/conflict.js';
import { OLD_FILES, readOldLayout } from './first-layout.js';
import { runGit } from './git-probe.js';
import { writeTextAtomic } from './text-file.js';
import { emptyMeta } from './log-meta.js';
import { GCC_DIR, GITIGNORE, newSegmentName } from './paths.js';
import { SEGMENT_MAX } from './append.js';
import type { Store } from './store.js';

export { needsMigration, oldLogs } from './first-layout.js';

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
  const { logs, shared, local } = readOldLayout(l);
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
  // The first layout's .gitignore kept its caches out; the new one keeps everything but events/ out.
  writeTextAtomic(join(l.gcc, '.gitignore'), GITIGNORE); // a rename: never through a link
  let untracked = false;
  if (store.repo) {
    try {
      runGit(l.root, ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...OLD_FILES.map((p) => `${GCC_DIR}/${p}`)]);
      untracked = true;
      runGit(l.root, ['add', '--', `${GCC_DIR}/.gitignore`]);
    } catch {
      /* not tracked, or git refused: the warning says what to do */
    }
  }
  const events = shared.length + local.length;
  return { events, segments, untracked };
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
