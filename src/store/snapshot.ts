/**
 * A local snapshot of a folded state and of how far each log had been folded into it, so
 * opening a memory costs the state's size plus the events appended since — not a read of the
 * whole history. A cache (`.GCC/.local/cache/snapshot.json`, never committed): one of another
 * format, another ledger epoch, or naming a log that no longer reaches as far, is ignored and
 * the logs are read from scratch. The store does not know what the state means: the caller
 * validates it (`revive`), since a cache file is read off disk like anything else.
 *
 * Its last member is a CRC-32 of every byte before it: a snapshot edited in place (by hand, by
 * a tool, by a script that parses and rewrites it) or damaged on disk is not used. The CRC
 * lives in the file because the snapshot is written without the lock (by a closing process),
 * where the ledger cannot be; someone who recomputes it is caught by `gctx verify`, which holds
 * the snapshot's state against a replay of the logs (docs/reliability.md).
 */
import { isAscii } from 'node:buffer';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from '../log/crc32.js';
import { zlib } from '../runtime/lazy-deps.js';
import { assertNoSymlink, type Layout, layout } from './paths.js';
import { writePieces } from './text-file.js';

export interface SnapshotLog {
  size: number;
  seq: number;
  lastId: string;
}

export interface Snapshot<S> {
  format: number;
  epoch: string;
  /**
   * The ledger file it was taken beside (device and inode, `ledgerIdentity`): a snapshot that
   * arrived some other way (committed by someone, copied with a memory) is never taken for
   * this clone's own, whatever it claims.
   */
  ledger: string;
  logs: Record<string, SnapshotLog>;
  state: S;
}

function path(l: Layout): string {
  return join(l.cache, 'snapshot.json');
}

/** The snapshot's path as messages name it. */
export const SNAPSHOT_FILE = '.GCC/.local/cache/snapshot.json';

/** Remove the snapshot (its state is not the logs'): the next open folds the logs. */
export function removeSnapshot(l: Layout): void {
  rmSync(path(l), { force: true });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const escapeWide = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Whether opening the memory in `root` is likely a long pass, told from one look at the
 * snapshot: none yet (the open replays every log) or a large one (a long history's state).
 * A door of gctx's own sets V8's heap flags before it loads the engine when it is.
 */
export function openIsLong(root: string): boolean {
  try {
    return statSync(path(layout(root))).size > LARGE_SNAPSHOT;
  } catch {
    return true;
  }
}

/** A snapshot past this many characters is a long history's: reading it is a pass of its own (onLarge). */
export const LARGE_SNAPSHOT = 1 << 20;

/** A snapshot read back, with its size in bytes (what writing it again costs). */
export type ReadSnapshot<S> = Snapshot<S> & { bytes: number };

/** What closes the snapshot's JSON: its CRC as the last member. */
const CRC_MEMBER = ',"crc":';
const CRC_TAIL = /^,"crc":(\d{1,10})\}$/;

/**
 * Past this many bytes the CRC is zlib's: an open meets the CRC code cold, and zlib's native
 * one, loading included, costs less than the JavaScript one does before it is optimised (a
 * few ms on a snapshot of a few hundred KB, about what parsing it costs).
 */
const NATIVE_FROM = 64 * 1024;

const checksum = (data: Uint8Array | string, initial: number, native: boolean): number =>
  native ? zlib().crc32(data, initial) : crc32(data, initial);

/**
 * Whether the bytes end in the CRC member and it is the CRC of every byte before it; null when there is none (another
 * format).
 */
function checksumHolds(bytes: Buffer): boolean | null {
  const from = Math.max(0, bytes.length - 32);
  const found = bytes.subarray(from).lastIndexOf(CRC_MEMBER, undefined, 'latin1');
  const at = found < 0 ? -1 : from + found;
  const tail = at < 0 ? null : CRC_TAIL.exec(bytes.subarray(at).toString('latin1'));
  if (!tail) return null;
  return checksum(bytes.subarray(0, at), 0, at >= NATIVE_FROM) === Number(tail[1]);
}

/**
 * The snapshot, or null when there is none this version can use. `onDamaged`: it ends in a
 * checksum that its bytes do not match (edited in place, or damaged on disk).
 */
export function readSnapshot<S>(
  l: Layout,
  format: number,
  revive: (raw: unknown) => S | null,
  onLarge?: () => void,
  onDamaged?: () => void,
): ReadSnapshot<S> | null {
  try {
    const bytes = readFileSync(path(l));
    const holds = checksumHolds(bytes);
    if (holds !== true) {
      if (holds === false) onDamaged?.();
      return null;
    }
    const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    if (text.length > LARGE_SNAPSHOT) onLarge?.();
    const s: unknown = JSON.parse(text);
    if (
      !isRecord(s) ||
      s.format !== format ||
      typeof s.epoch !== 'string' ||
      typeof s.ledger !== 'string' ||
      !isRecord(s.logs)
    )
      return null;
    const logs = Object.create(null) as Record<string, SnapshotLog>;
    for (const [name, v] of Object.entries(s.logs)) {
      if (!isRecord(v) || typeof v.size !== 'number' || typeof v.seq !== 'number' || typeof v.lastId !== 'string')
        return null;
      logs[name] = { size: v.size, seq: v.seq, lastId: v.lastId };
    }
    const state = revive(s.state);
    return state === null ? null : { format, epoch: s.epoch, ledger: s.ledger, logs, state, bytes: text.length };
  } catch {
    return null;
  }
}

/**
 * The JSON text of `value`, exactly as JSON.stringify gives it, in pieces: objects down to
 * `depth` levels are written entry by entry, anything deeper whole. The snapshot's state is
 * written a branch at a time, never as one string the size of the state.
 */
export function* jsonPieces(value: unknown, depth: number): Generator<string> {
  if (
    depth <= 0 ||
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    const text = JSON.stringify(value);
    if (text !== undefined) yield text;
    return;
  }
  let sep = '{';
  for (const [k, v] of Object.entries(value)) {
    // JSON.stringify leaves out what it cannot write as a member.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    yield `${sep}${JSON.stringify(k)}:`;
    sep = ',';
    yield* jsonPieces(v, depth - 1);
  }
  yield sep === '{' ? '{}' : '}';
}

/** The ledger file's device and inode, which git and copies never reproduce; null without one. */
export function ledgerIdentity(l: Layout): string | null {
  const st = lstatSync(l.ledger, { throwIfNoEntry: false });
  return st && st.isFile() ? `${st.dev}:${st.ino}` : null;
}

/** Write the snapshot in place of the last; returns its size in bytes (0 when it was not written). */
export function writeSnapshot<S>(l: Layout, snapshot: Snapshot<S>): number {
  // A memory folder removed under a running process stays removed.
  if (!existsSync(l.local)) return 0;
  // A cache folder that is a link would take the snapshot (the whole state) outside the tree.
  assertNoSymlink(l.root, path(l));
  mkdirSync(l.cache, { recursive: true });
  // The snapshot, its state, and the state's maps (branches, files, sessions) entry by entry, as
  // ASCII (read back into a string of one byte per character: a single em dash in the state
  // would make V8 hold the whole text at two), closed by the CRC of what came before.
  let bytes = 0;
  writePieces(
    path(l),
    (put) => {
      let crc = 0;
      let summed = 0;
      let held: string | null = null;
      for (const piece of jsonPieces(snapshot, 3)) {
        if (held !== null) {
          crc = checksum(held, crc, summed >= NATIVE_FROM);
          summed += held.length;
          put(held);
        }
        held = piece.replace(/[\u007f-\uffff]/g, escapeWide);
      }
      // The last piece is the object's closing brace.
      put(`${CRC_MEMBER}${crc}}`);
    },
    (text) => {
      const ascii = Buffer.from(text, 'latin1');
      bytes += ascii.length;
      return ascii;
    },
  );
  return bytes;
}
