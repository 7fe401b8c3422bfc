/**
 * A logged tool call recorded without opening the memory: the hook process's path for
 * PostToolUse and for the log entry of a refused write. It loads the store's append, the
 * decider and the ledger, not the engine, and leaves the fold to the next read: the snapshot
 * stays where it was and the next open folds the entries appended since.
 *
 * It writes exactly what the engine's `execute` would for the call — the same event (the
 * decider's), appended by the store's own LogFile (journal copy first, then the log, each
 * fsynced), log.md's entry, and one ledger write acknowledging both with the views' new
 * checkpoint — and only where that is plainly all there is to do. Anything else (the ledger
 * and the logs not exactly as acknowledged, a journal or git index that moved, a snapshot of
 * another state, views behind, a log view due for its window rewrite, more than a few entries
 * since the snapshot) is the engine's: `null`, and nothing was written.
 */
import { closeSync, constants, lstatSync, readFileSync, writeSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { Command } from '../../decider/commands.js';
import { decide } from '../../decider/decide.js';
import { currentBranch, type MemoryState, PENDING_FILES } from '../../decider/state.js';
import { readSummary, writeSummary } from '../../engine/hook-summary.js';
import { redactCommand } from '../../engine/redact-command.js';
import { type GccEvent, MAIN } from '../../events/types.js';
import { assertEntrySize, parse, serialize } from '../../log/codec.js';
import { LOG_WINDOW, logEntry } from '../../projections/render-log.js';
import { findRepo, type GitRepo, headOf, indexLock, indexSignature } from '../../store/git-probe.js';
import { nextId } from '../../store/ids.js';
import { Journal, privateDir } from '../../store/journal.js';
import { type Ledger, readLedger, writeLedger } from '../../store/ledger.js';
import { FileLock } from '../../store/lock.js';
import { copyMeta, signatureOf } from '../../store/log-meta.js';
import { LogFile } from '../../store/logfile.js';
import { assertNoSymlink, type Layout, layout, openNoFollow } from '../../store/paths.js';
import { SEGMENT_MAX } from '../../store/append.js';
import { LOCAL, listSegments } from '../../store/segments.js';
import { ledgerIdentity } from '../../store/snapshot.js';

/**
 * Events since the snapshot at which the engine takes the call: engine/fold.ts's SNAPSHOT_ON_CLOSE, so that its
 * close writes a new snapshot, and the slim path takes the calls after it again.
 */
const MAX_TAIL = 32;

/** What the slim path read: the state as the ledger stands, and the signatures it was read at. */
export interface SlimState {
  readonly l: Layout;
  readonly ledger: Ledger;
  readonly state: MemoryState;
  readonly repo: GitRepo | null;
  readonly journal: Journal | null;
  /** Signatures of the ledger's two files and of every log held against it. */
  readonly sigs: string;
  /** The ledger file's identity, and the events folded since the snapshot (hook-summary.ts). */
  readonly identity: string;
  behind: number;
}

const logPath = (l: Layout, name: string) => (name === LOCAL ? l.localLog : l.segment(name));

/** The memory at `root` as the slim path may record into it, read without the lock; null: the engine's. */
export function readSlim(root: string): SlimState | null {
  try {
    return read(layout(root));
  } catch {
    return null;
  }
}

function read(l: Layout): SlimState | null {
  const gcc = lstatSync(l.gcc);
  if (!gcc.isDirectory()) return null;
  const ledgerSig = `${signatureOf(l.ledger)} ${signatureOf(`${l.ledger}.sealed`)}`;
  const ledger = readLedger(l.ledger);
  const open = ledger?.open;
  if (!ledger || !open || !ledger.epoch || typeof ledger.views?.stamp !== 'string') return null;
  const own = ledger.logs[open];
  if (!own || own.size === 0 || own.size >= SEGMENT_MAX) return null;
  const repo = findRepo(l.root);
  if (!gitQuiet(repo, ledger)) return null;
  const dir = privateDir(l.root, repo);
  const journal = dir ? new Journal(join(dir, 'journal')) : null;
  // Every log on disk is one the ledger holds, as it was acknowledged (as the open's check trusts them).
  const warnings: string[] = [];
  const names = listSegments(l, warnings).names;
  if (warnings.length || names.length !== Object.keys(ledger.logs).filter((n) => n !== LOCAL).length) return null;
  // The two newest months' logs by their signature, older ones by being there (as Store.check holds them).
  const recent = new Set([...new Set(names.map((n) => n.slice(0, 7)))].sort().slice(-2));
  const sigs = [ledgerSig];
  for (const name of [...names, LOCAL]) {
    const e = ledger.logs[name];
    const sig = signatureOf(logPath(l, name));
    if (!e) {
      if (name === LOCAL && sig === null) continue;
      return null;
    }
    if ((name === LOCAL || name === open || recent.has(name.slice(0, 7))) && (!e.sig || sig !== e.sig)) return null;
    sigs.push(`${sig}`);
  }
  // Every copy in the journal is its log as acknowledged (journal-check.ts's differences).
  for (const name of journal?.names() ?? []) {
    const e = ledger.logs[name];
    const sig = signatureOf(logPath(l, name));
    if (!e || !e.sig || sig !== e.sig || journal!.size(name) !== e.size) return null;
  }
  const identity = ledgerIdentity(l);
  const snap = readSummary(l);
  if (!snap || snap.epoch !== ledger.epoch || snap.ledger !== identity) return null;
  for (const name of Object.keys(snap.logs)) if (!ledger.logs[name]) return null;
  let tail: GccEvent[] = [];
  for (const [name, e] of Object.entries(ledger.logs)) {
    const s = snap.logs[name] ?? { size: 0, seq: 0 };
    if (s.size === e.size && s.seq === e.seq) continue;
    if (name !== open || s.size > e.size || snap.behind + e.seq - s.seq >= MAX_TAIL) return null;
    const bytes = readFileSync(logPath(l, name)).subarray(s.size, e.size);
    const p = parse(bytes, relative(l.root, logPath(l, name)), s.seq);
    if (p.tail || p.validLength !== bytes.length || p.events.length !== e.seq - s.seq) return null;
    tail = p.events;
  }
  const state = snap.state;
  for (const e of tail) if (!foldCall(state, e)) return null;
  // The views are the state's (the checkpoint names it), and no hand edit of main.md or metadata.yaml
  // waits to be adopted.
  const seen = ledger.views?.seen as Record<string, unknown> | undefined;
  if (ledger.views?.stamp !== stampOf(ledger, state)) return null;
  for (const path of [l.mainMd, l.metadata]) if (!seen || seen[basename(path)] !== signatureOf(path)) return null;
  if (snap.behind + tail.length >= MAX_TAIL) return null;
  return { l, ledger, state, repo, journal, sigs: sigs.join(' '), identity, behind: snap.behind + tail.length };
}

/** HEAD where the ledger saw it, and git's index neither being written nor changed since. */
function gitQuiet(repo: GitRepo | null, ledger: Ledger): boolean {
  if (!repo) return ledger.head === null;
  if (headOf(repo) !== ledger.head || indexLock(repo) !== null) return false;
  const sig = indexSignature(repo);
  return sig === null || sig === ledger.index;
}

/**
 * The views' checkpoint of `s` (Fold.stamp), with the gctx and views format the checkpoint names: views another gctx
 * wrote are rewritten whole by the engine at the next open, which a stamp still naming that gctx tells it.
 */
const stampOf = (ledger: Ledger, s: MemoryState) =>
  `${ledger.epoch} ${s.lastId} ${s.events} ${String(ledger.views?.stamp).split(' ')[3]}`;

/**
 * What folding a recorded call changes of what this path reads (decider/evolve.ts, which the
 * replay-equals-incremental tests hold it to): the counts, and the branch's pending work.
 */
function foldCall(s: MemoryState, e: GccEvent): boolean {
  const b = s.branches[e.branch];
  if (e.type !== 'tool.recorded' || !b) return false;
  s.lastId = e.id > s.lastId ? e.id : s.lastId;
  s.events += 1;
  b.logged += 1;
  b.pending.turns += 1;
  if (e.data.files.length) b.pending.edits += 1;
  const files = b.pending.files;
  for (const f of e.data.files) {
    const prev = files[f.path];
    files[f.path] = {
      path: f.path,
      added: (prev?.added ?? 0) + f.added,
      removed: (prev?.removed ?? 0) + f.removed,
      at: e.at,
    };
    const keys = Object.keys(files);
    if (!prev && keys.length > PENDING_FILES) {
      let oldest = keys[0]!;
      for (const k of keys) if (files[k]!.at < files[oldest]!.at) oldest = k;
      delete files[oldest];
    }
  }
  return true;
}

export interface SlimRecorded {
  /** The memory as recorded into: what the next pendingWork reads. */
  slim: SlimState;
  branch: string;
  message: string;
  warnings: string[];
}

/**
 * Record a call under the lock, as `Memory.execute` would; null when the memory is not as
 * `s` read it (nothing written: the engine takes it). Throws what execute would throw.
 */
export async function slimRecord(
  s: SlimState,
  cmd: Extract<Command, { type: 'record-tool' }>,
  session: string | undefined,
  lockTimeoutMs: number,
  now = new Date(),
): Promise<SlimRecorded | null> {
  const { l } = s;
  const lock = new FileLock(l.lock);
  const warnings: string[] = [];
  assertNoSymlink(l.root, l.local);
  await lock.acquire({
    timeoutMs: lockTimeoutMs,
    onStale: (h) => warnings.push(`took over a stale lock left by dead process ${h.pid}`),
  });
  try {
    // Under the lock: as read, or read again.
    const fresh = current(s) ? s : readSlim(l.root);
    if (!fresh) return null;
    return record(fresh, redactCommand(cmd) as typeof cmd, session, now, warnings);
  } finally {
    lock.release();
  }
}

/** Whether the ledger, the logs and git are still as `s` read them. */
function current(s: SlimState): boolean {
  try {
    return unchanged(s);
  } catch {
    return false;
  }
}

function unchanged(s: SlimState): boolean {
  const sigs = [`${signatureOf(s.l.ledger)} ${signatureOf(`${s.l.ledger}.sealed`)}`];
  const names = listSegments(s.l).names;
  for (const name of [...names, LOCAL]) {
    const sig = signatureOf(logPath(s.l, name));
    if (sig !== null || name !== LOCAL) sigs.push(`${sig}`);
  }
  const open = s.ledger.open!;
  return (
    sigs.join(' ') === s.sigs &&
    gitQuiet(s.repo, s.ledger) &&
    (s.journal?.size(open) ?? s.ledger.logs[open]!.size) === s.ledger.logs[open]!.size
  );
}

function record(
  s: SlimState,
  cmd: Extract<Command, { type: 'record-tool' }>,
  session: string | undefined,
  now: Date,
  warnings: string[],
): SlimRecorded | null {
  const { l, ledger, state } = s;
  const d = decide(state, cmd, { session, nonce: '' });
  if (!d.ok) throw d.error;
  const ev = d.shared[0];
  if (d.local.length || d.shared.length !== 1 || ev?.type !== 'tool.recorded') return null;
  const b = state.branches[ev.branch];
  const logged = (b?.logged ?? 0) + 1;
  // A log view due for its window rewrite, or its first entry, is the engine's.
  if (!b || logged === 1 || (logged >= 2 * LOG_WINDOW && logged % LOG_WINDOW === 0)) return null;
  const view = l.logOf(ev.branch);
  if (!lstatSync(view, { throwIfNoEntry: false })?.isFile()) return null;
  assertEntrySize(d.shared);
  const open = ledger.open!;
  const entry = ledger.logs[open]!;
  const path = l.segment(open);
  const f = new LogFile(open, path, relative(l.root, path), l.root);
  const { sig: _sig, ...meta } = entry;
  f.meta = copyMeta(meta);
  f.journal = s.journal;
  const env = {
    id: nextId(state.lastId, now.getTime(), ledger.lastId),
    seq: entry.seq + 1,
    at: now.toISOString(),
    branch: ev.branch,
    type: ev.type,
    data: ev.data,
  } as GccEvent;
  f.append(serialize([env]), [env]);
  foldCall(state, env);
  ledger.lastId = env.id;
  const sig = f.appendedSig;
  ledger.logs[open] = { ...copyMeta(f.meta), sig: sig && Number(sig.split(':')[0]) === f.meta.size ? sig : '' };
  if (s.repo) ledger.head = headOf(s.repo);
  try {
    appendView(l, view, logEntry(env));
    ledger.views = { ...ledger.views, stamp: stampOf(ledger, state) };
  } catch (err) {
    // The views are caches: the checkpoint keeps naming the earlier state, so the next open rebuilds them.
    warnings.push(
      `the events were recorded, but the views could not be written (${String(err)}); ` +
        'they are rebuilt on the next operation',
    );
  }
  try {
    assertNoSymlink(l.root, l.ledger, undefined, false);
    writeLedger(l.ledger, ledger, new Set([LOCAL, open]), false, l.root);
  } catch (err) {
    warnings.push(
      `the events were recorded, but the ledger could not be written (${String(err)}); ` +
        'it is written again with the next operation',
    );
    return { slim: s, branch: currentBranch(state, session), message: d.message, warnings };
  }
  s.behind += 1;
  try {
    const logs: Record<string, { size: number; seq: number }> = {};
    for (const [name, e] of Object.entries(ledger.logs)) if (e.size > 0) logs[name] = { size: e.size, seq: e.seq };
    writeSummary(l, { epoch: ledger.epoch!, ledger: s.identity, logs, behind: s.behind, state });
  } catch {
    // A cache: the next hook takes the engine's path, which writes it again.
  }
  return { slim: s, branch: currentBranch(state, session), message: d.message, warnings };
}

function appendView(l: Layout, path: string, text: string): void {
  assertNoSymlink(l.root, path, undefined, false);
  const fd = openNoFollow(l.root, path, constants.O_WRONLY | constants.O_APPEND);
  try {
    const buf = Buffer.from(text, 'utf8');
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
  } finally {
    closeSync(fd);
  }
}

/** The pending work of the session's branch in `s`, as Memory.pendingWork gives it. */
export function slimPending(s: SlimState, session: string | undefined) {
  const b = s.state.branches[currentBranch(s.state, session)] ?? s.state.branches[MAIN]!;
  const files = Object.values(b.pending.files).sort((x, y) =>
    x.at < y.at ? 1 : x.at > y.at ? -1 : x.path < y.path ? -1 : 1,
  );
  return { edits: b.pending.edits, turns: b.pending.turns, files: files.map((f) => f.path) };
}
