import { readFileSync, statSync } from 'node:fs';
import type { FileState } from '../../observer/envelope.js';
import { resolveToolPath } from '../../observer/gcc-paths.js';

/**
 * File contents around a write or edit, for exact line counts: read on tool_call, read again on
 * tool_result. Pi prepares a whole parallel batch before running it, so a file that two calls in
 * flight both touch gets no snapshot (a wrong count is worse than the input-derived estimate).
 */

/** Files larger than this are not snapshotted: counting lines is not worth reading megabytes. */
const MAX_SNAPSHOT_BYTES = 2_000_000;

export class FileSnapshots {
  /** Every call in flight that writes a file, snapshotted or not. */
  private readonly calls = new Map<string, string>();
  private readonly snaps = new Map<string, { path: string; before: string | null }>();

  begin(callId: string, path: string, cwd: string): void {
    const absolute = resolveToolPath(path, cwd);
    const others = [...this.calls].filter(([, abs]) => abs === absolute).map(([id]) => id);
    this.calls.set(callId, absolute);
    if (others.length) {
      // Another call in flight writes the same file: neither count could be trusted.
      for (const id of others) this.snaps.delete(id);
      return;
    }
    const before = read(absolute);
    if (before !== undefined) this.snaps.set(callId, { path, before });
  }

  /** The file states of a finished call, or undefined when none were captured. */
  end(callId: string): FileState[] | undefined {
    const absolute = this.calls.get(callId);
    const snap = this.snaps.get(callId);
    this.calls.delete(callId);
    this.snaps.delete(callId);
    if (!absolute || !snap) return undefined;
    const after = read(absolute);
    if (after === undefined) return undefined;
    return [{ path: snap.path, before: snap.before, after }];
  }

  /** Forget a call that will never finish (blocked, or failed before running). */
  drop(callId: string): void {
    this.calls.delete(callId);
    this.snaps.delete(callId);
  }
}

/** Text of a file; null when it does not exist; undefined when it cannot or should not be read. */
function read(absolute: string): string | null | undefined {
  try {
    const st = statSync(absolute);
    if (!st.isFile() || st.size > MAX_SNAPSHOT_BYTES) return undefined;
    return readFileSync(absolute, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}
