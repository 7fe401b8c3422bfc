/**
 * A local snapshot of the folded state and of how far each log had been read, so opening a
 * memory costs the state's size plus the events appended since — not a parse of the whole
 * history. It is a cache in .GCC/.cache/ (never committed): anything that does not match
 * the logs on disk exactly (another inode, a shorter file, different bytes before the
 * recorded end, another format) is ignored and the logs are read from scratch.
 */
import { join } from 'node:path';
import type { MemoryState } from '../projections/state.js';
import type { LogIdentity } from './logfile.js';
import type { Layout } from './paths.js';
import { readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';

/** Bump whenever MemoryState's shape or meaning changes. */
export const SNAPSHOT_FORMAT = 2;

export interface Snapshot {
  format: number;
  logs: LogIdentity[];
  state: MemoryState;
}

function path(l: Layout): string {
  return join(l.cache, 'snapshot.json');
}

export function readSnapshot(l: Layout): Snapshot | null {
  try {
    const s = JSON.parse(readFileSync(path(l), 'utf8')) as Snapshot;
    return s.format === SNAPSHOT_FORMAT && Array.isArray(s.logs) && s.state && typeof s.state === 'object' ? s : null;
  } catch {
    return null;
  }
}

export function writeSnapshot(l: Layout, snapshot: Snapshot): void {
  // Not recursive: a memory folder removed under a running process stays removed.
  try {
    mkdirSync(l.cache);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
  }
  const tmp = `${path(l)}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(snapshot));
  renameSync(tmp, path(l));
}
