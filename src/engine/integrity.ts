/**
 * verify and repair. verify reads every byte of every log — a window at a time, once, as it
 * folds them — checks each entry, holds each log against what this clone acknowledged, checks
 * that no id carries two different events, and that every view equals a fresh rebuild; it
 * names each problem by file and line. repair makes a damaged memory usable again without hiding anything: what git
 * still holds is restored from git; what it does not is salvaged entry by entry into a new
 * segment, the damaged file kept aside, and the loss recorded as a `memory.repaired` event.
 */
import { randomHex } from '../runtime/random.js';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { replayer } from '../decider/evolve.js';
import type { MemoryState } from '../decider/state.js';
import { type GccEvent, MAIN, type Placed } from '../events/types.js';
import { GccError } from '../errors.js';
import { parseBytes, salvage, serialize } from '../log/codec.js';
import { LOG_WINDOW } from '../projections/render-log.js';
import { blobOf, runGit, trackedUnder } from '../store/git-probe.js';
import { fileHasConflictMarkers } from '../store/conflicted.js';
import { resolveConflict } from '../store/migrate.js';
import { layout, newSegmentName, type Layout } from '../store/paths.js';
import type { LogFile } from '../store/logfile.js';
import { LOCAL, Store } from '../store/store.js';
import { newest } from './reader.js';
import { FullRebuild, ViewWriter } from './views.js';
import { type Redact, REDACTED_NOTE, setAside } from './aside.js';

export interface Problem {
  file: string;
  line?: number;
  message: string;
}

function problemOf(err: unknown, file: string): Problem {
  if (err instanceof GccError) return { file: err.file ?? file, ...(err.line ? { line: err.line } : {}), message: err.message };
  return { file, message: String(err) };
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, rel = ''): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(join(dir, rel));
  } catch {
    return out;
  }
  for (const n of names) {
    const r = rel ? `${rel}/${n}` : n;
    const st = statSync(join(dir, r));
    if (st.isDirectory()) out.push(...filesUnder(dir, r));
    else out.push(r);
  }
  return out;
}

/** What a caller holding a state of its own is told, so that it need not hold it beside verify's. */
export interface VerifyHooks {
  /** The logs are whole and their fold begins: a state folded from them may be let go. */
  release?: () => void;
  /** The state folded from every log. */
  folded?: (state: MemoryState) => void;
}

/**
 * Integrity of every log, agreement with the ledger, and every view against a fresh rebuild;
 * and whether git tracks anything under `.GCC/.local/`. `store`: an opened memory's own, whose
 * logs are checked and read again here rather than known twice.
 */
export function verifyMemory(l: Layout, now: number, hooks: VerifyHooks = {}, store = new Store(l)): Problem[] {
  return [...trackedLocal(l, store), ...verifyLogs(l, now, hooks, store)];
}

/**
 * `.GCC/.local/` is this clone's own (ledger, local log, caches, serve token) and `.gitignore`
 * keeps it out, but `git add -f` puts it in a commit and every clone then checks it out: what
 * this clone trusts as its own would be what someone else committed. Asked here, by the whole
 * pass, not on every open: it costs a git process.
 */
function trackedLocal(l: Layout, store: Store): Problem[] {
  if (!store.repo) return [];
  const files = trackedUnder(l.root, l.local);
  if (!files?.size) return [];
  const shown = [...files].slice(0, 3).join(', ') + (files.size > 3 ? ', …' : '');
  return [
    {
      file: relative(l.root, l.local),
      message:
        `git tracks ${files.size} file(s) here (${shown}): this folder is the clone's own (ledger, local log, caches, serve token) and is never committed, ` +
        'so what a clone trusts as its own would be what someone committed. Untrack it: `git rm -r --cached .GCC/.local` and commit; ' +
        'then remove the files that came with the repository (`rm -r .GCC/.local` unless you committed them yourself: gctx makes the folder again)',
    },
  ];
}

function verifyLogs(l: Layout, now: number, hooks: VerifyHooks, store: Store): Problem[] {
  const problems: Problem[] = [];
  const damage: GccError[] = [];
  store.check(now, damage);
  for (const d of damage) problems.push(problemOf(d, d.file ?? '.GCC'));
  const damaged = (f: LogFile) => damage.some((d) => d.file === f.rel);
  /** Read a log whole, holding it against what was acknowledged of it, and say what is wrong. */
  const readWhole = (f: LogFile) => {
    const entry = store.ledger.logs[f.name];
    try {
      const r = f.load(now, entry?.size ?? 0);
      if (entry && (f.meta.size < entry.size || r.prefixCrc !== entry.crc)) {
        problems.push({ file: f.rel, message: `its ${entry.size} acknowledged bytes (${entry.seq} events) are not what they were` });
      }
      if (r.tail) problems.push({ file: f.rel, message: f.name === store.ledger.open || f.name === LOCAL ? 'torn entry at the end (a crash mid-write); any gctx command sets it aside' : 'ends in an incomplete entry (ignored)' });
    } catch (err) {
      problems.push(problemOf(err, f.rel));
    }
  };
  // check() trusts older months by their folders; verify reads every byte, once: the fold below
  // reads each log a window at a time and holds its bytes against what is known of it (for a
  // log the size the ledger says, its acknowledged bytes and their CRC). A log of another size
  // (grown since, or ending in a torn entry) is read whole first; and every log is, when the
  // fold meets damage, so that each problem is named by its file.
  const rest: LogFile[] = [];
  for (const f of store.logs.values()) {
    if (damaged(f)) continue;
    if (f.unread || f.sizeOnDisk() !== f.meta.size) readWhole(f);
    else rest.push(f);
  }
  if (problems.length) {
    for (const f of rest) readWhole(f);
    return problems;
  }
  // The union: ids unique, one event each; then the views against a rebuild in a scratch tree.
  const scratch = mkdtempSync(join(tmpdir(), 'gcc-verify-'));
  try {
    const shadow = layout(scratch);
    mkdirSync(shadow.local, { recursive: true });
    hooks.release?.();
    const fold = replayer();
    const build = new FullRebuild(shadow, 2 * LOG_WINDOW);
    try {
      store.stream((e) => {
        fold.add(e);
        build.add(e);
      }, now);
    } catch (err) {
      for (const f of rest) readWhole(f);
      return problems.length ? problems : [problemOf(err, '.GCC/events')];
    }
    const state = fold.state();
    hooks.folded?.(state);
    // A rebuild to compare against: its checkpoint is never kept.
    const views = new ViewWriter(shadow, { views: () => null, saveViews: () => undefined });
    const after = build.finish(views, state);
    for (const name of after.relabel) {
      // A label two writers both used: commit.md shows it qualified, as the engine writes it.
      views.writeCommits(state, name, (add) => store.stream((e) => e.type === 'commit.recorded' && add(e), now, name));
    }
    for (const name of after.relog) views.writeLog(state, name, newest(store, { branch: name, limit: 2 * LOG_WINDOW }).reverse());
    // Visiting a commit of the first layout, the views on disk are that commit's tracked
    // files, not gctx's: the logs and their union are all there is to check.
    const blocks: Blocks = [Buffer.allocUnsafe(1 << 16), Buffer.allocUnsafe(1 << 16)];
    for (const rel of store.visit ? [] : filesUnder(shadow.gcc)) {
      if (rel.startsWith('.local/')) continue;
      const path = join(l.gcc, rel);
      const file = relative(l.root, path);
      const line = firstDifference(join(shadow.gcc, rel), path, blocks);
      if (line === 0) problems.push({ file, message: 'view is missing; run `gctx replay`' });
      else if (line > 0) problems.push({ file, line, message: 'differs from a rebuild from .GCC/events/; run `gctx replay` (a differing file is kept aside first)' });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return problems;
}

/** Two blocks reused for every pair of files compared. */
type Blocks = [Buffer, Buffer];

/**
 * The first line at which two files differ (-1 when they are the same, 0 when `have` is
 * missing), read a block at a time: a commit.md of ten thousand commits is never held whole.
 */
function firstDifference(want: string, have: string, [x, y]: Blocks): number {
  let a: number;
  let b: number;
  try {
    b = openSync(have, 'r');
  } catch {
    return 0;
  }
  a = openSync(want, 'r');
  try {
    let line = 1;
    for (let pos = 0; ; ) {
      const n = readSync(a, x, 0, x.length, pos);
      const m = readSync(b, y, 0, y.length, pos);
      const k = Math.min(n, m);
      for (let i = 0; i < k; i++) {
        if (x[i] !== y[i]) return line;
        if (x[i] === 0x0a) line++;
      }
      if (n !== m) return line;
      if (n === 0) return -1;
      pos += n;
    }
  } finally {
    closeSync(a);
    closeSync(b);
  }
}

export interface RepairReport {
  /** The ledger was missing or damaged, and the logs were acknowledged as they stood. */
  ledger: boolean;
  /** Segments whose conflict markers were resolved by union. */
  resolved: string[];
  restored: string[];
  salvaged: { file: string; kept: number; lost: number; aside: string }[];
  lost: { file: string; events: number }[];
}

function hasMarkers(path: string): boolean {
  try {
    return fileHasConflictMarkers(path);
  } catch {
    return false;
  }
}

/** The bytes git holds for a log: the index, HEAD, then the untracked part of each stash. */
function fromGit(store: Store, path: string): Buffer | null {
  if (!store.repo) return null;
  const root = store.layout.root;
  const revs = ['index', 'HEAD'];
  try {
    for (const s of runGit(root, ['stash', 'list', '--format=%gd']).split('\n').filter(Boolean)) revs.push(`${s}^3`, s);
  } catch {
    /* no stash */
  }
  for (const rev of revs) {
    const blob = blobOf(root, rev, path);
    if (!blob || blob.length === 0) continue;
    try {
      const p = parseBytes(blob);
      if (p.validLength === blob.length && p.events.length) return blob;
    } catch {
      /* not a clean copy */
    }
  }
  return null;
}

/** Committed segments whose bytes in the work tree differ from git's index (paths relative to the project). */
function changedInGit(store: Store): string[] {
  if (!store.repo) return [];
  try {
    const root = store.layout.root;
    const out = runGit(root, ['diff', '--no-ext-diff', '--name-only', '-z', '--relative', '--', relative(root, store.layout.events)]);
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
function restoreFromGit(store: Store, name: string, rel: string, blob: Buffer, now: () => Date, report: RepairReport): number {
  const l = store.layout;
  const path = join(l.root, rel);
  const extra = name === LOCAL ? null : eventsGitLacks(path, blob, now().getTime());
  if (extra && extra.events.length) {
    const aside = join(l.aside, `${name.replaceAll('/', '__')}.${now().toISOString().replace(/[:.]/g, '-')}`);
    mkdirSync(l.aside, { recursive: true });
    copyFileSync(path, aside);
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
  const events = s.events.filter((e) => !inGit.has(e.id)).map(({ more: _m, ...e }, i) => ({ ...e, seq: i + 1 }) as GccEvent);
  return { events, lost: s.lost };
}

/**
 * Make a damaged memory open again, recording every loss. Under the lock; the caller opens the
 * memory afterwards (views are rebuilt then).
 */
export async function repairMemory(root: string, now: () => Date): Promise<RepairReport> {
  const l = layout(root);
  const store = new Store(l);
  const report: RepairReport = { ledger: false, resolved: [], restored: [], salvaged: [], lost: [] };
  await store.withLock(() => {
    const damage: GccError[] = [];
    store.check(now().getTime(), damage);
    const records: Placed[] = [];
    for (const d of damage) {
      const rel = d.file;
      if (!rel) continue;
      const path = join(root, rel);
      const m = /events\/(\d{4}-\d{2}\/[^/]+\.md)$/.exec(rel.replaceAll('\\', '/'));
      const name = m ? m[1]! : rel.endsWith('local.md') ? LOCAL : null;
      if (!name) continue;
      const entry = store.ledger.logs[name];
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
      const blob = fromGit(store, path);
      if (blob) {
        const kept = restoreFromGit(store, name, rel, blob, now, report);
        if (kept) records.push({ type: 'memory.repaired', data: { segment: name, kept, lost: 0, reason: `${d.message}; restored from git, and the ${kept} event(s) the file held that git's copy lacks were kept in a new segment` }, branch: MAIN });
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
        records.push({ type: 'memory.repaired', data: { segment: name, kept: 0, lost: entry?.seq ?? 0, reason: 'the file vanished and git holds no copy' }, branch: MAIN });
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
      records.push({ type: 'memory.repaired', data: { segment: name, kept: s.events.length, lost, reason: d.message }, branch: MAIN });
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
      records.push({ type: 'memory.repaired', data: { segment: 'ledger', kept: 0, lost: 0, reason: 'the ledger of what this clone acknowledged was missing or damaged; the logs were acknowledged as they stood' }, branch: MAIN });
    }
    // From now on the memory is what stands on disk: acknowledge it whole, then record the losses.
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

/** Move a file aside, redacted (for replay's differing main.md and metadata.yaml: aside/ is committed). */
export function keepAside(l: Layout, path: string, stamp: Date, redact: Redact): string {
  const kept = setAside(l, path, `${relative(l.gcc, path).replaceAll('/', '__')}.${stamp.toISOString().replace(/[:.]/g, '-')}`, redact, true);
  if (!kept) return `${relative(l.root, path)} (gone before it could be kept)`;
  return kept.redacted ? `${kept.target}${REDACTED_NOTE}` : kept.target;
}

