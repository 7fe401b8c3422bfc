/** The open's check: every log on disk held against the ledger of what was acknowledged. */
import { existsSync, linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { crc32 } from '../log/crc32.js';
import { blobOf, gitPath, midOperation, runGit, trackedUnder } from './git-probe.js';
import { GccError, gccError } from '../errors.js';
import { events, explainChange, explainVanished, fixFor } from './git-explain.js';
import { type LedgerEntry, ledgerFault } from './ledger.js';
import { copyMeta, type LogMeta, signatureOf } from './log-meta.js';
import type { LogFile } from './logfile.js';
import { foreignTail, intactDamage, ledgerDisagrees, selfContradicting } from './intact.js';
import { assertRealLayout } from './paths.js';
import { LOCAL } from './segments.js';
import { SEGMENT_NAME } from './paths.js';
import type { OpenStore } from './open-store.js';

/** What check() found since the ledger was written. */
export interface Checked {
  /** Logs not in the ledger (new from git, or everything in a fresh clone). */
  added: string[];
  /** Logs git removed or replaced (HEAD moved): their events leave the memory. */
  replaced: string[];
  /** Logs that grew past what was acknowledged. */
  grew: string[];
  /**
   * Logs read whole because their signature changed (copied, touched, checked out again)
   * although their bytes did not: acknowledged anew, so the next open trusts them again.
   */
  resigned: string[];
  /** Logs this clone writes that end in an incomplete batch (set aside under the lock). */
  torn: LogFile[];
  /** Logs that read whole but that the ledger is at odds with (intact.ts): the ledger is at fault. */
  ledgerFaults: string[];
  warnings: string[];
}

/**
 * A teammate's segment deleted from the work tree (`rm`, an agent's clean-up) while git's index
 * still holds it: git's copy put back when it holds every acknowledged byte. Created whole or
 * not at all (a link of a finished temporary file), so a reader beside never sees half of it.
 */
function restoreFromIndex(store: OpenStore, name: string, entry: LedgerEntry | undefined): boolean {
  const path = store.layout.segment(name);
  const blob = blobOf(store.layout.root, 'index', path);
  if (!blob || (entry && (blob.length < entry.size || crc32(blob.subarray(0, entry.size)) !== entry.crc))) return false;
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, blob, { flag: 'wx' });
    linkSync(tmp, path);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Segments (relative paths) HEAD holds that the commit the ledger last saw did not; with none seen, all git tracks. */
function pulled(store: OpenStore, events: string): string[] {
  const since = store.ledger.head;
  if (!since || !/^[0-9a-f]+$/.test(since)) return [...(trackedUnder(store.layout.root, store.layout.events) ?? [])];
  try {
    const args = ['diff', '--name-only', '-z', '--relative', '--no-renames', '--diff-filter=A', since, 'HEAD', '--'];
    return runGit(store.layout.root, [...args, events])
      .split('\0')
      .filter(Boolean);
  } catch {
    return [];
  }
}

const deletedWarning = (name: string) =>
  `.GCC/events/${name} had been deleted from the work tree and is restored from git; ` +
  '`gctx forget` removes memory on purpose';

const metaOf = (e: LedgerEntry): LogMeta => {
  const { sig: _sig, ...meta } = e;
  return copyMeta(meta);
};

/**
 * Every log on disk held against the ledger, on open. A log that vanished, shrank or whose
 * acknowledged bytes changed is E_CORRUPT naming it — unless git did it (HEAD moved, and git
 * holds what is there now): then its events are taken as they now stand. Logs of the two
 * newest months are looked at one by one; older months by their folder (a file added or
 * removed changes it), their bytes held against the ledger whenever they are read.
 */
export function checkLogs(store: OpenStore, now: number, collect?: GccError[]): Checked {
  const damage: GccError[] = collect ?? [];
  const out: Checked = { added: [], replaced: [], grew: [], resigned: [], torn: [], ledgerFaults: [], warnings: [] };
  assertRealLayout(store.layout);
  if (store.ledgerLost) {
    const fault = ledgerFault(store.layout.ledger);
    const state = existsSync(fault) ? 'damaged' : 'missing';
    const e = gccError(
      'E_CORRUPT',
      `${relative(store.layout.root, fault)} (part of what this clone acknowledged) is ${state}, ` +
        'so the logs cannot be checked against it',
      "run `gctx doctor --repair`: it restores from git any committed segment that differs from git's copy, " +
        'then acknowledges the logs as they stand',
      { file: relative(store.layout.root, fault) },
    );
    if (!collect) throw e;
    damage.push(e);
  }
  const names = store.listSegments(out.warnings);
  const onDisk = new Set(names);
  const months = [...new Set(names.map((n) => n.slice(0, 7)))].sort();
  const recent = new Set(months.slice(-2));
  if (store.ledger.open) recent.add(store.ledger.open.slice(0, 7));
  const own = (name: string) => name === LOCAL || name === store.ledger.open;

  for (const name of Object.keys(store.ledger.logs)) {
    if (name === LOCAL || onDisk.has(name)) continue;
    const why = explainVanished(store.place(store.layout.segment(name), name));
    if (why === null) out.replaced.push(name);
    else if (!own(name) && restoreFromIndex(store, name, store.ledger.logs[name]!)) {
      out.warnings.push(deletedWarning(name));
      names.push(name);
      onDisk.add(name);
    } else damage.push(why);
  }
  // A pull (HEAD moved since the ledger) brought a segment deleted before any gctx call read it: git's index has it.
  if (store.repo && store.head !== store.ledger.head && !midOperation(store.repo)) {
    const events = gitPath(store.layout.root, store.layout.events);
    for (const rel of pulled(store, events)) {
      const name = rel.slice(events.length + 1);
      if (!SEGMENT_NAME.test(name) || onDisk.has(name) || store.ledger.logs[name] || own(name)) continue;
      if (store.journaled(name) || !restoreFromIndex(store, name, undefined)) continue;
      out.warnings.push(deletedWarning(name));
      names.push(name);
      onDisk.add(name);
    }
    names.sort();
  }
  for (const name of [...names, LOCAL]) {
    const f = store.file(name);
    const entry = store.ledger.logs[name];
    if (!entry) {
      if (f.sizeOnDisk() === null) continue;
      // Another writer's log, new to this clone: read once, by the replay that folds it
      // (damage found then fails the open as it would here). Checks that collect every
      // damage, and this clone's own logs (torn tails are set aside before the replay), read it now.
      if (!collect && !own(name) && f.defer(now)) {
        out.added.push(name);
        continue;
      }
      let r;
      try {
        store.longPass?.();
        r = f.load(now);
      } catch (err) {
        damage.push(
          err instanceof GccError
            ? fixFor(err, store.place(f.path, f.name), name === LOCAL)
            : gccError('E_CORRUPT', String(err), 'run `gctx doctor --repair`', { file: f.rel }),
        );
        store.logs.delete(name);
        continue;
      }
      out.added.push(name);
      if (r.tail) own(name) ? out.torn.push(f) : out.warnings.push(foreignTail(f, r.tail, now));
      continue;
    }
    if (name !== LOCAL && !recent.has(name.slice(0, 7))) {
      f.meta = metaOf(entry);
      continue;
    }
    if (f.sizeOnDisk() === null) {
      // Only the local log gets here (segments are listed from disk): git never held it.
      damage.push(
        gccError(
          'E_CORRUPT',
          `${f.rel} vanished (it held ${events(entry.seq)})`,
          'restore it from a backup, or run `gctx doctor --repair` to record the loss and go on',
          { file: f.rel },
        ),
      );
      continue;
    }
    const held = { name, path: f.path, rel: f.rel, root: store.layout.root, ledger: store.layout.ledger };
    // Trusted by its signature, unread; unless the ledger's entry contradicts itself, when the
    // log is read and held against it like one whose signature changed.
    if (signatureOf(f.path) === entry.sig && !selfContradicting(entry)) {
      f.meta = metaOf(entry);
      continue;
    }
    let r;
    try {
      store.longPass?.();
      r = f.load(now, entry.size);
    } catch (err) {
      const why = explainChange(store.place(f.path, f.name));
      if (why === null) out.replaced.push(name);
      else
        damage.push(
          intactDamage(held, entry, now) ??
            (err instanceof GccError ? fixFor(err, store.place(f.path, f.name), name === LOCAL) : why),
        );
      continue;
    }
    const keeps = f.meta.size >= entry.size && r.prefixCrc === entry.crc;
    if (!keeps) {
      const why = explainChange(store.place(f.path, f.name));
      const fault = r.tail ? null : ledgerDisagrees(held, entry);
      if (why === null) out.replaced.push(name);
      else if (fault) {
        out.ledgerFaults.push(name);
        damage.push(fault);
      } else damage.push(intactDamage(held, entry, now) ?? why);
      continue;
    }
    if (f.meta.size > entry.size) out.grew.push(name);
    else out.resigned.push(name);
    if (r.tail) own(name) ? out.torn.push(f) : out.warnings.push(foreignTail(f, r.tail, now));
  }
  if (damage.length && !collect) throw damage[0]!;
  for (const name of out.replaced) {
    if (!onDisk.has(name) && name !== LOCAL) store.logs.delete(name);
  }
  // A segment git took away or rewrote is no longer this clone's to write: another commit
  // holds it under that name, and a file written there would stop git from coming back.
  if (store.ledger.open && out.replaced.includes(store.ledger.open)) store.ledger.open = null;
  // A snapshot of the logs before git replaced one holds events no longer there: its epoch ends here.
  if (out.replaced.length) store.ledger.epoch = '';
  return out;
}
