/**
 * Appends: a batch goes to this clone's open segment (shared events) or to the local log, in
 * one write with fsync, then is acknowledged in the ledger. Writers own their files: this clone
 * appends to one open segment until it reaches SEGMENT_MAX or git has seen it, then starts
 * another (docs/git.md).
 */
import type { GccEvent, Placed } from '../events/types.js';
import { gccError, messageOf } from '../errors.js';
import { serialize } from '../log/codec.js';
import { randomHex } from '../runtime/random.js';
import { takenByGit as gitTookIt } from './git-explain.js';
import { gitPath, heldAtRefTips, indexLock, indexSignature, trackedUnder } from './git-probe.js';
import { nextId } from './ids.js';
import { copyMeta, type LogMeta } from './log-meta.js';
import type { LogFile } from './logfile.js';
import { newSegmentName } from './paths.js';
import type { OpenStore } from './open-store.js';

/** A segment takes no more appends past this size. */
export const SEGMENT_MAX = 1 << 20;

/** The warning when the events stand but the ledger acknowledging them could not be written. */
export const ledgerNotWritten = (err: unknown): string =>
  `the events were recorded, but the ledger could not be written (${messageOf(err)}); ` +
  'it is written again with the next operation';

/**
 * The segment this clone appends to: the open one while it is under SEGMENT_MAX, still as
 * this clone left it, and unknown to git; otherwise a new one. An open segment left empty
 * (its first append failed, or its torn first batch was set aside) is used again rather than
 * left behind as an empty file, unless git has seen it.
 *
 * A new segment is named in the ledger before its first byte is written: a crash in the
 * middle of that first append must leave a file this clone knows as its own, so the next
 * open sets the torn batch aside (a file not named as ours is another clone's, whose torn
 * tail is only ignored — and would stay in the history for good).
 */
function writable(store: OpenStore, now: Date): { file: LogFile; rotated: boolean } {
  const open = store.ledger.open;
  // One a stash holds is read from its journal copy, never written (journal-check.ts).
  if (open && !store.fromJournal.has(open)) {
    const f = store.file(open);
    // As catch-up found it a moment ago under this lock, if it did (LogFile.append holds the
    // file against what is known of it again as it opens it).
    const size = store.checked && f.seen?.op === store.operation ? f.seen.size : f.sizeOnDisk();
    if (size === f.meta.size && f.meta.size > 0 && f.meta.size < SEGMENT_MAX && !gitHasSeen(store, f))
      return { file: f, rotated: false };
    if (f.meta.size === 0 && ((size === null && !takenByGit(store, f)) || (size === 0 && !gitHasSeen(store, f))))
      return { file: f, rotated: false };
  }
  for (;;) {
    const name = newSegmentName(now, randomHex(3));
    if (store.logs.has(name)) continue;
    const f = store.file(name);
    if (f.sizeOnDisk() === null) {
      store.ledger.open = name;
      try {
        store.acknowledge([], false, true);
      } catch (err) {
        store.ledger.open = open;
        store.logs.delete(name);
        throw err;
      }
      return { file: f, rotated: true };
    }
  }
}

/**
 * Whether git took the segment away (some commit holds it, the work tree and index do not):
 * a checkout of an older commit. Written again under that name, it would stop git from
 * coming back. Asked only of an open segment that is missing.
 */
function takenByGit(store: OpenStore, f: LogFile): boolean {
  return store.repo !== null && gitTookIt(store.layout.root, gitPath(store.layout.root, f.path));
}

/**
 * Whether git's index or the tip of a ref holds the segment, or git may be taking it in: asked
 * of git only when the index changed since. A git command writing the index at this moment (`git add` reading the
 * files) counts as having seen the segment open when it started: bytes appended to it now
 * could land after what it stages, and a commit would then hold less than was acknowledged.
 * The segment started then is written on (once per git command, so a long `git add` does not
 * start one segment per append); the index signature catches up with it afterwards.
 */
function gitHasSeen(store: OpenStore, f: LogFile): boolean {
  if (!store.repo) return false;
  const busy = indexLock(store.repo);
  if (busy !== null && busy !== store.gitBusy) {
    store.gitBusy = busy;
    return true;
  }
  const sig = indexSignature(store.repo);
  if (sig === null || sig === store.ledger.index) return false;
  const tracked = trackedUnder(store.layout.root, store.layout.events);
  store.ledger.index = sig;
  const rel = gitPath(store.layout.root, f.path);
  // Unknown (git failed): a new segment is always safe. Not in the index, the segment may still
  // be in a commit that was pushed and then reset away here: appending to it would make the
  // next merge with that remote an add/add conflict.
  return tracked === null || tracked.has(rel) || heldAtRefTips(store.layout.root, rel) !== false;
}

/**
 * Append a batch to this clone's open segment (shared events) or to the local log, in one
 * write with fsync, and acknowledge it. Under the lock, after catchUp. `lastId`: the
 * memory's newest id, which the batch's ids follow.
 */
export function appendBatch(
  store: OpenStore,
  events: readonly Placed[],
  where: 'shared' | 'local',
  lastId: string,
  now: Date,
): GccEvent[] {
  const w = write(store, events, where, lastId, now);
  if (w) acknowledgeWrites(store, [w]);
  return w?.envelopes ?? [];
}

/**
 * One operation's shared and local events: both durable and acknowledged, or neither. The
 * shared batch is written first; if the local one then fails, the shared one is taken back
 * before the error is reported, so a failed operation leaves no trace.
 */
export function appendOperation(
  store: OpenStore,
  shared: readonly Placed[],
  local: readonly Placed[],
  lastId: string,
  now: Date,
): GccEvent[] {
  const newest = store.ledger.lastId;
  const s = write(store, shared, 'shared', lastId, now);
  let l: Written | null;
  try {
    l = write(store, local, 'local', s ? s.envelopes[s.envelopes.length - 1]!.id : lastId, now);
  } catch (err) {
    if (s) {
      store.ledger.lastId = newest;
      try {
        s.file.takeBack(s.before);
      } catch {
        // Left in place, the batch is a whole one in this clone's own segment: the next open
        // acknowledges it as grown. Said, since the operation is reported as failed.
        store.warnings.push(
          `${s.file.rel}: an operation that failed could not be taken back; its shared events may appear`,
        );
      }
    }
    throw err;
  }
  const done = [s, l].filter((w): w is Written => w !== null);
  acknowledgeWrites(store, done);
  return done.flatMap((w) => w.envelopes);
}

/** Write a batch (durable, not yet acknowledged). */
function write(
  store: OpenStore,
  events: readonly Placed[],
  where: 'shared' | 'local',
  lastId: string,
  now: Date,
): Written | null {
  if (!store.lock.isHeld) throw gccError('E_INTERNAL', 'append outside the lock');
  if (events.length === 0) return null;
  // The file is held against what is known of it as it is opened for the append (LogFile.append).
  const { file: f, rotated } = where === 'local' ? { file: store.local, rotated: false } : writable(store, now);
  const before = copyMeta(f.meta);
  let id = lastId;
  const at = now.toISOString();
  const envelopes = events.map((ev, i) => {
    id = nextId(id, now.getTime(), store.ledger.lastId);
    const env = { id, seq: f.meta.seq + i + 1, at, branch: ev.branch, type: ev.type, data: ev.data } as GccEvent;
    const more = events.length - 1 - i;
    if (more > 0) env.more = more;
    return env;
  });
  f.append(serialize(envelopes), envelopes, store.checked);
  store.ledger.lastId = envelopes[envelopes.length - 1]!.id;
  return { file: f, rotated, envelopes, before };
}

/**
 * Only what was written is acknowledged anew; on a rotation the segment left behind moves to
 * the sealed part of the ledger as it was last acknowledged. The batches are durable now, so
 * the operation stands even if the ledger cannot be written (a full disk): failing it would
 * report as lost events that the next read finds. A ledger behind the logs only means this
 * clone's own segment grew since, which the next open acknowledges; the next write of the
 * ledger rewrites all of it.
 */
function acknowledgeWrites(store: OpenStore, done: readonly Written[]): void {
  const rotated = done.some((w) => w.rotated);
  try {
    // Within Store.oneLedgerWrite, recorded here and written with the views' checkpoint.
    store.acknowledge(
      done.map((w) => w.file),
      false,
      rotated,
      true,
    );
  } catch (err) {
    store.warnings.push(ledgerNotWritten(err));
  }
  if (rotated) store.listSegments();
}

/** A batch written by this process and not yet acknowledged. */
interface Written {
  file: LogFile;
  rotated: boolean;
  envelopes: GccEvent[];
  /** What was known of the file before: what takeBack restores. */
  before: LogMeta;
}
