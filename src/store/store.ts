/**
 * The event store: the segments under `.GCC/events/`, this clone's local log, the lock, the
 * ledger of what was acknowledged, ids, and appends. It knows nothing of what events mean
 * beyond which kind of log takes them.
 *
 * Writers own their files: this clone appends to one open segment until it reaches
 * SEGMENT_MAX or git has seen it (staged or committed), then starts another, so no git
 * commit ever changes a file that another line of history may also change — every merge
 * path is a union of files, conflict-free by construction (docs/git.md).
 */
import { randomHex } from '../runtime/random.js';
import { type Dirent, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type GccEvent, idTime, type Placed } from '../events/types.js';
import { GccError, gccError } from '../errors.js';
import { assertEntrySize, serialize } from '../log/codec.js';
import { type GitRepo, findRepo, gitPath, headOf, indexSignature, trackedUnder } from './git-probe.js';
import { explainChange, explainVanished, type LogPlace, takenByGit } from './git-explain.js';
import { emptyLedger, type Ledger, type LedgerEntry, ledgerDamaged, readLedger, writeLedger } from './ledger.js';
import { FileLock, type LockOptions } from './lock.js';
import { copyMeta, LogFile, type LogMeta, signatureOf } from './logfile.js';
import { assertNoSymlink, assertRealLayout, type Layout, linkRefused, MONTH_DIR, newSegmentName, SEGMENT_NAME } from './paths.js';
import { mergeById } from './stream.js';
import { FrozenLog, type Visit, Visits } from './visit.js';

/** The local log's name among the logs. */
export const LOCAL = 'local';
/** A segment takes no more appends past this size. */
export const SEGMENT_MAX = 1 << 20;
/** How far ahead of the clock another writer's ids may pull this clone's (see nextId). */
export const ID_SKEW_MS = 10 * 60 * 1000;

/**
 * The next id after `lastId` at `nowMs`: the later of now and just after the newest id seen,
 * so an event follows what it answers, and after `ownLastId`, so this clone's ids grow. An id
 * further ahead than ID_SKEW_MS is a clock running fast elsewhere (or a forged event): it does
 * not drag this clone's ids along.
 */
export function nextId(lastId: string, nowMs: number, ownLastId = ''): string {
  const t = idTime(lastId);
  const own = idTime(ownLastId);
  let ms = nowMs;
  if (Number.isFinite(t) && t <= nowMs + ID_SKEW_MS) ms = Math.max(ms, t + 1);
  if (Number.isFinite(own)) ms = Math.max(ms, own + 1);
  return ms.toString(16).padStart(12, '0') + randomHex(5);
}

export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}


export interface CatchUp {
  /** New events from every log, in id order. */
  added: GccEvent[];
  /** Logs changed other than by growing past what was folded: the caller replays from scratch. */
  reset: boolean;
  /** Logs this clone writes whose end holds an incomplete batch. */
  torn: LogFile[];
}

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
  warnings: string[];
}

const metaOf = (e: LedgerEntry): LogMeta => {
  const { sig: _sig, ...meta } = e;
  return copyMeta(meta);
};

export class Store {
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
  private dirMtimes = new Map<string, number>();
  /** Folders already found real during the operation under way (withLock). */
  private checked: Set<string> | undefined;
  private head: string | null = null;
  /** Whether the work tree holds a commit of the first layout that git tracks, and its read-only log (visit.ts). */
  private readonly visits: Visits;

  constructor(readonly layout: Layout) {
    this.lock = new FileLock(layout.lock);
    this.repo = findRepo(layout.root);
    this.visits = new Visits(layout, this.repo);
    const ledger = readLedger(layout.ledger);
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

  /** Set while the work tree holds a commit of the first layout that git tracks: nothing git tracks is changed then. */
  get visit(): Visit | null {
    return this.visits.visit;
  }

  /** The first layout's events join the logs as a read-only log while visiting, and leave when git moves on. */
  private lookForVisit(again: boolean): boolean {
    return this.visits.look(this.logs, () => this.local.meta.size === 0 && this.local.sizeOnDisk() === null, again);
  }

  private place(path: string, name: string): LogPlace {
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
      f = new LogFile(name, path, relative(this.layout.root, path), this.layout.root);
      this.logs.set(name, f);
    }
    return f;
  }

  /**
   * Segment names on disk, in name order; anything else in events/ is reported, never read. A
   * month folder or a segment that is a symbolic link is E_PATH_ESCAPE: it would be read as the
   * memory, and this clone's appends would land wherever it leads.
   */
  listSegments(warnings?: string[]): string[] {
    const out: string[] = [];
    const mtimes = new Map<string, number>();
    const rel = (path: string) => relative(this.layout.root, path);
    let months: Dirent[];
    try {
      if (lstatSync(this.layout.events).isSymbolicLink()) throw linkRefused(rel(this.layout.events));
      months = readdirSync(this.layout.events, { withFileTypes: true });
      mtimes.set(this.layout.events, statSync(this.layout.events).mtimeMs);
    } catch (err) {
      if (err instanceof GccError) throw err;
      this.dirMtimes = mtimes;
      return out;
    }
    for (const m of months.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const dir = join(this.layout.events, m.name);
      if (m.isSymbolicLink()) throw linkRefused(rel(dir));
      if (!MONTH_DIR.test(m.name)) {
        warnings?.push(`${rel(dir)} is not a memory file; gctx ignores it`);
        continue;
      }
      let names: Dirent[];
      try {
        names = readdirSync(dir, { withFileTypes: true });
        mtimes.set(dir, statSync(dir).mtimeMs);
      } catch {
        continue;
      }
      for (const n of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const name = `${m.name}/${n.name}`;
        if (n.isSymbolicLink()) throw linkRefused(rel(join(dir, n.name)));
        if (SEGMENT_NAME.test(name)) out.push(name);
        else if (!n.name.includes('.tmp-')) warnings?.push(`${rel(join(dir, n.name))} is not a memory segment; gctx ignores it`);
      }
    }
    this.dirMtimes = mtimes;
    return out;
  }

  /**
   * Every log on disk held against the ledger, on open. A log that vanished, shrank or whose
   * acknowledged bytes changed is E_CORRUPT naming it — unless git did it (HEAD moved, and git
   * holds what is there now): then its events are taken as they now stand. Logs of the two
   * newest months are looked at one by one; older months by their folder (a file added or
   * removed changes it), their bytes held against the ledger whenever they are read.
   */
  check(now: number, collect?: GccError[]): Checked {
    const damage: GccError[] = collect ?? [];
    const out: Checked = { added: [], replaced: [], grew: [], resigned: [], torn: [], warnings: [] };
    assertRealLayout(this.layout);
    this.lookForVisit(true);
    if (this.ledgerLost) {
      const e = gccError(
        'E_CORRUPT',
        `${relative(this.layout.root, this.layout.ledger)} (what this clone acknowledged) is missing or damaged, so the logs cannot be checked against it`,
        'run `gctx verify`, restore any log it names from git, then `gctx doctor --repair` to acknowledge the logs as they stand',
        { file: relative(this.layout.root, this.layout.ledger) },
      );
      if (!collect) throw e;
      damage.push(e);
    }
    const names = this.listSegments(out.warnings);
    const onDisk = new Set(names);
    const months = [...new Set(names.map((n) => n.slice(0, 7)))].sort();
    const recent = new Set(months.slice(-2));
    if (this.ledger.open) recent.add(this.ledger.open.slice(0, 7));
    const own = (name: string) => name === LOCAL || name === this.ledger.open;

    for (const name of Object.keys(this.ledger.logs)) {
      if (name === LOCAL || onDisk.has(name)) continue;
      const why = explainVanished(this.place(this.layout.segment(name), name));
      if (why === null) out.replaced.push(name);
      else damage.push(why);
    }
    for (const name of [...names, LOCAL]) {
      const f = this.file(name);
      const entry = this.ledger.logs[name];
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
          r = f.load(now);
        } catch (err) {
          damage.push(err instanceof GccError ? err : gccError('E_CORRUPT', String(err), 'run `gctx doctor --repair`', { file: f.rel }));
          this.logs.delete(name);
          continue;
        }
        out.added.push(name);
        if (r.tail) (own(name) ? out.torn.push(f) : out.warnings.push(`${f.rel} ends in an incomplete entry that this clone did not write; it is ignored`));
        continue;
      }
      if (name !== LOCAL && !recent.has(name.slice(0, 7))) {
        f.meta = metaOf(entry);
        continue;
      }
      if (f.sizeOnDisk() === null) {
        damage.push(gccError('E_CORRUPT', `${f.rel} vanished (it held ${entry.seq} acknowledged events)`, 'restore it (`git checkout -- <file>` if it was committed), or run `gctx doctor --repair` to record the loss', { file: f.rel }));
        continue;
      }
      if (signatureOf(f.path) === entry.sig) {
        f.meta = metaOf(entry);
        continue;
      }
      let r;
      try {
        r = f.load(now, entry.size);
      } catch (err) {
        const why = explainChange(this.place(f.path, f.name));
        if (why === null) out.replaced.push(name);
        else damage.push(err instanceof GccError ? err : why);
        continue;
      }
      const keeps = f.meta.size >= entry.size && r.prefixCrc === entry.crc;
      if (!keeps) {
        const why = explainChange(this.place(f.path, f.name));
        if (why === null) out.replaced.push(name);
        else damage.push(why);
        continue;
      }
      if (f.meta.size > entry.size) out.grew.push(name);
      else out.resigned.push(name);
      if (r.tail) (own(name) ? out.torn.push(f) : out.warnings.push(`${f.rel} ends in an incomplete entry that this clone did not write; it is ignored`));
    }
    if (damage.length && !collect) throw damage[0]!;
    for (const name of out.replaced) {
      if (!onDisk.has(name) && name !== LOCAL) this.logs.delete(name);
    }
    // A segment git took away or rewrote is no longer this clone's to write: another commit
    // holds it under that name, and a file written there would stop git from coming back.
    if (this.ledger.open && out.replaced.includes(this.ledger.open)) this.ledger.open = null;
    return out;
  }

  /** The ledger entry for a log as it stands. */
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
  acknowledge(changed: readonly LogFile[] | 'all', replaced = false, sealedChanged = false, justAppended = false): void {
    if (!this.lock.isHeld) throw gccError('E_INTERNAL', 'ledger written outside the lock');
    let sealedToo = changed === 'all' || sealedChanged || this.ledgerBehind;
    if (changed === 'all') {
      const logs = Object.create(null) as Record<string, LedgerEntry>;
      for (const f of this.logs.values()) if (!(f instanceof FrozenLog) && (f.meta.size > 0 || f.sizeOnDisk() !== null)) logs[f.name] = this.entryOf(f);
      this.ledger.logs = logs;
    } else {
      for (const f of changed) {
        if (!(f.name in this.ledger.logs) || !this.live().has(f.name)) sealedToo = true;
        this.ledger.logs[f.name] = this.entryOf(f, justAppended);
      }
    }
    if (replaced || !this.ledger.epoch) this.ledger.epoch = randomHex(6);
    if (this.repo) this.ledger.head = this.head = headOf(this.repo);
    if (!this.checked) mkdirSync(this.layout.local, { recursive: true });
    this.ledgerBehind = true;
    assertNoSymlink(this.layout.root, this.layout.ledger, this.checked);
    if (sealedToo) assertNoSymlink(this.layout.root, `${this.layout.ledger}.sealed`, this.checked);
    writeLedger(this.layout.ledger, this.ledger, this.live(), sealedToo);
    this.ledgerBehind = false;
  }

  private live(): Set<string> {
    return new Set([LOCAL, ...(this.ledger.open ? [this.ledger.open] : [])]);
  }

  /** Whether anything git or another writer does could have changed the logs since the last look. */
  private somethingMoved(): boolean {
    if (this.repo && headOf(this.repo) !== this.head) return true;
    for (const [dir, mtime] of this.dirMtimes) {
      try {
        if (statSync(dir).mtimeMs !== mtime) return true;
      } catch {
        return true;
      }
    }
    return this.dirMtimes.size === 0;
  }

  /**
   * Catch up with what other writers appended since this process last looked: the open
   * segment and the local log grow, and new segments appear (another writer rotated, or git
   * brought them). A segment that vanished, or new events older than the memory's newest,
   * ask the caller to replay from scratch.
   */
  catchUp(lastId: string, now?: number): CatchUp {
    const added: GccEvent[] = [];
    const torn: LogFile[] = [];
    let reset = false;
    const growing = new Set<LogFile>([this.local]);
    if (this.somethingMoved()) {
      const disk = readLedger(this.layout.ledger);
      if (disk) {
        // Another process of this clone rotated: the segment open before may have grown up to
        // the rotation since this process last read it.
        if (this.ledger.open && this.ledger.open !== disk.open && this.logs.has(this.ledger.open)) growing.add(this.file(this.ledger.open));
        this.ledger.open = disk.open;
        if (disk.lastId > this.ledger.lastId) this.ledger.lastId = disk.lastId;
        this.ledger.index = disk.index;
      }
      const names = new Set(this.listSegments());
      for (const name of names) if (!this.logs.has(name) || name === this.ledger.open) growing.add(this.file(name));
      // Git moved to or from a commit of the first layout: its events come or go.
      if (this.lookForVisit(false)) reset = true;
      for (const f of [...this.logs.values()]) {
        if (f.name !== LOCAL && !(f instanceof FrozenLog) && !names.has(f.name)) {
          if (f.meta.size > 0) {
            // Gone: damage, unless git took it away or the ledger (as it now stands: a repair
            // rewrites it) no longer holds it as acknowledged.
            if ((disk ?? this.ledger).logs[f.name]?.size) {
              const why = explainVanished(this.place(this.layout.segment(f.name), f.name));
              if (why) {
                this.dirMtimes.clear(); // look again next time: the damage stands until mended
                throw why;
              }
            }
            reset = true;
          }
          if (f.name === this.ledger.open) this.ledger.open = null;
          this.logs.delete(f.name);
        }
      }
      if (this.repo) this.head = headOf(this.repo);
    }
    if (this.ledger.open) growing.add(this.file(this.ledger.open));
    for (const f of growing) {
      const size = f.sizeOnDisk();
      if (size === null) {
        if (f.name === LOCAL && f.meta.size > 0 && this.acknowledgedSize(f) > 0) {
          throw gccError('E_CORRUPT', `${f.rel} vanished (it held ${f.meta.seq} acknowledged events)`, 'restore it from a backup, or run `gctx doctor --repair` to record the loss and go on', { file: f.rel });
        }
        continue;
      }
      if (size < f.meta.size) {
        // Shorter than this process read it: a writer taking back an append it never
        // acknowledged (a failed write or fsync) may do that, down to the acknowledged size;
        // below it, acknowledged events went missing, as check() finds at open.
        if (size < this.acknowledgedSize(f)) {
          const why = explainChange(this.place(f.path, f.name));
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

  /** What the ledger on disk (another process of this clone may have written it since) holds as acknowledged of a log. */
  private acknowledgedSize(f: LogFile): number {
    return (readLedger(this.layout.ledger) ?? this.ledger).logs[f.name]?.size ?? 0;
  }

  /**
   * Every event of every log, in id order, a window of each log under way in memory at a time
   * (stream.ts). `branch`: only that branch's events, from the logs that hold any.
   */
  stream(visit: (e: GccEvent) => void, now?: number, branch?: string): void {
    const files = [...this.logs.values()].filter((f) => f.unread || (f.meta.size > 0 && (branch === undefined || f.meta.branches[branch])));
    mergeById(files, branch === undefined ? visit : (e) => e.branch === branch && visit(e), now);
    this.noteUnreadTails();
  }

  /** Read every log found on open but not read yet (a fold from a snapshot needs each log's extent). */
  readUnread(now?: number): void {
    for (const f of this.logs.values()) if (f.unread) f.scan(() => undefined, now);
    this.noteUnreadTails();
  }

  private noteUnreadTails(): void {
    for (const f of this.logs.values()) {
      if (f.unreadTail === 0) continue;
      f.unreadTail = 0;
      this.warnings.push(`${f.rel} ends in an incomplete entry that this clone did not write; it is ignored`);
    }
  }

  async withLock<T>(fn: () => T | Promise<T>, opts?: LockOptions): Promise<T> {
    // Folders found real are not looked at again within one operation; each file still is.
    this.checked = new Set();
    // The lock file itself is created with O_EXCL, which never follows a link: its folders are checked.
    if (!existsSync(this.layout.local)) mkdirSync(this.layout.local, { recursive: true });
    assertNoSymlink(this.layout.root, this.layout.local, this.checked);
    await this.lock.acquire(opts);
    try {
      return await fn();
    } finally {
      this.lock.release();
      this.checked = undefined;
    }
  }

  /**
   * The segment this clone appends to: the open one while it is under SEGMENT_MAX, still as
   * this clone left it, and unknown to git; otherwise a new one. An open segment left empty
   * (its first append failed, or its torn first batch was set aside) is used again rather than
   * left behind as an empty file, unless git has seen it.
   *
   * A new segment is named in the ledger before its first byte is written: a crash in the
   * middle of that first append must leave a file this clone knows as its own, so the next
   * open sets the torn batch aside (a file not named as ours is another clone's, whose torn
   * tail is only ignored — and would stay in the history for good).
   */
  private writable(now: Date): { file: LogFile; rotated: boolean } {
    const open = this.ledger.open;
    if (open) {
      const f = this.file(open);
      const size = f.sizeOnDisk();
      if (size === f.meta.size && f.meta.size > 0 && f.meta.size < SEGMENT_MAX && !this.gitHasSeen(f)) return { file: f, rotated: false };
      if (f.meta.size === 0 && ((size === null && !this.takenByGit(f)) || (size === 0 && !this.gitHasSeen(f)))) return { file: f, rotated: false };
    }
    for (;;) {
      const name = newSegmentName(now, randomHex(3));
      if (this.logs.has(name)) continue;
      const f = this.file(name);
      if (f.sizeOnDisk() === null) {
        this.ledger.open = name;
        try {
          this.acknowledge([], false, true);
        } catch (err) {
          this.ledger.open = open;
          this.logs.delete(name);
          throw err;
        }
        return { file: f, rotated: true };
      }
    }
  }

  /**
   * Whether git took the segment away (some commit holds it, the work tree and index do not):
   * a checkout of an older commit. Written again under that name, it would stop git from
   * coming back. Asked only of an open segment that is missing.
   */
  private takenByGit(f: LogFile): boolean {
    return this.repo !== null && takenByGit(this.layout.root, gitPath(this.layout.root, f.path));
  }

  /** Whether git's index holds the segment; asked of git only when the index changed since. */
  private gitHasSeen(f: LogFile): boolean {
    if (!this.repo) return false;
    const sig = indexSignature(this.repo);
    if (sig === null || sig === this.ledger.index) return false;
    const tracked = trackedUnder(this.layout.root, this.layout.events);
    this.ledger.index = sig;
    // Unknown (git failed): a new segment is always safe.
    return tracked === null || tracked.has(gitPath(this.layout.root, f.path));
  }

  /**
   * Append a batch to this clone's open segment (shared events) or to the local log, in one
   * write with fsync, and acknowledge it. Under the lock, after catchUp. `lastId`: the
   * memory's newest id, which the batch's ids follow.
   */
  append(events: readonly Placed[], where: 'shared' | 'local', lastId: string, now: Date): GccEvent[] {
    assertEntrySize(events);
    const w = this.write(events, where, lastId, now);
    if (w) this.acknowledgeWrites([w]);
    return w?.envelopes ?? [];
  }

  /**
   * One operation's shared and local events: both durable and acknowledged, or neither. The
   * shared batch is written first; if the local one then fails, the shared one is taken back
   * before the error is reported, so a failed operation leaves no trace.
   */
  appendOperation(shared: readonly Placed[], local: readonly Placed[], lastId: string, now: Date): GccEvent[] {
    assertEntrySize(shared);
    assertEntrySize(local);
    const newest = this.ledger.lastId;
    const s = this.write(shared, 'shared', lastId, now);
    let l: Written | null;
    try {
      l = this.write(local, 'local', s ? s.envelopes[s.envelopes.length - 1]!.id : lastId, now);
    } catch (err) {
      if (s) {
        this.ledger.lastId = newest;
        try {
          s.file.takeBack(s.before);
        } catch {
          // Left in place, the batch is a whole one in this clone's own segment: the next open
          // acknowledges it as grown. Said, since the operation is reported as failed.
          this.warnings.push(`${s.file.rel}: an operation that failed could not be taken back; its shared events may appear`);
        }
      }
      throw err;
    }
    const done = [s, l].filter((w): w is Written => w !== null);
    this.acknowledgeWrites(done);
    return done.flatMap((w) => w.envelopes);
  }

  /** Write a batch (durable, not yet acknowledged). */
  private write(events: readonly Placed[], where: 'shared' | 'local', lastId: string, now: Date): Written | null {
    if (!this.lock.isHeld) throw gccError('E_INTERNAL', 'append outside the lock');
    if (events.length === 0) return null;
    // The file is held against what is known of it as it is opened for the append (LogFile.append).
    const { file: f, rotated } = where === 'local' ? { file: this.local, rotated: false } : this.writable(now);
    const before = copyMeta(f.meta);
    let id = lastId;
    const at = now.toISOString();
    const envelopes = events.map((ev, i) => {
      id = nextId(id, now.getTime(), this.ledger.lastId);
      const env = { id, seq: f.meta.seq + i + 1, at, branch: ev.branch, type: ev.type, data: ev.data } as GccEvent;
      const more = events.length - 1 - i;
      if (more > 0) env.more = more;
      return env;
    });
    f.append(serialize(envelopes), envelopes, this.checked);
    this.ledger.lastId = envelopes[envelopes.length - 1]!.id;
    return { file: f, rotated, envelopes, before };
  }

  /**
   * Only what was written is acknowledged anew; on a rotation the segment left behind moves to
   * the sealed part of the ledger as it was last acknowledged. The batches are durable now, so
   * the operation stands even if the ledger cannot be written (a full disk): failing it would
   * report as lost events that the next read finds. A ledger behind the logs only means this
   * clone's own segment grew since, which the next open acknowledges; the next write of the
   * ledger rewrites all of it.
   */
  private acknowledgeWrites(done: readonly Written[]): void {
    const rotated = done.some((w) => w.rotated);
    try {
      this.acknowledge(done.map((w) => w.file), false, rotated, true);
    } catch (err) {
      this.warnings.push(`the events were recorded, but the ledger could not be written (${err instanceof Error ? err.message : String(err)}); it is written again with the next operation`);
    }
    if (rotated) this.listSegments();
  }
}

/** A batch written by this process and not yet acknowledged. */
interface Written {
  file: LogFile;
  rotated: boolean;
  envelopes: GccEvent[];
  /** What was known of the file before: what takeBack restores. */
  before: LogMeta;
}
