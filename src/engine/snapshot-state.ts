/**
 * The state the snapshot gives an open: the snapshot's, with what was appended to the logs
 * since folded in — when the snapshot is this clone's own (its epoch, beside its ledger), its
 * bytes match its checksum, and the logs still reach where it says. And verify's check of it
 * against a replay of the logs, which are the truth: the snapshot is a cache.
 */
import { evolveUnfrozen } from '../decider/evolve.js';
import type { MemoryState } from '../decider/state.js';
import type { GccEvent } from '../events/types.js';
import type { Layout } from '../store/paths.js';
import { ledgerIdentity, readSnapshot, removeSnapshot, SNAPSHOT_FILE, type SnapshotLog } from '../store/snapshot.js';
import type { Store } from '../store/store.js';
import { reviveState, SNAPSHOT_FORMAT } from './revive.js';
import { digestOf, firstDifference } from './same-state.js';

/** Log bytes appended since the snapshot beyond which an open replays (streamed) rather than holding them. */
const DELTA_MAX = 4 * 1024 * 1024;

const DAMAGED = `${SNAPSHOT_FILE} fails its checksum (edited or damaged): not used; the state is folded from the logs`;

export interface SnapshotState {
  state: MemoryState;
  /** The snapshot's own event count. */
  at: number;
  /** Its size, and the logs' total size it was taken at. */
  bytes: number;
  logBytes: number;
}

/**
 * The snapshot's state with what was appended since folded in, or null when there is no
 * snapshot this clone can use: none, another format, epoch or ledger, logs that no longer reach
 * as far, or bytes that fail its checksum (edited in place, or damaged: `warn` is told).
 */
export function snapshotState(l: Layout, store: Store, now: number, warn: (w: string) => void): SnapshotState | null {
  const snap = readSnapshot(
    l,
    SNAPSHOT_FORMAT,
    reviveState,
    () => store.longPass?.(),
    () => warn(DAMAGED),
  );
  if (!snap || snap.epoch !== store.ledger.epoch || !store.ledger.epoch || snap.ledger !== ledgerIdentity(l))
    return null;
  store.readUnread(now);
  const delta = deltaSince(store, snap.logs, now);
  if (!delta || (delta.length > 0 && delta[0]!.id <= snap.state.lastId)) return null;
  return {
    state: evolveUnfrozen(snap.state, delta),
    at: snap.state.events,
    bytes: snap.bytes,
    logBytes: Object.values(snap.logs).reduce((n, x) => n + x.size, 0),
  };
}

/**
 * Events appended after a snapshot's positions, in id order; null when a log no longer
 * reaches that far, or when more than DELTA_MAX bytes were appended since (a pull of much
 * history): those events are not held, the logs are replayed, streamed, instead.
 */
function deltaSince(store: Store, logs: Record<string, SnapshotLog>, now: number): GccEvent[] | null {
  for (const name of Object.keys(logs)) if (!store.logs.has(name)) return null;
  let bytes = 0;
  for (const f of store.logs.values()) bytes += Math.max(0, f.meta.size - (logs[f.name]?.size ?? 0));
  if (bytes > DELTA_MAX) return null;
  const out: GccEvent[] = [];
  for (const f of store.logs.values()) {
    const at = logs[f.name];
    if (at && at.size > f.meta.size) return null;
    for (const e of f.readAfter(at?.size ?? 0, at?.seq ?? 0, at?.lastId ?? '', now)) out.push(e);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * verify's check of the snapshot: `digest`, of the state an open folded from it (and what was
 * appended since), against `replayed`, the state verify folded from every log up to the same
 * event. A snapshot that gave another state (edited with its checksum made to match) is
 * removed and said, with where the two first differ; the caller writes it again from the logs.
 * Returns whether it differed.
 */
export function snapshotDiffers(
  l: Layout,
  store: Store,
  now: number,
  digest: string,
  replayed: MemoryState,
  warn: (w: string) => void,
): boolean {
  if (digestOf(replayed) === digest) return false;
  // Where they differ, read again: rare, so verify does not otherwise hold two states.
  const got = snapshotState(l, store, now, warn);
  const at = got && got.state.lastId === replayed.lastId ? firstDifference(got.state, replayed) : null;
  removeSnapshot(l);
  warn(
    `${SNAPSHOT_FILE}: holds a state the logs do not fold to${at ? ` (at ${at})` : ''}: not used; written again from the logs`,
  );
  return true;
}
