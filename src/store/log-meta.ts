/**
 * What is known of a log without its events: how many bytes hold complete batches, their last
 * sequence, a CRC-32 of those bytes (the digest the ledger compares), the first and last event
 * ids, how many events each branch has in it and its commit labels; and the file's signature,
 * which tells whether it was written since.
 */
import { type Stats, statSync } from 'node:fs';
import type { GccEvent } from '../events/types.js';

/** What is known of a file's complete batches. */
export interface LogMeta {
  size: number;
  seq: number;
  crc: number;
  firstId: string;
  lastId: string;
  /** Events per branch, to skip files a query about one branch does not need. */
  branches: Record<string, number>;
  /**
   * Per branch, the lowest and highest commit label number in the file, so a lookup by label
   * skips files that cannot hold it. Absent when not known (a ledger written before it was kept).
   */
  labels?: Record<string, [number, number]>;
}

export const emptyMeta = (): LogMeta => ({
  size: 0,
  seq: 0,
  crc: 0,
  firstId: '',
  lastId: '',
  branches: Object.create(null) as Record<string, number>,
  labels: Object.create(null) as Record<string, [number, number]>,
});

/** A copy of a meta that shares nothing mutable with it. */
export function copyMeta(m: LogMeta): LogMeta {
  const out: LogMeta = { ...m, branches: Object.assign(Object.create(null) as Record<string, number>, m.branches) };
  if (m.labels) {
    const labels = Object.create(null) as Record<string, [number, number]>;
    for (const [b, r] of Object.entries(m.labels)) labels[b] = [r[0], r[1]];
    out.labels = labels;
  } else delete out.labels;
  return out;
}

/** size:mtime:inode — changes whenever the file is written or replaced. */
export function signatureOf(path: string): string | null {
  try {
    return statSignature(statSync(path));
  } catch {
    return null;
  }
}

/** A file's signature from its status. */
export const statSignature = (st: Stats): string => `${st.size}:${st.mtimeMs}:${st.ino}`;

export function note(meta: LogMeta, events: readonly GccEvent[]): void {
  for (const e of events) {
    if (!meta.firstId) meta.firstId = e.id;
    meta.lastId = e.id;
    meta.branches[e.branch] = (meta.branches[e.branch] ?? 0) + 1;
    if (meta.labels && e.type === 'commit.recorded') {
      const n = Number(e.data.label.slice(1));
      const r = meta.labels[e.branch];
      if (!r) meta.labels[e.branch] = [n, n];
      else {
        if (n < r[0]) r[0] = n;
        if (n > r[1]) r[1] = n;
      }
    }
  }
  if (events.length) meta.seq = events[events.length - 1]!.seq;
}
