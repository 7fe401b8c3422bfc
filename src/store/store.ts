/**
 * The event store: the segments under `.GCC/events/`, this clone's local log, the lock, the
 * ledger of what was acknowledged, and what is known of each log. It knows nothing of what
 * events mean beyond which kind of log takes them. Its work is in the files beside it: the
 * open's check (check.ts), catching up with other writers (catch-up.ts), appends (append.ts),
 * the merge of every log by id (stream.ts).
 *
 * Writers own their files: this clone appends to one open segment until it reaches
 * SEGMENT_MAX or git has seen it (staged or committed), then starts another, so no git
 * commit ever changes a file that another line of history may also change — every merge
 * path is a union of files, conflict-free by construction (docs/git.md).
 */
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import type { GccEvent, Placed } from '../events/types.js';
import { type GccError, gccError, messageOf } from '../errors.js';
import { assertEntrySize } from '../log/codec.js';
import { randomHex } from '../runtime/random.js';
import { appendBatch, appendOperation, ledgerNotWritten } from './append.js';
import { type CatchUp, catchUpLogs } from './catch-up.js';
import { type Checked, checkLogs } from './check.js';
import { type GitRepo, findRepo, headOf } from './git-probe.js';
import type { LogPlace } from './git-explain.js';
import {
  emptyLedger,
  type Ledger,
  type LedgerEntry,
  ledgerDamaged,
  readLedger,
  readViews,
  writeLedger,
} from './ledger.js';
import { foreignTail } from './intact.js';
import { FileLock, type LockOptions } from './lock.js';
import { copyMeta, signatureOf, statSignature } from './log-meta.js';
import { Journal, privateDir } from './journal.js';
import { LogFile } from './logfile.js';
import type { OpenStore } from './open-store.js';
import { assertNoSymlink, type Layout } from './paths.js';
import { differences, reconcileJournal, wantsTrim } from './journal-check.js';
import { LOCAL, listSegments } from './segments.js';
import { teammateSegment } from './set-aside.js';
import { mergeById } from './stream.js';
import { sleepSync } from '../runtime/sleep.js';

export { LOCAL } from './segments.js';
export type { CatchUp } from './catch-up.js';
export type { Checked } from './check.js';

export class Store implements OpenStore {
  readonly logs = new Map<string, LogFile>();
  readonly lock: FileLock;
  readonly repo: GitRepo | null;
  ledger: Ledger;
  /** True when no ledger was found: nothing on disk can be held against an acknowledgement. */
  readonly fresh: boolean;
  /** A ledger was there but cannot be read whole (one of its files gone, or torn): damage, not a fresh clone. */
  ledgerLost: boolean;
  /** What went wrong without failing an operation (the ledger could not be written after a durable append). */
  readonly warnings: string[] = [];
  /** The ledger on disk is behind the one in memory: the next write rewrites all of it. */
  private ledgerBehind = false;
  /** The ledger's live file's signature when this process last read or wrote it (null: unknown). */
  private ledgerSig: string | null;
  /** The locked operation in which the ledger on disk was last looked at (views()). */
  private ledgerLooked = -1;
  /** Within oneLedgerWrite: whether the ledger waits to be written, and its sealed part too. */
  private held: { write: boolean; sealedToo: boolean } | null = null;
  /**
   * The folders listed last (events/ and its months) and their modification times: a change in one means the logs may
   * have changed.
   */
  dirMtimes = new Map<string, number>();
  /** Folders already found real during the operation under way (withLock). */
  checked: Set<string> | undefined;
  /** Counts locked operations (withLock): what LogFile.seen is good for. */
  operation = 0;
  /** Where HEAD stood when this process last looked. */
  head: string | null = null;
  gitBusy: string | null = null;
  /** Called as a pass over much of the history starts (OpenOptions.onLongPass). */
  longPass: (() => void) | undefined;
  /** The copy of this clone's own logs in the git dir (journal.ts); null outside git. */
  readonly journal: Journal | null;
  /** Own segments a stash holds: read from their copy until it is popped or dropped (journal-check.ts). */
  readonly fromJournal = new Set<string>();
  /** A read without the lock found own logs differing from the journal (reconcileJournal). */
  journalPending = false;

  constructor(readonly layout: Layout) {
    this.lock = new FileLock(layout.lock);
    this.repo = findRepo(layout.root);
    const own = privateDir(layout.root, this.repo);
    this.journal = own ? new Journal(join(own, 'journal')) : null;
    this.ledgerSig = signatureOf(layout.ledger);
    let ledger = readLedger(layout.ledger);
    // Another process may be rewriting it this instant: damage is what is still there a moment later.
    for (let i = 0; i < 5 && ledger === null && ledgerDamaged(layout.ledger); i++) {
      sleepSync(5);
      this.ledgerSig = signatureOf(layout.ledger);
      ledger = readLedger(layout.ledger);
    }
    this.ledgerLost = ledger === null && ledgerDamaged(layout.ledger);
    this.fresh = ledger === null;
    this.ledger = ledger ?? emptyLedger();
    if (this.repo) this.head = headOf(this.repo);
  }

  /** Repair only: give up the damaged ledger, so the logs are acknowledged as they stand. */
  forgetLedger(): void {
    this.ledgerLost = false;
    this.ledger = emptyLedger();
    this.logs.clear();
  }

  /**
   * Whether the work tree may differ from the journal, or the journal wants trimming: asked without the lock or git.
   */
  journalDiffers(): boolean {
    return this.journal !== null && (differences(this).length > 0 || wantsTrim(this));
  }

  /** Whether the journal holds a log of the month folder `month`. */
  private journalUnder(month: string): boolean {
    return !month.includes('/') && (this.journal?.names().some((n) => n.startsWith(`${month}/`)) ?? false);
  }

  journaled(name: string): boolean {
    return this.journal?.size(name) != null;
  }

  /**
   * The work tree brought in line with the journal (journal-check.ts), under the lock: what the user is told. Without
   * it (`write` false) only which own logs are read from their copy is decided. Returns whether that set changed too.
   */
  reconcileJournal(now: Date, write = true): { said: string[]; moved: boolean } {
    if (!this.journal) return { said: [], moved: false };
    const names = differences(this);
    // Found without the lock: the next operation under it mends and says it, though nothing moves in between.
    this.journalPending = !write && names.length > 0;
    const before = new Set(this.fromJournal);
    const r = reconcileJournal(this, names, write && wantsTrim(this), now, write);
    // A log whose place to read changed is read afresh from there.
    const moved = [...before, ...this.fromJournal].filter((n) => before.has(n) !== this.fromJournal.has(n));
    for (const name of moved) this.logs.delete(name);
    if (r.ledgerChanged) this.acknowledge([], false, true);
    return { said: r.said, moved: moved.length > 0 };
  }

  /** Where a log stands for git-explain.ts: whether git may explain a change to it. */
  place(path: string, name: string): LogPlace {
    return { root: this.layout.root, inGit: this.repo !== null, path, acknowledged: this.ledger.logs[name] };
  }

  get local(): LogFile {
    return this.file(LOCAL);
  }

  /** The log of a name (a segment name or LOCAL), tracked from now on. */
  file(name: string): LogFile {
    let f = this.logs.get(name);
    if (!f) {
      const path = name === LOCAL ? this.layout.localLog : this.layout.segment(name);
      const read = this.fromJournal.has(name) && this.journal ? this.journal.pathOf(name) : path;
      f = new LogFile(name, read, relative(this.layout.root, path), this.layout.root);
      f.journal = read === path ? this.journal : null;
      this.logs.set(name, f);
    }
    return f;
  }

  /**
   * Segment names on disk, in name order; anything else in events/ is reported, never read
   * (segments.ts). The folders' times are kept, to tell whether anything moved since.
   */
  listSegments(warnings?: string[]): string[] {
    const own = (name: string) =>
      this.ledger.open?.startsWith(name) === true || this.journaled(name) || this.journalUnder(name);
    const { names, mtimes } = listSegments(this.layout, warnings, (name) => teammateSegment(this.layout, name, own));
    this.dirMtimes = mtimes;
    if (this.fromJournal.size === 0) return names;
    return [...new Set([...names, ...this.fromJournal])].sort();
  }

  /**
   * Every log on disk held against the ledger, on open (check.ts). `collect`: gather every damage rather than throw the
   * first.
   */
  check(now: number, collect?: GccError[]): Checked {
    return checkLogs(this, now, collect);
  }

  /**
   * What the ledger keeps of a log. The signature vouches for the acknowledged size only when
   * the file is exactly that size: another writer may have appended past what this process
   * read (its own open segment), and a signature of those bytes would let the next open trust
   * a size that leaves them unread. Otherwise it is left empty, and the next open reads on.
   */
  private entryOf(f: LogFile, justAppended = false): LedgerEntry {
    const sig = (justAppended ? f.appendedSig : null) ?? signatureOf(f.path);
    const vouches = sig !== null && Number(sig.slice(0, sig.indexOf(':'))) === f.meta.size;
    return { ...copyMeta(f.meta), sig: vouches ? sig : '' };
  }

  /**
   * Record logs as acknowledged. `all`: every log (after open found changes); otherwise only
   * `changed`, and the sealed part of the ledger is written only when its set changed.
   */
  acknowledge(
    changed: readonly LogFile[] | 'all',
    replaced = false,
    sealedChanged = false,
    justAppended = false,
  ): void {
    if (!this.lock.isHeld) throw gccError('E_INTERNAL', 'ledger written outside the lock');
    // The views' checkpoint written with it must be the one on disk, not an older one held here.
    this.views();
    let sealedToo = changed === 'all' || sealedChanged;
    if (changed === 'all') {
      const logs = Object.create(null) as Record<string, LedgerEntry>;
      for (const f of this.logs.values())
        if (f.meta.size > 0 || f.sizeOnDisk() !== null) logs[f.name] = this.entryOf(f);
      this.ledger.logs = logs;
    } else {
      for (const f of changed) {
        if (!(f.name in this.ledger.logs) || !this.live().has(f.name)) sealedToo = true;
        this.ledger.logs[f.name] = this.entryOf(f, justAppended);
      }
    }
    if (replaced || !this.ledger.epoch) this.ledger.epoch = randomHex(6);
    if (this.repo) this.ledger.head = this.head = headOf(this.repo);
    // An append's acknowledgement waits for the views' checkpoint (oneLedgerWrite).
    if (this.held && justAppended) {
      this.held.write = true;
      this.held.sealedToo ||= sealedToo;
      return;
    }
    this.writeLedger(sealedToo);
  }

  /** The ledger in memory, written (the sealed part too when its set changed, or when an earlier write failed). */
  private writeLedger(sealedToo: boolean): void {
    if (!this.checked) mkdirSync(this.layout.local, { recursive: true });
    const behind = this.ledgerBehind;
    this.ledgerBehind = true;
    // Its folders here; the files themselves are opened without following a link.
    assertNoSymlink(this.layout.root, this.layout.ledger, this.checked, false);
    this.ledgerSig = null;
    const st = writeLedger(this.layout.ledger, this.ledger, this.live(), sealedToo || behind, this.layout.root);
    this.ledgerSig = statSignature(st);
    this.ledgerBehind = false;
  }

  /**
   * The views' checkpoint as the ledger on disk holds it: read again only when the ledger's live
   * file changed since this process last read or wrote it (another process wrote it), and
   * looked at once per locked operation.
   */
  views(): Record<string, unknown> | null {
    if (this.checked && this.ledgerLooked === this.operation) return this.ledger.views;
    // The signature is taken first: a write landing between it and the read is read again next
    // time. A link in the ledger's place is not followed: no checkpoint, so the views are rebuilt.
    let st: Stats | null = null;
    try {
      st = lstatSync(this.layout.ledger);
    } catch {
      /* none */
    }
    const sig = st && !st.isSymbolicLink() ? statSignature(st) : null;
    // The ledger removed under this process (`git clean -fdx`): the next write writes all of it.
    if (sig === null && this.ledgerSig !== null) this.ledgerBehind = true;
    if (sig !== this.ledgerSig || sig === null) {
      const views = sig === null ? undefined : readViews(this.layout.ledger);
      this.ledger.views = views ?? null;
      // A file caught mid-write (another process rewriting it in place) is read again next time,
      // even if its signature then is the one taken now.
      this.ledgerSig = views === undefined ? null : sig;
    }
    if (this.checked) this.ledgerLooked = this.operation;
    return this.ledger.views;
  }

  /**
   * Record the views' checkpoint, under the lock: with the acknowledgement of the operation's
   * append when one is under way (oneLedgerWrite), else written now. A checkpoint that cannot be
   * written only makes the next open rebuild the views: said, not thrown.
   */
  saveViews(views: Record<string, unknown>): void {
    if (!this.lock.isHeld) throw gccError('E_INTERNAL', 'ledger written outside the lock');
    this.views();
    this.ledger.views = views;
    if (this.held) {
      this.held.write = true;
      return;
    }
    try {
      this.writeLedger(false);
    } catch (err) {
      this.warnings.push(
        `the views' checkpoint could not be written (${messageOf(err)}); the views are rebuilt on the next open`,
      );
    }
  }

  /**
   * Run an operation's append and its views with one write of the ledger at the end, holding
   * both the acknowledgement and the views' checkpoint. The events are durable before it: a
   * crash before the write leaves this clone's own log grown past the ledger, which the next
   * open acknowledges, and the views ahead of the checkpoint, which it rebuilds.
   */
  oneLedgerWrite<T>(fn: () => T): T {
    if (this.held) return fn();
    const held = { write: false, sealedToo: false };
    this.held = held;
    try {
      return fn();
    } finally {
      this.held = null;
      if (held.write) {
        try {
          this.writeLedger(held.sealedToo);
        } catch (err) {
          this.warnings.push(ledgerNotWritten(err));
        }
      }
    }
  }

  private live(): Set<string> {
    return new Set([LOCAL, ...(this.ledger.open ? [this.ledger.open] : [])]);
  }

  /** Catch up with what other writers appended since this process last looked (catch-up.ts). */
  catchUp(lastId: string, now?: number): CatchUp {
    return catchUpLogs(this, lastId, now);
  }

  /**
   * Every event of every log, in id order, a window of each log under way in memory at a time
   * (stream.ts), each with the log it was read from. `branch`: only that branch's events, from
   * the logs that hold any.
   */
  stream(visit: (e: GccEvent, file: LogFile) => void, now?: number, branch?: string): void {
    if (branch === undefined) this.longPass?.();
    const files = [...this.logs.values()].filter(
      (f) => f.unread || (f.meta.size > 0 && (branch === undefined || f.meta.branches[branch])),
    );
    mergeById(files, branch === undefined ? visit : (e, f) => e.branch === branch && visit(e, f), now);
    this.noteUnreadTails();
  }

  /** Read every log found on open but not read yet (a fold from a snapshot needs each log's extent). */
  readUnread(now?: number): void {
    if ([...this.logs.values()].some((f) => f.unread)) this.longPass?.();
    for (const f of this.logs.values()) if (f.unread) f.scan(() => undefined, now);
    this.noteUnreadTails();
  }

  private noteUnreadTails(): void {
    for (const f of this.logs.values()) {
      if (f.unreadTail === 0) continue;
      this.warnings.push(foreignTail(f, f.unreadTail));
      f.unreadTail = 0;
    }
  }

  async withLock<T>(fn: () => T | Promise<T>, opts?: LockOptions): Promise<T> {
    // Folders found real are not looked at again within one operation; each file still is.
    this.checked = new Set();
    this.operation++;
    // The lock file itself is created with O_EXCL, which never follows a link: its folders are checked.
    if (!assertNoSymlink(this.layout.root, this.layout.local, this.checked)) {
      mkdirSync(this.layout.local, { recursive: true });
      assertNoSymlink(this.layout.root, this.layout.local, this.checked);
    }
    await this.lock.acquire(opts);
    try {
      return await fn();
    } finally {
      this.lock.release();
      this.checked = undefined;
      this.ledgerLooked = -1;
    }
  }

  /** Append a batch to this clone's open segment or to the local log, durable and acknowledged (append.ts). */
  append(events: readonly Placed[], where: 'shared' | 'local', lastId: string, now: Date): GccEvent[] {
    assertEntrySize(events);
    return appendBatch(this, events, where, lastId, now);
  }

  /** One operation's shared and local events: both durable and acknowledged, or neither (append.ts). */
  appendOperation(shared: readonly Placed[], local: readonly Placed[], lastId: string, now: Date): GccEvent[] {
    assertEntrySize(shared);
    assertEntrySize(local);
    return appendOperation(this, shared, local, lastId, now);
  }
}
