/**
 * The ledger: what this clone has acknowledged of every log — its size, last sequence, a
 * CRC-32 of those bytes, its first and last ids — and the set of logs, with the signature
 * (size, mtime, inode) each had then, the writer's open segment, and where git stood. It is
 * local (`.GCC/.local/ledger.json`, never committed) and is what lets the store tell a log
 * that shrank, vanished or changed under it from one that only grew.
 *
 * A missing or unreadable ledger is a clone that has acknowledged nothing yet: everything on
 * disk is taken as it is (a fresh clone must open) and acknowledged from then on.
 */
import { existsSync, readFileSync, type Stats } from 'node:fs';
import { emptyMeta, type LogMeta } from './log-meta.js';
import { overwriteText } from './text-file.js';

export interface LedgerEntry extends LogMeta {
  /** size:mtime:inode when acknowledged: an unchanged signature needs no re-read. */
  sig: string;
}

export interface Ledger {
  format: 1;
  /** The commit HEAD named when the ledger was written (null outside git). */
  head: string | null;
  /** The index's signature when tracked segments were last asked about. */
  index: string | null;
  /** This clone's open segment: the one it appends to until it is full or git has seen it. */
  open: string | null;
  /** The newest id this clone issued: its ids keep growing whatever arrives from others. */
  lastId: string;
  /** Changes whenever a log is replaced or removed: a snapshot of another epoch is stale. */
  epoch: string;
  logs: Record<string, LedgerEntry>;
  /**
   * What the views reflect, as the engine last recorded it (its checkpoint; opaque here). Kept
   * in the ledger so that an operation's one write records its acknowledgement and its views
   * together, written after both its events and its views are.
   */
  views: Record<string, unknown> | null;
}

export function emptyLedger(): Ledger {
  return {
    format: 1,
    head: null,
    index: null,
    open: null,
    lastId: '',
    epoch: '',
    logs: Object.create(null) as Record<string, LedgerEntry>,
    views: null,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === 'string';
const int = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function entryOf(v: unknown): LedgerEntry | null {
  if (
    !isRecord(v) ||
    !int(v.size) ||
    !int(v.seq) ||
    !int(v.crc) ||
    !str(v.firstId) ||
    !str(v.lastId) ||
    !str(v.sig) ||
    !isRecord(v.branches)
  )
    return null;
  const branches = emptyMeta().branches;
  for (const [k, n] of Object.entries(v.branches)) {
    if (!int(n)) return null;
    branches[k] = n;
  }
  const entry: LedgerEntry = {
    size: v.size,
    seq: v.seq,
    crc: v.crc,
    firstId: v.firstId,
    lastId: v.lastId,
    sig: v.sig,
    branches,
  };
  if (isRecord(v.labels)) {
    const labels = Object.create(null) as Record<string, [number, number]>;
    for (const [k, r] of Object.entries(v.labels)) {
      if (!Array.isArray(r) || r.length !== 2 || !int(r[0]) || !int(r[1]) || r[0] > r[1]) return null;
      labels[k] = [r[0], r[1]];
    }
    entry.labels = labels;
  }
  return entry;
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isRecord(raw) && raw.format === 1 && isRecord(raw.logs) ? raw : null;
  } catch {
    return null;
  }
}

/**
 * Whether a ledger was there but cannot be read whole: one of its two files without the other,
 * or either unreadable. What this clone acknowledged is then unknown — unlike a fresh clone,
 * which has neither file — and the logs cannot be held against it.
 */
export function ledgerDamaged(path: string): boolean {
  const live = existsSync(path);
  const sealed = existsSync(`${path}.sealed`);
  if (live && sealed) return readLedger(path) === null;
  // The first acknowledgement writes the sealed part (empty) first: a crash before the live part
  // leaves that alone, and nothing was acknowledged yet.
  if (sealed) {
    const raw = readJson(`${path}.sealed`);
    return !raw || Object.keys(raw.logs as object).length > 0;
  }
  return live;
}

/**
 * Which of the ledger's two files is at fault, for a damaged ledger: the one missing, else the one that does not read.
 */
export function ledgerFault(path: string): string {
  const sealed = `${path}.sealed`;
  if (!existsSync(path)) return path;
  if (!existsSync(sealed)) return sealed;
  const raw = readJson(sealed);
  return raw && typeof raw.logs === 'object' && raw.logs !== null ? path : sealed;
}

/** Which of the ledger's two files holds the entry of log `name`: the sealed one, or the live one. */
export function ledgerFileOf(path: string, name: string): string {
  const sealed = readJson(`${path}.sealed`);
  return sealed && Object.hasOwn(sealed.logs as object, name) ? `${path}.sealed` : path;
}

/** The ledger on disk, or null when there is none or it cannot be trusted (torn, hand-made). */
export function readLedger(path: string): Ledger | null {
  const raw = readJson(path);
  const sealed = readJson(`${path}.sealed`);
  if (!raw || !sealed) return null;
  const l = emptyLedger();
  l.head = str(raw.head) ? raw.head : null;
  l.index = str(raw.index) ? raw.index : null;
  l.open = str(raw.open) ? raw.open : null;
  l.lastId = str(raw.lastId) ? raw.lastId : '';
  l.epoch = str(raw.epoch) ? raw.epoch : '';
  l.views = isRecord(raw.views) ? raw.views : null;
  for (const [name, v] of [...Object.entries(sealed.logs as object), ...Object.entries(raw.logs as object)]) {
    const e = entryOf(v);
    if (!e) return null;
    l.logs[name] = e;
  }
  return l;
}

/**
 * The views' checkpoint as the live part of the ledger on disk holds it (null when it holds
 * none), or undefined when the file cannot be read whole (missing, or caught mid-write).
 */
export function readViews(path: string): Record<string, unknown> | null | undefined {
  const raw = readJson(path);
  if (!raw) return undefined;
  return isRecord(raw.views) ? raw.views : null;
}

/**
 * In place: a torn write (a power cut mid-write) reads back as a damaged ledger, which the next
 * open reports and `gctx doctor --repair` re-acknowledges from the logs as they stand.
 * The ledger is two files — the sealed logs, rewritten only when that set changes, and the
 * live part (pointers, the open segment and the local log, the views' checkpoint), rewritten
 * once by each operation — so an append costs the same however many segments a history has.
 * Returns the live file's status as written.
 */
export function writeLedger(
  path: string,
  ledger: Ledger,
  live: ReadonlySet<string>,
  sealedToo: boolean,
  root?: string,
): Stats {
  const sealed = Object.create(null) as Record<string, LedgerEntry>;
  const hot = Object.create(null) as Record<string, LedgerEntry>;
  for (const [name, e] of Object.entries(ledger.logs)) (live.has(name) ? hot : sealed)[name] = e;
  if (sealedToo) overwriteText(`${path}.sealed`, JSON.stringify({ format: 1, logs: sealed }), root);
  return overwriteText(path, JSON.stringify({ ...ledger, logs: hot }), root);
}
