/**
 * repair makes a damaged memory usable again without hiding anything: what git still holds is
 * restored from git (the events a file held that git's copy lacks kept in a new segment first);
 * what it does not is salvaged entry by entry into a new segment, the damaged file kept aside,
 * and every loss recorded as a `memory.repaired` event.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type GccEvent, MAIN, type Placed } from '../events/types.js';
import { GccError, gccError } from '../errors.js';
import { parseBytes, rebuildLog, salvage, serialize } from '../log/codec.js';
import { crc32 } from '../log/crc32.js';
import { randomHex } from '../runtime/random.js';
import { fileHasConflictMarkers } from '../store/conflicted.js';
import { blobOf, runGit } from '../store/git-probe.js';
import { intactDamage, ledgerDisagrees } from '../store/intact.js';
import { resolveConflict } from '../store/resolve-conflict.js';
import { layout, newSegmentName } from '../store/paths.js';
import { LOCAL, Store } from '../store/store.js';
import { setAsideTeammate } from './aside.js';

export interface RepairReport {
  /** The ledger was missing or damaged, and the logs were acknowledged as they stood. */
  ledger: boolean;
  /** Segments whose conflict markers were resolved by union. */
  resolved: string[];
  restored: string[];
  salvaged: { file: string; kept: number; lost: number; aside: string }[];
  /** Logs whose every acknowledged event read, rewritten as gctx wrote them (the file as it was kept aside). */
  rewritten: { file: string; kept: number; aside: string }[];
  /** Logs the ledger was at odds with, acknowledged as they stand. */
  reacknowledged: string[];
  lost: { file: string; events: number }[];
  /** What the journal put back (journal-check.ts), as said. */
  journal: string[];
  /** Teammates' segments set aside, never deleted (aside.ts), as said. */
  setAside: string[];
}

function hasMarkers(path: string): boolean {
  try {
    return fileHasConflictMarkers(path);
  } catch {
    return false;
  }
}

/**
 * The bytes git holds for a log (the index, HEAD, then each stash): the first copy that extends
 * what was acknowledged, else the longest clean one, marked short — never taken as whole.
 */
function fromGit(
  store: Store,
  path: string,
  entry: { size: number; crc: number } | undefined,
): { blob: Buffer; short: boolean } | null {
  if (!store.repo) return null;
  const root = store.layout.root;
  const revs = ['index', 'HEAD'];
  try {
    for (const s of runGit(root, ['stash', 'list', '--format=%gd']).split('\n').filter(Boolean)) revs.push(`${s}^3`, s);
  } catch {
    /* no stash */
  }
  let longest: Buffer | null = null;
  for (const rev of revs) {
    const blob = blobOf(root, rev, path);
    if (!blob || blob.length === 0 || !readsWhole(blob)) continue;
    if (!entry || (blob.length >= entry.size && crc32(blob.subarray(0, entry.size)) === entry.crc))
      return { blob, short: false };
    if (!longest || blob.length > longest.length) longest = blob;
  }
  return longest ? { blob: longest, short: true } : null;
}

/** Committed segments whose bytes in the work tree differ from git's index (paths relative to the project). */
function changedInGit(store: Store): string[] {
  if (!store.repo) return [];
  try {
    const root = store.layout.root;
    const out = runGit(root, [
      'diff',
      '--no-ext-diff',
      '--name-only',
      '-z',
      '--relative',
      '--',
      relative(root, store.layout.events),
    ]);
    return out.split('\0').filter((f) => f.endsWith('.md'));
  } catch {
    return [];
  }
}

/** Whether `bytes` read as whole entries of a log, with events. */
function readsWhole(bytes: Buffer): boolean {
  try {
    const p = parseBytes(bytes);
    return p.validLength === bytes.length && p.events.length > 0;
  } catch {
    return false;
  }
}

/**
 * Put git's copy of a log in place. What stands there may be the only copy of other events (two
 * segments swapped, one log's bytes written over another's): the events git's copy lacks are
 * kept in a new segment, and the file aside, first. Returns how many were kept.
 */
function restoreFromGit(
  store: Store,
  name: string,
  rel: string,
  blob: Buffer,
  now: () => Date,
  report: RepairReport,
  keepAside = false,
): number {
  const l = store.layout;
  const path = join(l.root, rel);
  const extra = name === LOCAL ? null : eventsGitLacks(path, blob, now().getTime());
  // Kept aside when it holds events git's copy lacks, or when git's copy is short: never dropped.
  if (extra && (extra.events.length || keepAside)) {
    const aside = join(l.aside, `${name.replaceAll('/', '__')}.${now().toISOString().replace(/[:.]/g, '-')}`);
    mkdirSync(l.aside, { recursive: true });
    copyFileSync(path, aside);
    if (extra.events.length)
      store.file(newSegmentName(now(), randomHex(3))).append(serialize(extra.events), extra.events);
    report.salvaged.push({ file: rel, kept: extra.events.length, lost: extra.lost, aside });
  }
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, blob);
  report.restored.push(rel);
  return extra?.events.length ?? 0;
}

/** The events the file at `path` holds, as far as they still read, that git's copy `blob` does not (by id). */
function eventsGitLacks(path: string, blob: Buffer, now: number): { events: GccEvent[]; lost: number } | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  if (bytes.equals(blob)) return null;
  const inGit = new Set(parseBytes(blob).events.map((e) => e.id));
  const s = salvage(bytes, now);
  const events = s.events
    .filter((e) => !inGit.has(e.id))
    .map(({ more: _m, ...e }, i) => ({ ...e, seq: i + 1 }) as GccEvent);
  return { events, lost: s.lost };
}

/**
 * What the open trusts unread (by signature, or older months by their folder), read whole, as
 * verify does: damage the check did not see joins `damage`, and a log that reads whole but that
 * the ledger is at odds with joins `faults`.
 */
function readTrusted(store: Store, now: number, damage: GccError[], faults: Set<string>): void {
  const named = new Set(damage.map((d) => d.file));
  for (const f of [...store.logs.values()]) {
    const entry = store.ledger.logs[f.name];
    if (!entry || f.unread || named.has(f.rel) || faults.has(f.name)) continue;
    const held = { name: f.name, path: f.path, rel: f.rel, root: store.layout.root, ledger: store.layout.ledger };
    try {
      const r = f.load(now, entry.size);
      if (f.meta.size >= entry.size && r.prefixCrc === entry.crc) continue;
      const fault = r.tail ? null : ledgerDisagrees(held, entry);
      if (fault) faults.add(f.name);
      damage.push(
        fault ??
          intactDamage(held, entry, now) ??
          gccError(
            'E_CORRUPT',
            `${f.rel}: its acknowledged bytes are not what they were`,
            'run `gctx doctor --repair`',
            { file: f.rel },
          ),
      );
    } catch (err) {
      damage.push(
        err instanceof GccError
          ? err
          : gccError('E_CORRUPT', String(err), 'run `gctx doctor --repair`', { file: f.rel }),
      );
    }
  }
}

/**
 * Rewrite a log from its salvaged events when they give back every acknowledged byte
 * (rebuildLog): the file as it stood is kept aside. Returns how many events the file holds now, 0
 * when it was not rewritten.
 */
function rewriteWhole(
  store: Store,
  name: string,
  rel: string,
  entry: { size: number; crc: number },
  now: () => Date,
  report: RepairReport,
): number {
  const path = join(store.layout.root, rel);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return 0;
  }
  const s = salvage(bytes, now().getTime());
  const whole = rebuildLog(s.events, entry);
  if (!whole) return 0;
  const kept = parseBytes(whole).events.length;
  const aside = join(store.layout.aside, `${name.replaceAll('/', '__')}.${now().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(store.layout.aside, { recursive: true });
  copyFileSync(path, aside);
  writeFileSync(path, whole);
  report.rewritten.push({ file: rel, kept, aside });
  return kept;
}

/** The journal's copies made what the repair left on disk, so the next open does not undo it. */
function syncJournal(store: Store): void {
  const j = store.journal;
  if (!j) return;
  for (const name of j.names()) {
    if (store.fromJournal.has(name)) continue;
    try {
      j.replace(name, readFileSync(name === LOCAL ? store.layout.localLog : store.layout.segment(name)));
    } catch {
      j.drop(name);
    }
  }
}

/**
 * Make a damaged memory open again, recording every loss. Under the lock; the caller opens the
 * memory afterwards (views are rebuilt then).
 */
export async function repairMemory(root: string, now: () => Date): Promise<RepairReport> {
  const l = layout(root);
  const store = new Store(l);
  const report: RepairReport = {
    ledger: false,
    resolved: [],
    restored: [],
    salvaged: [],
    rewritten: [],
    reacknowledged: [],
    lost: [],
    journal: [],
    setAside: [],
  };
  await store.withLock(() => {
    // This clone's own logs first, from its journal: nothing of them needs git then.
    report.journal.push(...store.reconcileJournal(now()).said);
    const damage: GccError[] = [];
    const faults = new Set(store.check(now().getTime(), damage).ledgerFaults);
    readTrusted(store, now().getTime(), damage, faults);
    const records: Placed[] = [];
    for (const name of faults) {
      const f = store.logs.get(name);
      if (!f) continue;
      delete store.ledger.logs[name];
      store.logs.delete(name);
      report.reacknowledged.push(f.rel);
      records.push({
        type: 'memory.repaired',
        data: {
          segment: 'ledger',
          kept: 0,
          lost: 0,
          reason:
            `the ledger's entry for ${f.rel} was edited or damaged; ` +
            'the log, which reads whole, was acknowledged as it stands',
        },
        branch: MAIN,
      });
    }
    for (const d of damage) {
      const rel = d.file;
      if (!rel) continue;
      const path = join(root, rel);
      const m = /events\/(\d{4}-\d{2}\/[^/]+\.md)$/.exec(rel.replaceAll('\\', '/'));
      const name = m ? m[1]! : rel.endsWith('local.md') ? LOCAL : null;
      if (!name) continue;
      const entry = store.ledger.logs[name];
      // A teammate's committed segment is set aside where it stands: deleted, it would be gone for the whole team.
      const said = entry || name === LOCAL ? null : setAsideTeammate(l, d, now());
      if (said) {
        report.setAside.push(said);
        store.logs.delete(name);
        continue;
      }
      // Whatever stands on disk after the repair is acknowledged afresh.
      delete store.ledger.logs[name];
      store.logs.delete(name);
      // Conflict markers (two writers' appends met in one file): both sides are kept, by
      // union, never one side restored from git over the other.
      if (name !== LOCAL && hasMarkers(path)) {
        resolveConflict(store, name);
        report.resolved.push(rel);
        continue;
      }
      // Every acknowledged event still reads (only blanks or separators were edited, or text
      // was added): the file is rewritten as gctx wrote it, nothing lost.
      const whole = entry ? rewriteWhole(store, name, rel, entry, now, report) : 0;
      if (whole) {
        records.push({
          type: 'memory.repaired',
          data: {
            segment: name,
            kept: whole,
            lost: 0,
            reason: `${d.message}; rewritten as gctx wrote it, the file as it was kept aside`,
          },
          branch: MAIN,
        });
        continue;
      }
      const got = fromGit(store, path, entry);
      if (got) {
        const inGit = parseBytes(got.blob).events.length;
        const kept = restoreFromGit(store, name, rel, got.blob, now, report, got.short);
        // A copy holding less than was acknowledged: the shortfall is a loss, on record.
        const lost = got.short ? Math.max(1, (entry?.seq ?? 0) - inGit - kept) : 0;
        if (lost) report.lost.push({ file: rel, events: lost });
        const keptNote = kept
          ? `, and the ${kept} ${kept === 1 ? 'event' : 'events'} the file held that git's copy lacks ` +
            'were kept in a new segment'
          : '';
        const lostNote = lost
          ? `; git's copy held less than was acknowledged: ${lost} ${lost === 1 ? 'event' : 'events'} lost`
          : '';
        if (kept || lost)
          records.push({
            type: 'memory.repaired',
            data: {
              segment: name,
              kept,
              lost,
              reason: `${d.message}; restored from git${keptNote}${lostNote}`,
            },
            branch: MAIN,
          });
        continue;
      }
      let bytes: Buffer | null = null;
      try {
        bytes = readFileSync(path);
      } catch {
        /* vanished */
      }
      if (!bytes) {
        report.lost.push({ file: rel, events: entry?.seq ?? 0 });
        records.push({
          type: 'memory.repaired',
          data: { segment: name, kept: 0, lost: entry?.seq ?? 0, reason: 'the file vanished and git holds no copy' },
          branch: MAIN,
        });
        continue;
      }
      const s = salvage(bytes, now().getTime());
      const aside = join(l.aside, `${name.replaceAll('/', '__')}.${now().toISOString().replace(/[:.]/g, '-')}`);
      mkdirSync(l.aside, { recursive: true });
      copyFileSync(path, aside);
      rmSync(path, { force: true });
      if (s.events.length && name !== LOCAL) {
        const events = s.events.map(({ more: _m, ...e }, i) => ({ ...e, seq: i + 1 }) as GccEvent);
        const target = store.file(newSegmentName(now(), randomHex(3)));
        target.append(serialize(events), events);
      } else if (s.events.length) {
        const events = s.events.map(({ more: _m, ...e }, i) => ({ ...e, seq: i + 1 }) as GccEvent);
        writeFileSync(path, serialize(events));
      }
      const lost = Math.max(s.lost, (entry?.seq ?? 0) - s.events.length);
      report.salvaged.push({ file: rel, kept: s.events.length, lost, aside });
      records.push({
        type: 'memory.repaired',
        data: { segment: name, kept: s.events.length, lost, reason: d.message },
        branch: MAIN,
      });
    }
    if (store.ledgerLost) {
      // Nothing says what this clone acknowledged, but git says what was committed: a committed
      // segment that differs from git's copy gets git's copy back (keeping aside, and keeping the
      // events of, whatever stood there), rather than being acknowledged cut or damaged.
      for (const rel of changedInGit(store)) {
        const path = join(root, rel);
        const blob = blobOf(root, 'index', path);
        if (!blob || !readsWhole(blob)) continue;
        const name = rel.replaceAll('\\', '/').replace(/^.*events\//, '');
        restoreFromGit(store, name, rel, blob, now, report);
        store.logs.delete(name);
      }
      // What this clone acknowledged is unknown: what stands on disk (after the repairs above)
      // is acknowledged, and the loss of the ledger is on record.
      store.forgetLedger();
      report.ledger = true;
      records.push({
        type: 'memory.repaired',
        data: {
          segment: 'ledger',
          kept: 0,
          lost: 0,
          reason:
            'the ledger of what this clone acknowledged was missing or damaged; ' +
            'the logs were acknowledged as they stood',
        },
        branch: MAIN,
      });
    }
    // From now on the memory is what stands on disk, the journal's copies too: acknowledge it
    // whole, then record the losses.
    syncJournal(store);
    const again: GccError[] = [];
    store.check(now().getTime(), again);
    if (again.length) throw again[0]!;
    store.acknowledge('all', true);
    if (records.length) {
      let lastId = '';
      for (const f of store.logs.values()) if (f.meta.lastId > lastId) lastId = f.meta.lastId;
      store.append(records, 'shared', lastId, now());
    }
  });
  return report;
}
