/**
 * The event store: every log.md of a memory, the lock, ids and appends with an expected
 * sequence. It knows nothing of what events mean beyond which branches have logs.
 */
import { randomBytes } from 'node:crypto';
import { type GccEvent, MAIN, type NewEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { serialize } from '../log/codec.js';
import { FileLock, type LockOptions } from './lock.js';
import { LogFile, type LogIdentity } from './logfile.js';
import { assertNoSymlink, type Layout } from './paths.js';
import { streamLogs } from './stream.js';

export interface CatchUp {
  /** New events from every log, in id order. */
  added: GccEvent[];
  /** A log changed other than by appending: the caller must replay from scratch. */
  reset: boolean;
  /** Logs whose end holds an incomplete batch. */
  torn: LogFile[];
}

/** Ids sort by time, then by a random tail; under the lock they only ever grow. */
export function nextId(lastId: string, nowMs: number): string {
  const last = lastId ? Number.parseInt(lastId.slice(0, 12), 16) : 0;
  const ms = Math.max(nowMs, Number.isFinite(last) ? last + 1 : 0);
  return ms.toString(16).padStart(12, '0') + randomBytes(5).toString('hex');
}

/** Quiet logs looked at per catch-up when nothing else changed (see Store.catchUp). */
export const QUIET_PER_CATCH_UP = 8;

export function byId(a: GccEvent, b: GccEvent): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class Store {
  readonly logs = new Map<string, LogFile>();
  readonly lock: FileLock;
  /** allEvents() until the logs change: opening a memory asks for it more than once. */
  private sorted: GccEvent[] | null = null;

  constructor(readonly layout: Layout) {
    this.lock = new FileLock(layout.lock);
    this.track(MAIN);
  }

  /** `checked`: folders already found real in this pass (see assertNoSymlink). */
  track(branch: string, checked?: Set<string>): LogFile {
    let log = this.logs.get(branch);
    if (!log) {
      const path = this.layout.logOf(branch);
      assertNoSymlink(this.layout.root, path, checked);
      log = new LogFile(branch, path, this.layout.root);
      this.logs.set(branch, log);
    }
    return log;
  }

  /** Trust a snapshot's view of every log, or of none (then the caller reads from scratch). */
  restore(logs: readonly LogIdentity[]): boolean {
    const restored: LogFile[] = [];
    this.sorted = null;
    for (const id of logs) {
      const log = new LogFile(id.branch, this.layout.logOf(id.branch), this.layout.root);
      if (!log.restore(id)) return false;
      restored.push(log);
    }
    for (const log of restored) {
      assertNoSymlink(this.layout.root, log.path);
      this.logs.set(log.branch, log);
    }
    return true;
  }

  identities(): LogIdentity[] {
    return [...this.logs.values()].map((l) => l.identity());
  }

  /** Every event of every log in id order (the replay order). Read-only: it is shared. */
  allEvents(): readonly GccEvent[] {
    if (this.sorted) return this.sorted;
    const all: GccEvent[] = [];
    for (const log of this.logs.values()) for (const e of log.events) all.push(e);
    return (this.sorted = all.sort(byId));
  }

  /** Events held across all logs (a log's sequence counts its events). */
  private count(): number {
    let n = 0;
    for (const log of this.logs.values()) n += log.seq;
    return n;
  }

  /**
   * Read every log from scratch, handing each event to `visit` in id order and keeping
   * none (see stream.ts), and report logs with a torn tail. Only before anything was read;
   * null when the logs cannot be streamed, after which `visit` must be considered to have
   * seen nothing and the caller reads with catchUp().
   */
  stream(visit: (e: GccEvent) => void): { torn: LogFile[] } | null {
    if (this.count() !== 0) return null;
    const checked = new Set<string>();
    const read = streamLogs(this.logs.get(MAIN)!, (branch) => this.track(branch, checked), visit);
    if (!read) return null;
    for (const r of read) r.log.markRead(r.validLength, r.lastSeq, r.ino);
    this.sorted = null;
    return { torn: read.filter((r) => r.end > r.validLength).map((r) => r.log) };
  }

  /**
   * Read what other writers appended, discovering branch logs as their creation is seen.
   *
   * Every log costs a stat, which on a long history (hundreds of branches) made each
   * operation grow with it. Logs that `quiet` names (closed branches: gctx never appends
   * to them) are only looked at all together when any other log changed underneath this
   * process — another writer or git is at work — and otherwise a few per call in turn, so
   * a change that touched nothing else (a pull that only extended a closed branch) is
   * still seen within a bounded number of operations.
   */
  catchUp(quiet?: (branch: string) => boolean): CatchUp {
    this.looked.clear();
    const fresh = this.count() === 0;
    const added: GccEvent[] = [];
    const torn: LogFile[] = [];
    let reset = false;
    const checked = new Set<string>();
    const read = (pending: LogFile[]): void => {
      while (pending.length) {
        const log = pending.pop()!;
        this.looked.add(log);
        const r = log.refresh();
        if (r.reset) reset = true;
        if (r.tail.length) torn.push(log);
        const seen = r.reset ? log.events : r.added;
        for (const e of seen) {
          if (!r.reset) added.push(e);
          if (e.type === 'branch.created' && !this.logs.has(e.data.name)) pending.push(this.track(e.data.name, checked));
        }
      }
    };
    const all = [...this.logs.values()];
    const calm = quiet && !fresh && !this.lookAtAll ? all.filter((l) => quiet(l.branch)) : [];
    this.lookAtAll = false;
    read(calm.length ? all.filter((l) => !quiet!(l.branch)) : all);
    if (calm.length) read(reset || added.length || torn.length ? calm : this.turnOf(calm));
    added.sort(byId);
    if (reset || added.length) this.sorted = fresh && !reset ? added : null;
    return { added, reset, torn };
  }

  private quietTurn = 0;
  private lookAtAll = false;
  /** Logs the last catch-up looked at: an append to any other must look first. */
  private readonly looked = new Set<LogFile>();

  /** The next few quiet logs, round-robin. */
  private turnOf(calm: LogFile[]): LogFile[] {
    if (calm.length <= QUIET_PER_CATCH_UP) return calm;
    const start = this.quietTurn % calm.length;
    this.quietTurn = start + QUIET_PER_CATCH_UP;
    const turn = calm.slice(start, start + QUIET_PER_CATCH_UP);
    if (turn.length < QUIET_PER_CATCH_UP) turn.push(...calm.slice(0, QUIET_PER_CATCH_UP - turn.length));
    return turn;
  }

  async withLock<T>(fn: () => T | Promise<T>, opts?: LockOptions): Promise<T> {
    await this.lock.acquire(opts);
    try {
      return await fn();
    } finally {
      this.lock.release();
    }
  }

  /**
   * Append a batch to one branch's log. Must run under the lock, after catchUp. Fails with
   * E_CONFLICT when the log is not at the sequence the decision was made against.
   */
  append(branch: string, events: readonly NewEvent[], expectedSeq: number, lastId: string, now: Date): GccEvent[] {
    if (!this.lock.isHeld) throw gccError('E_INTERNAL', 'append outside the lock');
    const log = this.track(branch);
    // A quiet log skipped by the last catch-up may have grown since: never append on a
    // sequence that was not read (appending past unseen entries would repeat their seqs).
    if (!this.looked.has(log) && log.changedOnDisk()) {
      this.lookAtAll = true;
      throw gccError('E_CONFLICT', `log of ${branch} changed since it was last read`, 'read the memory again and retry the operation');
    }
    if (log.seq !== expectedSeq) {
      throw gccError('E_CONFLICT', `log of ${branch} is at sequence ${log.seq}, expected ${expectedSeq}`, 'read the memory again and retry the operation');
    }
    let id = lastId;
    const at = now.toISOString();
    const envelopes = events.map((ev, i) => {
      id = nextId(id, now.getTime());
      const env = { id, seq: expectedSeq + i + 1, at, branch, type: ev.type, data: ev.data } as GccEvent;
      const more = events.length - 1 - i;
      if (more > 0) env.more = more;
      return env;
    });
    log.append(serialize(envelopes), envelopes);
    this.sorted = null;
    return envelopes;
  }
}
