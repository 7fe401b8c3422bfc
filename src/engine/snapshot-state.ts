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
import { crypto } from '../runtime/lazy-deps.js';

/** Log bytes appended since the snapshot beyond which an open replays (streamed) rather than holding them. */
const DELTA_MAX = 4 * 1024 * 1024;

const DAMAGED = `${SNAPSHOT_FILE} fails its checksum (edited or damaged): not used; the state is folded from the logs`;

interface SnapshotState {
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
 * removed and said; the caller writes it again from the logs. Returns whether it differed.
 */
export function snapshotDiffers(l: Layout, digest: string, replayed: MemoryState, warn: (w: string) => void): boolean {
  if (digestOf(replayed) === digest) return false;
  removeSnapshot(l);
  warn(`${SNAPSHOT_FILE}: holds a state the logs do not fold to: not used; written again from the logs`);
  return true;
}

/**
 * A digest of a value's data, the same for two values that hold the same data: key order and
 * prototypes do not count, undefined members count as absent (a state read back from a
 * snapshot differs from a replayed one in all three). Fed a piece at a time, so a large state is
 * never one string.
 */
export function digestOf(value: unknown): string {
  const hash = crypto().createHash('sha256');
  let pending = '';
  const put = (text: string) => {
    pending += text;
    if (pending.length >= 1 << 16) {
      hash.update(pending);
      pending = '';
    }
  };
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) {
      put(v === undefined ? 'null' : JSON.stringify(v));
      return;
    }
    if (Array.isArray(v)) {
      put('[');
      v.forEach((x, i) => {
        if (i) put(',');
        walk(x);
      });
      put(']');
      return;
    }
    const o = v as Record<string, unknown>;
    put('{');
    let sep = '';
    for (const k of Object.keys(o).sort()) {
      if (o[k] === undefined) continue;
      put(`${sep}${JSON.stringify(k)}:`);
      sep = ',';
      walk(o[k]);
    }
    put('}');
  };
  walk(value);
  hash.update(pending);
  return hash.digest('hex');
}
