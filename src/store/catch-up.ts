/** Catching up, under the lock, with what other writers (processes, git) did to the logs since this process looked. */
import { lstatSync } from 'node:fs';
import { crc32 } from '../log/crc32.js';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { events, explainChange, explainVanished } from './git-explain.js';
import { headOf } from './git-probe.js';
import { byId } from './ids.js';
import { readLedger } from './ledger.js';
import { type LogFile, readRange } from './logfile.js';
import { signatureOf } from './log-meta.js';
import { LOCAL } from './segments.js';
import type { OpenStore } from './open-store.js';

export interface CatchUp {
  /** New events from every log, in id order. */
  added: GccEvent[];
  /** Logs changed other than by growing past what was folded: the caller replays from scratch. */
  reset: boolean;
  /** Logs this clone writes whose end holds an incomplete batch. */
  torn: LogFile[];
}

/**
 * Catch up with what other writers appended since this process last looked: the open
 * segment and the local log grow, and new segments appear (another writer rotated, or git
 * brought them). A segment that vanished, or new events older than the memory's newest,
 * ask the caller to replay from scratch.
 */
export function catchUpLogs(store: OpenStore, lastId: string, now?: number): CatchUp {
  const added: GccEvent[] = [];
  const torn: LogFile[] = [];
  let reset = false;
  const growing = new Set<LogFile>([store.local]);
  const headMoved = store.repo !== null && headOf(store.repo) !== store.head;
  if (headMoved || somethingMoved(store) || (store.lock.isHeld && store.journalPending)) {
    // What git or a work-tree command did to this clone's own logs is decided first (journal-check.ts), as an open
    // would: under the lock mended and said, without it only which logs are read from their copy.
    const r = store.reconcileJournal(new Date(now ?? Date.now()), store.lock.isHeld);
    store.warnings.push(...r.said);
    if (r.said.length || r.moved) reset = true;
    const disk = readLedger(store.layout.ledger);
    if (disk) {
      // Another process of this clone rotated: the segment open before may have grown up to
      // the rotation since this process last read it.
      if (store.ledger.open && store.ledger.open !== disk.open && store.logs.has(store.ledger.open))
        growing.add(store.file(store.ledger.open));
      store.ledger.open = disk.open;
      if (disk.lastId > store.ledger.lastId) store.ledger.lastId = disk.lastId;
      store.ledger.index = disk.index;
    }
    const names = new Set(store.listSegments());
    for (const name of names) if (!store.logs.has(name) || name === store.ledger.open) growing.add(store.file(name));
    for (const f of [...store.logs.values()]) {
      if (f.name !== LOCAL && !names.has(f.name)) {
        if (f.meta.size > 0) {
          // Gone: damage, unless git took it away or the ledger (as it now stands: a repair
          // rewrites it) no longer holds it as acknowledged.
          // An own segment the journal check let go (git removed it, or took it to another line).
          if (!store.journaled(f.name) && (disk ?? store.ledger).logs[f.name]?.size) {
            const why = explainVanished(store.place(store.layout.segment(f.name), f.name));
            if (why) {
              store.dirMtimes.clear(); // look again next time: the damage stands until mended
              throw why;
            }
          }
          reset = true;
        }
        if (f.name === store.ledger.open) store.ledger.open = null;
        store.logs.delete(f.name);
      }
    }
    if (headMoved) reset = rereadChanged(store, now) || reset;
    if (store.repo) store.head = headOf(store.repo);
  }
  if (store.ledger.open) growing.add(store.file(store.ledger.open));
  for (const f of growing) {
    const size = f.sizeOnDisk();
    f.seen = store.checked ? { size, op: store.operation } : null;
    if (size === null) {
      if (f.name === LOCAL && f.meta.size > 0 && acknowledgedSize(store, f) > 0) {
        throw gccError(
          'E_CORRUPT',
          `${f.rel} vanished (it held ${events(f.meta.seq)})`,
          'restore it from a backup, or run `gctx doctor --repair` to record the loss and go on',
          { file: f.rel },
        );
      }
      continue;
    }
    if (size < f.meta.size) {
      // Shorter than this process read it: a writer taking back an append it never
      // acknowledged (a failed write or fsync) may do that, down to the acknowledged size;
      // below it, acknowledged events went missing, as check() finds at open.
      if (size < acknowledgedSize(store, f)) {
        const why = explainChange(store.place(f.path, f.name));
        if (why) throw why;
      }
      reset = true;
      f.load(now);
      continue;
    }
    const r = f.readNew(now, size);
    for (const e of r.events) added.push(e);
    if (r.tail > 0) torn.push(f);
  }
  added.sort(byId);
  if (added.length && lastId && added[0]!.id <= lastId) reset = true;
  return { added, reset, torn };
}

/**
 * Whether anything git or another writer does could have changed the logs since the last look.
 * The folders are looked at without following a link: one found a real folder here, under the
 * lock, counts as checked for the rest of the operation (the append into it looks no further).
 */
function somethingMoved(store: OpenStore): boolean {
  if (store.repo && headOf(store.repo) !== store.head) return true;
  for (const [dir, mtime] of store.dirMtimes) {
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || st.mtimeMs !== mtime) return true;
      store.checked?.add(dir);
    } catch {
      return true;
    }
  }
  return store.dirMtimes.size === 0;
}

/** Each log's signature when its folded bytes were last found intact after HEAD moved. */
const verified = new WeakMap<LogFile, string>();

/**
 * After git moved HEAD, logs whose bytes are no longer those this process folded (a checkout or
 * revert put others there) are read afresh, never appended to: true when one was. Acknowledged
 * events gone that git does not explain are damage, as at open.
 */
function rereadChanged(store: OpenStore, now?: number): boolean {
  let changed = false;
  for (const f of store.logs.values()) {
    if (f.name === LOCAL || f.unread || f.meta.size === 0) continue;
    const size = f.sizeOnDisk();
    if (size === null) continue;
    // A file not written since it was last found intact is not read again: git replaces what it changes.
    const sig = signatureOf(f.path);
    if (sig !== null && verified.get(f) === sig) continue;
    if (size >= f.meta.size && crc32(readRange(f.path, 0, f.meta.size)) === f.meta.crc) {
      if (sig !== null) verified.set(f, sig);
      continue;
    }
    if (size < acknowledgedSize(store, f)) {
      const why = explainChange(store.place(f.path, f.name));
      if (why) throw why;
    }
    f.load(now);
    changed = true;
  }
  return changed;
}

/** What the ledger on disk (another process of this clone may have written it since) holds as acknowledged of a log. */
function acknowledgedSize(store: OpenStore, f: LogFile): number {
  return (readLedger(store.layout.ledger) ?? store.ledger).logs[f.name]?.size ?? 0;
}
