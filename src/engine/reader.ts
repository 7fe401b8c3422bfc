/**
 * Reading events back for queries, newest first, touching only what a query needs: logs are
 * visited in order of their newest event, a log whose events cannot be among the answer
 * (another branch only, or all older than what is already found) is never opened, and only
 * one log's bytes are in memory at a time. Every read holds the bytes against what was
 * acknowledged (LogFile.readAll), so damage found here is reported, never folded in.
 *
 * The newest logs' events stay decoded in a long-lived process (a server asked for a branch view
 * after each call): a log whose bytes still have the CRC they were read at is not decoded again,
 * and one that grew has only its new bytes parsed (each entry holds its own CRC).
 */
import { type GccEvent, isLocalType } from '../events/types.js';
import type { LogFile } from '../store/logfile.js';
import type { Store } from '../store/store.js';
import { SEGMENT_MAX } from '../store/append.js';
import { signatureOf } from '../store/log-meta.js';
import { crcOfRange } from '../store/window.js';

export interface NewestQuery {
  /** Only events of this branch. */
  branch?: string;
  /** Only events older than this id (the cursor of the previous page). */
  before?: string;
  /** Only this event and newer ones. */
  from?: string;
  /** How many to return. */
  limit: number;
  filter?: (e: GccEvent) => boolean;
}

function candidates(
  store: Store,
  q: {
    branch?: string | undefined;
    before?: string | undefined;
    from?: string | undefined;
    label?: number | undefined;
  },
): LogFile[] {
  const files: LogFile[] = [];
  for (const f of store.logs.values()) {
    if (f.meta.size === 0) continue;
    if (q.branch !== undefined && !f.meta.branches[q.branch]) continue;
    if (q.branch !== undefined && q.label !== undefined && f.meta.labels) {
      const r = f.meta.labels[q.branch];
      if (!r || q.label < r[0] || q.label > r[1]) continue;
    }
    if (q.before !== undefined && f.meta.firstId >= q.before) continue;
    if (q.from !== undefined && f.meta.lastId < q.from) continue;
    files.push(f);
  }
  return files.sort((a, b) => (a.meta.lastId < b.meta.lastId ? 1 : a.meta.lastId > b.meta.lastId ? -1 : 0));
}

/** Logs whose decoded events are kept, the most recently read. */
const KEEP_LOGS = 2;
/** A log larger than a segment is read a window at a time, never held. */
const KEEP_BYTES = 2 * SEGMENT_MAX;

interface Decoded {
  size: number;
  crc: number;
  seq: number;
  lastId: string;
  /** The file's signature when its events were read or extended. */
  sig: string | null;
  events: GccEvent[];
}

const decoded = new WeakMap<Store, Map<LogFile, Decoded>>();

/**
 * The kept bytes are still on disk as they were read: the file's signature unchanged (size, time, inode: what the
 * open trusts a log by), else their CRC (zlib's, far cheaper than decoding them again).
 */
function stillHolds(f: LogFile, had: Decoded): boolean {
  if (had.sig !== null && signatureOf(f.path) === had.sig) return true;
  try {
    return crcOfRange(f.path, 0, had.size) === had.crc;
  } catch {
    return false;
  }
}

/**
 * A log's events, oldest first: kept ones, those kept and what it gained since, or a read of it;
 * null for a log too large to keep.
 */
function keptEvents(store: Store, f: LogFile): GccEvent[] | null {
  if (f.meta.size > KEEP_BYTES) return null;
  let kept = decoded.get(store);
  if (!kept) decoded.set(store, (kept = new Map()));
  const had = kept.get(f);
  kept.delete(f);
  let events: GccEvent[];
  if (had && had.size === f.meta.size && had.crc === f.meta.crc && stillHolds(f, had)) events = had.events;
  else if (had && had.size < f.meta.size && had.seq > 0 && stillHolds(f, had))
    events = had.events.concat(f.readAfter(had.size, had.seq, had.lastId));
  else events = f.readAll();
  const m = f.meta;
  const sig = signatureOf(f.path);
  // A signature that no longer says this size (the file grew meanwhile) is none to trust.
  kept.set(f, {
    size: m.size,
    crc: m.crc,
    seq: m.seq,
    lastId: m.lastId,
    sig: sig?.startsWith(`${m.size}:`) ? sig : null,
    events,
  });
  for (const old of kept.keys()) if (kept.size > KEEP_LOGS) kept.delete(old);
  return events;
}

const newestFirst = (a: GccEvent, b: GccEvent) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** A shared event, not one of this clone's own moves: what log views and log reads show. */
export const shared = (e: GccEvent): boolean => !isLocalType(e.type);

/** The newest events matching a query, newest first; at most about twice `limit` held while reading. */
export function newest(store: Store, q: NewestQuery): GccEvent[] {
  const found: GccEvent[] = [];
  const seen = new Set<string>();
  const trim = () => {
    found.sort(newestFirst);
    if (found.length > q.limit) {
      for (const e of found.splice(q.limit)) seen.delete(e.id);
    }
  };
  const take = (e: GccEvent) => {
    if (q.branch !== undefined && e.branch !== q.branch) return;
    if (q.before !== undefined && e.id >= q.before) return;
    if (q.from !== undefined && e.id < q.from) return;
    if (q.filter && !q.filter(e)) return;
    if (seen.has(e.id)) return;
    seen.add(e.id);
    found.push(e);
    if (found.length >= 2 * q.limit + 256) trim();
  };
  for (const f of candidates(store, q)) {
    if (found.length >= q.limit && f.meta.lastId < found[q.limit - 1]!.id) break;
    const events = keptEvents(store, f);
    if (!events) f.scan((batch) => batch.forEach(take));
    else {
      // Ids grow within a log: read from its end, it is done at the first event older than the answer so far.
      const floor = found.length >= q.limit ? found[q.limit - 1]!.id : '';
      for (let i = events.length - 1; i >= 0 && events[i]!.id >= floor; i--) take(events[i]!);
    }
    trim();
  }
  return found;
}

/**
 * Every event (of a branch), newest log first, until `visit` returns false. `label`: only the
 * logs that may hold that commit label number of `branch` (a lookup by label).
 */
export function scanNewest(
  store: Store,
  q: { branch?: string; label?: number },
  visit: (e: GccEvent) => boolean,
): void {
  const seen = new Set<string>();
  for (const f of candidates(store, q)) {
    const events = keptEvents(store, f) ?? f.readAll();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (q.branch !== undefined && e.branch !== q.branch) continue;
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      if (!visit(e)) return;
    }
  }
}

/** What the history graph draws: branch lifecycle and commit events. */
export const isHistory = (e: GccEvent): boolean =>
  e.type === 'branch.created' ||
  e.type === 'commit.recorded' ||
  e.type === 'branch.merged' ||
  e.type === 'branch.abandoned';

/**
 * The history events from the `commits`-th newest commit on, in id order (every one when
 * there are fewer commits), from the logs that reach that far back and no others.
 */
export function recentHistory(store: Store, commits: number): GccEvent[] {
  // One commit more than asked: only when there is an older one does the window start at a commit.
  const last = newest(store, { limit: commits + 1, filter: (e) => e.type === 'commit.recorded' });
  const from = last.length > commits ? last[commits - 1]!.id : undefined;
  return newest(store, {
    limit: Number.MAX_SAFE_INTEGER,
    filter: isHistory,
    ...(from === undefined ? {} : { from }),
  }).reverse();
}
