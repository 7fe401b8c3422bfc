/**
 * Reading events back for queries, newest first, touching only what a query needs: logs are
 * visited in order of their newest event, a log whose events cannot be among the answer
 * (another branch only, or all older than what is already found) is never opened, and only
 * one log's bytes are in memory at a time. Every read holds the bytes against what was
 * acknowledged (LogFile.readAll), so damage found here is reported, never folded in.
 */
import { type GccEvent, isLocalType } from '../events/types.js';
import type { LogFile } from '../store/logfile.js';
import type { Store } from '../store/store.js';

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
  for (const f of candidates(store, q)) {
    if (found.length >= q.limit && f.meta.lastId < found[q.limit - 1]!.id) break;
    f.scan((events) => {
      for (const e of events) {
        if (q.branch !== undefined && e.branch !== q.branch) continue;
        if (q.before !== undefined && e.id >= q.before) continue;
        if (q.from !== undefined && e.id < q.from) continue;
        if (q.filter && !q.filter(e)) continue;
        if (seen.has(e.id)) continue;
        seen.add(e.id);
        found.push(e);
      }
      if (found.length >= 2 * q.limit + 256) trim();
    });
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
    const events = f.readAll();
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
