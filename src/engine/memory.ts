/**
 * Memory: one project's `.GCC/`, opened. It ties the store (logs, lock), the decider, the
 * fold and the projection writer together:
 *
 *   lock → catch up with other writers → adopt hand edits → decide → append (fsync)
 *        → fold → write the projections the batch touched → unlock
 *
 * Reads catch up without the lock. Every public method returns data or throws GccError.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from '../decider/commands.js';
import { decideRecord } from '../decider/decide-records.js';
import { currentBranch, type DecideContext, type Decision, isBranchCommand, isRecordCommand, unknownCommand } from '../decider/decision.js';
import { type Config, DEFAULT_CONFIG, FORMAT_VERSION, type GccEvent, MAIN, type NewEvent } from '../events/types.js';
import { asGccError, gccError } from '../errors.js';
import { freeze } from 'immer';
import { evolve, replay as replayEvents, replayer } from '../projections/evolve.js';
import { incrementalWrites } from '../projections/files.js';
import { initialState, type MemoryState } from '../projections/state.js';
import { layout, type Layout } from '../store/paths.js';
import { readSnapshot, SNAPSHOT_FORMAT, writeSnapshot } from '../store/snapshot.js';
import { type CatchUp, Store } from '../store/store.js';
import { reconcileEdits, rebuildProjections, setAsideUnexplained } from './reconcile.js';
import { type Problem, replayMemory, verifyMemory } from './verify.js';
import { ProjectionWriter } from './writer.js';
import { briefing } from '../context/briefing.js';
import { type ContextAnswer, type ContextQuery, contextQuery } from '../context/query.js';

export interface OpenOptions {
  /** Create `.GCC/` when missing (as `gctx init` does). */
  create?: boolean;
  /** Clock, injectable for tests. */
  now?: () => Date;
  /** Give up waiting for another process's lock after this long. */
  lockTimeoutMs?: number;
  /** Session used when a call names none. */
  session?: string;
  /**
   * Whether a projection file on disk is exactly what version control checked out (the git
   * hooks pass this). Consulted only after the logs changed underneath gctx: such a file is
   * replaced by a fresh render instead of being kept aside as a possible hand edit.
   */
  checkedOut?: (path: string) => boolean;
}

export interface ExecuteOptions {
  session?: string | undefined;
  /** Fail with E_CONFLICT unless the target log is at this sequence. */
  expectedSeq?: number;
}

export interface ExecResult {
  events: GccEvent[];
  /** The session's branch after the operation. */
  branch: string;
  message: string;
}

/** Events a long-lived process may run ahead of the snapshot before it writes a new one. */
const SNAPSHOT_EVERY = 200;
/** Events behind the snapshot that make a closing process write a new one. */
const SNAPSHOT_ON_CLOSE = 32;

export const GITIGNORE = '.cache/\n.lock\n.lock.break\n*.tmp-*\nquarantine/\n';

export class Memory {
  private _state: MemoryState = initialState();
  /** Event count the snapshot on disk reflects (-1: none written by this process). */
  private snapshotAt = -1;
  /** Whether reading the logs at open found a torn tail (settled under the lock). */
  private tornAtOpen = false;
  /** Every commit.recorded event in id order, once known: commit.md files render from it. */
  private commitEvents: GccEvent[] | null = null;
  readonly warnings: string[] = [];
  private readonly writer: ProjectionWriter;
  private readonly now: () => Date;

  private constructor(
    readonly layout: Layout,
    private readonly store: Store,
    private readonly opts: OpenOptions,
  ) {
    this.writer = new ProjectionWriter(layout);
    this.now = opts.now ?? (() => new Date());
  }

  get root(): string {
    return this.layout.root;
  }
  get gccDir(): string {
    return this.layout.gcc;
  }
  get state(): MemoryState {
    return this._state;
  }
  get config(): Config {
    return this._state.config;
  }

  static async open(dir: string, opts: OpenOptions = {}): Promise<Memory> {
    const l = layout(resolve(dir));
    let exists = false;
    try {
      const st = lstatSync(l.gcc);
      if (st.isSymbolicLink()) throw gccError('E_PATH_ESCAPE', '.GCC is a symbolic link', 'replace it with a real folder; memory never follows links out of the project');
      exists = st.isDirectory();
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw asGccError(err);
    }
    if (!exists && !existsSync(l.logOf(MAIN))) {
      if (!opts.create) throw gccError('E_NOT_INITIALIZED', `no memory in ${l.root}`, 'run `gctx init` in the project folder (or pass --dir)');
    }
    const m = new Memory(l, new Store(l), opts);
    try {
      if (!existsSync(l.logOf(MAIN))) await m.initialize();
      m.load();
      await m.settle();
    } catch (err) {
      throw asGccError(err);
    }
    return m;
  }

  private async initialize(): Promise<void> {
    mkdirSync(this.layout.gcc, { recursive: true });
    if (!existsSync(`${this.layout.gcc}/.gitignore`)) writeFileSync(`${this.layout.gcc}/.gitignore`, GITIGNORE);
    await this.store.withLock(() => {
      this.store.catchUp();
      if (this.store.logs.get(MAIN)!.seq > 0) return;
      const events: NewEvent[] = [{ type: 'memory.initialized', data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } } }];
      this.store.append(MAIN, events, 0, '', this.now());
    }, this.lockOpts());
  }

  private lockOpts() {
    return { timeoutMs: this.opts.lockTimeoutMs ?? 30_000, onStale: (h: { pid: number }) => this.warnings.push(`took over a stale lock left by dead process ${h.pid}`) };
  }

  /**
   * Fold every log: from the snapshot plus what was appended since, or from scratch —
   * streamed, so a long history is never held whole, unless the logs cannot be streamed.
   */
  private load(): void {
    const snap = readSnapshot(this.layout);
    if (snap && this.store.restore(snap.logs)) {
      this._state = freeze(snap.state, true);
      const cu = this.store.catchUp();
      this._state = cu.reset ? replayEvents(this.store.allEvents()) : evolve(this._state, cu.added);
      this.snapshotAt = cu.reset ? -1 : snap.state.events;
      this.noteEvents(cu.added, cu.reset);
      this.tornAtOpen = cu.torn.length > 0;
      return;
    }
    const fold = replayer();
    const commits: GccEvent[] = [];
    const streamed = this.store.stream((e) => {
      fold.add(e);
      if (e.type === 'commit.recorded') commits.push(e);
    });
    if (streamed) {
      this._state = fold.state();
      this.commitEvents = commits;
      this.tornAtOpen = streamed.torn.length > 0;
    } else {
      this.tornAtOpen = this.store.catchUp().torn.length > 0;
      this._state = replayEvents(this.store.allEvents());
    }
  }

  /** Commit events in id order, from what is known or, failing that, from the logs. */
  private commits(): readonly GccEvent[] {
    this.commitEvents ??= this.store.allEvents().filter((e) => e.type === 'commit.recorded');
    return this.commitEvents;
  }

  /** Keep the known commits in step with events folded into the state. */
  private noteEvents(added: readonly GccEvent[], reset: boolean): void {
    if (reset) this.commitEvents = null;
    const known = this.commitEvents;
    if (!known) return;
    for (const e of added) {
      if (e.type !== 'commit.recorded') continue;
      if (known.length && e.id <= known[known.length - 1]!.id) {
        this.commitEvents = null; // out of order: rebuilt from the logs when next needed
        return;
      }
      known.push(e);
    }
  }

  /**
   * Keep the snapshot close enough behind that an open never folds many events. On close,
   * a few events behind is close enough: a hook process appends one event and exits, and
   * rewriting the whole state for it would make every tool call pay for the history.
   */
  private saveSnapshot(closing: boolean): void {
    const behind = this._state.events - this.snapshotAt;
    const enough = !closing ? SNAPSHOT_EVERY : this.snapshotAt < 0 ? 1 : SNAPSHOT_ON_CLOSE;
    if (behind < enough) return;
    try {
      writeSnapshot(this.layout, { format: SNAPSHOT_FORMAT, logs: this.store.identities(), state: this._state });
      this.snapshotAt = this._state.events;
    } catch {
      /* a cache: a read-only or full disk only costs the next open some time */
    }
  }

  /** Branches gctx no longer appends to: their logs are looked at less often (Store.catchUp). */
  private readonly closed = (branch: string): boolean => {
    const b = this._state.branches[branch];
    return branch !== MAIN && b !== undefined && b.status !== 'active';
  };

  /** Catch up with other writers; replays from scratch when a log was rewritten. */
  refresh(): CatchUp {
    const cu = this.store.catchUp(this.closed);
    if (cu.reset) this._state = replayEvents(this.store.allEvents());
    else this._state = evolve(this._state, cu.added);
    this.noteEvents(cu.added, cu.reset);
    return cu;
  }

  /** On open: quarantine torn tails, bring projections up to date, adopt hand edits. */
  private async settle(): Promise<void> {
    const torn = this.tornAtOpen;
    const stale = this.writer.readCheckpoint() !== this.stamp();
    if (!torn && !stale && !this.editsPending()) return;
    try {
      await this.store.withLock(() => this.settleLocked(true), this.lockOpts());
    } catch (err) {
      const e = asGccError(err);
      if (e.code !== 'E_READ_ONLY') throw e;
      this.warnings.push(`memory is read-only: ${e.message}; projections were not refreshed`);
    }
  }

  private editsPending(): boolean {
    return reconcileEdits(this.layout, this.writer, this._state, () => this.nonce(), true).dirty || !this.writer.hasSeen(this.layout.mainMd);
  }

  private settleLocked(full: boolean): void {
    const cu = this.refresh();
    for (const log of cu.torn) {
      const moved = log.quarantine(this.layout.quarantine, this.now());
      if (moved) this.warnings.push(`a torn entry at the end of ${log.rel} (a crash mid-write) was moved to ${moved}`);
    }
    // Logs that changed other than through gctx (a git checkout, merge, rebase or reset, or
    // a crash between an append and its projections) leave projections on disk that belong
    // to other logs. Reading them as a person's edits would turn a pull into bogus events
    // (objectives "removed" because the other side's main.md lacks them), so they are only
    // rebuilt; a file that matches neither what gctx last wrote nor the new render is kept
    // aside, unless git vouches that it is exactly what it checked out.
    const logsReplaced = this.writer.readCheckpoint() !== this.stamp();
    let dirty = false;
    if (logsReplaced) {
      this.warnings.push(...setAsideUnexplained(this.layout, this.writer, this._state, this.opts.checkedOut));
    } else {
      const adoption = reconcileEdits(this.layout, this.writer, this._state, () => this.nonce(), false);
      this.warnings.push(...adoption.warnings);
      if (adoption.events.length) this.appendAndProject(MAIN, adoption.events, undefined);
      dirty = adoption.dirty;
    }
    if (full || logsReplaced || dirty) rebuildProjections(this.layout, this.writer, this._state, this.commits());
    this.writer.checkpoint(this.stamp());
  }

  /**
   * What the projections were last written for: the newest event id and the event count.
   * The count matters after a union where our newest event stays the newest overall.
   */
  private stamp(): string {
    return `${this._state.lastId} ${this._state.events}`;
  }

  private nonce(): string {
    return randomBytes(8).toString('hex');
  }

  private appendAndProject(log: string, events: NewEvent[], expectedSeq: number | undefined): GccEvent[] {
    const file = this.store.track(log);
    const appended = this.store.append(log, events, expectedSeq ?? file.seq, this._state.lastId, this.now());
    this._state = evolve(this._state, appended);
    this.noteEvents(appended, false);
    for (const e of appended) if (e.type === 'branch.created') this.store.track(e.data.name).touch();
    this.saveSnapshot(false);
    try {
      const writes = incrementalWrites(this.layout, this._state, appended);
      this.writer.apply(writes);
      if (writes.has(this.layout.mainMd)) this.writer.markSeen(this.layout.mainMd);
      if (writes.has(this.layout.metadata)) this.writer.markSeen(this.layout.metadata);
      this.writer.checkpoint(this.stamp());
    } catch (err) {
      // The events are durable, so the operation stands: failing it now would make a caller
      // retry and record it twice. Projections are caches; the checkpoint still names the
      // earlier state, so the next operation or open rebuilds them.
      this.warnings.push(`the events were recorded, but projections could not be written (${asGccError(err).message}); they are rebuilt on the next operation`);
    }
    return appended;
  }

  currentBranch(session?: string): string {
    return currentBranch(this._state, session ?? this.opts.session);
  }

  pendingWork(session?: string): { edits: number; turns: number; files: string[] } {
    const b = this._state.branches[this.currentBranch(session)]!;
    return { edits: b.pending.edits, turns: b.pending.turns, files: Object.keys(b.pending.files).sort() };
  }

  async execute(cmd: Command, opts: ExecuteOptions = {}): Promise<ExecResult> {
    const session = opts.session ?? this.opts.session;
    try {
      // The branch machines load on the first branch command: a process that only records
      // (every hook invocation) never pays for xstate.
      const branchDecider = isBranchCommand(cmd) ? (await import('../decider/decide-branches.js')).decideBranchCommand : undefined;
      return await this.store.withLock(() => {
        this.settleLocked(false);
        const d = this.decide(cmd, { session, nonce: this.nonce() }, branchDecider);
        if (!d.ok) throw d.error;
        const events = this.appendAndProject(d.log, d.events, opts.expectedSeq);
        return { events, branch: this.currentBranch(session), message: d.message };
      }, this.lockOpts());
    } catch (err) {
      throw asGccError(err);
    }
  }

  /** CONTEXT at any level, inside a token budget. Catches up with other writers first. */
  context(q: ContextQuery, opts: { session?: string; budget?: number } = {}): ContextAnswer {
    this.refresh();
    const src = { state: this._state, eventsOf: (b: string) => this.eventsOf(b), allEvents: () => this.events() };
    return contextQuery(src, q, { session: opts.session ?? this.opts.session, budget: opts.budget });
  }

  /** The session briefing: under 1,000 tokens whatever the history. */
  briefing(opts: { session?: string; budget?: number } = {}): string {
    this.refresh();
    return briefing(this._state, opts.session ?? this.opts.session, opts.budget);
  }

  /** Integrity of every log and agreement of every projection with a replay. */
  verify(): Problem[] {
    this.refresh();
    return verifyMemory(this.layout, this.store);
  }

  /** Rewrite every projection from the logs; differing files are kept aside first. */
  async replay(): Promise<{ written: string[]; kept: string[] }> {
    return this.store.withLock(() => {
      this.refresh();
      // From the logs, not from the state in hand: replay is the repair for a bad cache too.
      const events = this.store.allEvents();
      const r = replayMemory(this.layout, replayEvents(events), events);
      this.writer.markSeen(this.layout.mainMd);
      this.writer.markSeen(this.layout.metadata);
      this.writer.checkpoint(this.stamp());
      return r;
    }, this.lockOpts());
  }

  private decide(cmd: Command, ctx: DecideContext, branchDecider: typeof import('../decider/decide-branches.js').decideBranchCommand | undefined): Decision {
    if (isBranchCommand(cmd) && branchDecider) return branchDecider(this._state, cmd, ctx);
    if (isRecordCommand(cmd)) return decideRecord(this._state, cmd, ctx);
    return unknownCommand(cmd);
  }

  /** Every event of every log, in replay (id) order. */
  events(): readonly GccEvent[] {
    return this.store.allEvents();
  }

  /** The events of one branch's log, in file order. */
  eventsOf(branch: string): readonly GccEvent[] {
    return this.store.logs.get(branch)?.events ?? [];
  }

  /** Sequence of a branch's log: the expected sequence for an optimistic write. */
  seqOf(branch: string): number {
    return this.store.logs.get(branch)?.seq ?? 0;
  }


  close(): void {
    this.store.lock.release();
    this.saveSnapshot(true);
  }
}
