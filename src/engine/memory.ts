/**
 * Memory: one project's `.GCC/`, opened. It ties the store (segments, local log, ledger,
 * lock), the model (decide/evolve) and the views together:
 *
 *   open:    migrate an old layout git does not track → check every log against the ledger
 *            → fold (snapshot + what was appended since, or a streamed replay) → under the
 *            lock, if anything changed: set torn tails aside, acknowledge, rebuild views,
 *            adopt hand edits
 *   execute: lock → catch up → adopt hand edits → decide → append (fsync) → acknowledge →
 *            fold → write the views the batch touched → unlock
 *
 * At a commit of the first layout that git tracks (a visit, store/visit.ts) the old logs are
 * folded read-only: no view is written, no hand edit adopted, nothing git tracks changed; a
 * write there records into this clone's untracked segment, or migrates first on a branch.
 *
 * Reads catch up without the lock. Every public method returns data or throws GccError.
 */
import { randomHex } from '../runtime/random.js';
import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from '../decider/commands.js';
import type { Decision } from '../decider/decide.js';
import { evolveUnfrozen, replayer } from '../decider/evolve.js';
import { currentBranch, initialState, type MemoryState } from '../decider/state.js';
import { type Config, DEFAULT_CONFIG, FORMAT_VERSION, type GccEvent, MAIN, type Placed } from '../events/types.js';
import { asGccError, GccError, gccError } from '../errors.js';
import { incrementalPlan, VIEWS_FORMAT } from '../projections/files.js';
import { VERSION } from '../runtime/version.js';
import { LOG_WINDOW, shownOf } from '../projections/render-log.js';
import { layout, type Layout } from '../store/paths.js';
import { readSnapshot, type SnapshotLog, writeSnapshot } from '../store/snapshot.js';
import { type Checked, Store } from '../store/store.js';
import { changedSince, recordTree, uncommittedSince } from './git-files.js';
import { newest, scanNewest } from './reader.js';
import { RecentEvents } from './recent.js';
import { briefing } from '../context/briefing.js';
import { type ContextAnswer, type ContextQuery, type ContextSource, contextQuery } from '../context/query.js';
import { keepAside, type Problem, verifyMemory } from './integrity.js';
import { MemorySearch } from './search.js';
import { reconcileEdits, setAsideUnexplained } from './reconcile.js';
import { reviveState, SNAPSHOT_FORMAT } from './revive.js';
import { assertMayInitialize, checkLogs, type Disk, ensureIgnore, hasAnyLog, migrateOldLayout } from './open-logs.js';
import { headState, mayMigrate, visitNote } from '../store/visit.js';
import { FullRebuild, ViewWriter } from './views.js';

export interface OpenOptions {
  /**
   * Create `.GCC/` when missing: true as `gctx init` does; 'if-new' as an agent front does on
   * its own (MCP, Pi's autoInit), unless git holds the memory in other commits — a commit from
   * before it is checked out, and an initialisation there would travel back as a stray one.
   */
  create?: boolean | 'if-new';
  /** Clock, injectable for tests. */
  now?: () => Date;
  /** Give up waiting for another process's lock after this long. */
  lockTimeoutMs?: number;
  /** Session used when a call names none. */
  session?: string;
}

export interface ExecuteOptions {
  session?: string | undefined;
  /** Fail with E_CONFLICT unless the session's branch holds this many events. */
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
/** Log bytes appended since the snapshot beyond which an open replays (streamed) rather than holding them. */
const DELTA_MAX = 4 * 1024 * 1024;

export class Memory {
  private _state: MemoryState = replayer().state();
  /** The snapshot's state and the events folded on top of it at open, for an incremental view update. */
  private openDelta: { before: MemoryState; events: GccEvent[] } | null = null;
  private rebuilt = false;
  private snapshotAt = -1;
  /** The state was let go (verify) and could not be folded again: it is, before anything reads it. */
  private refold = false;
  /** Each branch's latest events as folded here, for log.md's trims. */
  private readonly recent = new RecentEvents(2 * LOG_WINDOW);
  private finder: MemorySearch | null = null;
  /** What the caller should be told (the store's own among them): stale locks taken over, torn tails set aside, writes that failed after the events were durable. */
  readonly warnings: string[];
  readonly views: ViewWriter;
  private readonly now: () => Date;

  private constructor(
    readonly layout: Layout,
    readonly store: Store,
    private readonly opts: OpenOptions,
  ) {
    this.warnings = store.warnings;
    this.views = new ViewWriter(layout);
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
  /** What is said of a visit to a commit of the first layout (store/visit.ts), or null when not visiting. */
  get visitNote(): string | null {
    return this.store.visit ? visitNote(this.store.visit) : null;
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
    if (!exists && !opts.create) throw gccError('E_NOT_INITIALIZED', `no memory in ${l.root}`, 'run `gctx init` in the project folder (or pass --dir)');
    try {
      mkdirSync(l.gcc, { recursive: true });
      const m = new Memory(l, new Store(l), opts);
      await m.openLogs(exists, false);
      return m;
    } catch (err) {
      throw asGccError(err);
    }
  }

  private get disk(): Disk {
    return { store: this.store, now: this.now, lock: this.lockOpts(), warn: (w: string) => this.warnings.push(w) };
  }

  /** The steps of open after the folder is there; `migrate`: move a visited first layout too (a write on a branch, `gctx migrate`). */
  private async openLogs(existed: boolean, migrate: boolean): Promise<void> {
    const disk = this.disk;
    await migrateOldLayout(disk, migrate);
    const checked = await checkLogs(disk);
    if (this.visitNote) this.warnings.push(this.visitNote);
    if (!hasAnyLog(this.store)) {
      assertMayInitialize(this.store, existed, this.opts.create);
      await this.initialize();
    } else {
      await this.load();
      await this.settle(checked);
    }
    ensureIgnore(disk);
  }

  /**
   * Move a visited first layout into segments (`gctx migrate`, or the first write on a branch)
   * and open the memory again from them. Returns what was said of the move, or null when
   * there was nothing to move.
   */
  async migrate(): Promise<string | null> {
    const said = this.warnings.find((w) => w.startsWith('moved '));
    if (!this.store.visit) return said ?? null;
    // What was said of the visit no longer holds.
    const note = this.warnings.indexOf(this.visitNote ?? '');
    if (note !== -1) this.warnings.splice(note, 1);
    const before = this.warnings.length;
    await this.openLogs(true, true);
    return this.warnings.slice(before).find((w) => w.startsWith('moved ')) ?? null;
  }

  private lockOpts() {
    return { timeoutMs: this.opts.lockTimeoutMs ?? 30_000, onStale: (h: { pid: number }) => this.warnings.push(`took over a stale lock left by dead process ${h.pid}`) };
  }

  private async initialize(): Promise<void> {
    await this.store.withLock(() => {
      const cu = this.store.catchUp(this._state.lastId);
      if (cu.added.some((e) => e.type === 'memory.initialized')) {
        this._state = evolveUnfrozen(this._state, cu.added);
        return;
      }
      this.appendAndProject([{ type: 'memory.initialized', data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } }, branch: MAIN }], []);
      // A new memory's views are all written, whatever a render of nothing would say.
      this.views.writeSmall(this._state);
      this.views.checkpoint(this.stamp());
    }, this.lockOpts());
  }

  /** What the views reflect: the ledger's epoch, the newest event id, the event count, and the gctx and views format that rendered them. */
  private stamp(state = this._state): string {
    return `${this.store.ledger.epoch} ${state.lastId} ${state.events} ${VERSION}/${VIEWS_FORMAT}`;
  }

  /**
   * Fold every log: from the snapshot plus what was appended since, or a streamed replay. A
   * replay whose views are known to be behind (a fresh clone, a lost cache) writes them on the
   * way, under the lock, rather than streaming the history a second time to write them after.
   */
  private async load(): Promise<void> {
    this.recent.clear();
    if (this.fromSnapshot()) return;
    const [epoch, lastId] = (this.views.readCheckpoint() ?? '').split(' ');
    if ((epoch !== this.store.ledger.epoch || lastId !== this.store.ledger.lastId || !epoch) && !this.store.visit) {
      try {
        await this.store.withLock(() => this.replayAll(true), this.lockOpts());
        return;
      } catch (err) {
        if (asGccError(err).code !== 'E_READ_ONLY') throw err;
      }
    }
    this.replayAll(false);
  }

  /** Fold from the snapshot plus what was appended since; false when there is no usable snapshot. */
  private fromSnapshot(): boolean {
    const snap = readSnapshot(this.layout, SNAPSHOT_FORMAT, reviveState);
    if (!snap || snap.epoch !== this.store.ledger.epoch || !this.store.ledger.epoch) return false;
    this.store.readUnread(this.now().getTime());
    const delta = this.deltaSince(snap.logs);
    if (!delta || (delta.length > 0 && delta[0]!.id <= snap.state.lastId)) return false;
    this._state = evolveUnfrozen(snap.state, delta);
    this.openDelta = { before: snap.state, events: delta };
    this.snapshotAt = snap.state.events;
    return true;
  }

  /**
   * Events appended after a snapshot's positions, in id order; null when a log no longer
   * reaches that far, or when more than DELTA_MAX bytes were appended since (a pull of much
   * history): those events are not held, the logs are replayed, streamed, instead.
   */
  private deltaSince(logs: Record<string, SnapshotLog>): GccEvent[] | null {
    for (const name of Object.keys(logs)) if (!this.store.logs.has(name)) return null;
    let bytes = 0;
    for (const f of this.store.logs.values()) bytes += Math.max(0, f.meta.size - (logs[f.name]?.size ?? 0));
    if (bytes > DELTA_MAX) return null;
    const out: GccEvent[] = [];
    for (const f of this.store.logs.values()) {
      const at = logs[f.name];
      if (at && at.size > f.meta.size) return null;
      for (const e of f.readAfter(at?.size ?? 0, at?.seq ?? 0, at?.lastId ?? '', this.now().getTime())) out.push(e);
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /** Stream every log in id order into a fresh state; with views, rebuild every view on the way. */
  private replayAll(withViews: boolean): void {
    this.recent.clear();
    const fold = replayer();
    const build = withViews ? new FullRebuild(this.layout, 2 * LOG_WINDOW) : null;
    this.store.stream((e) => {
      fold.add(e);
      build?.add(e);
    }, this.now().getTime());
    this._state = fold.state();
    this.openDelta = null;
    this.snapshotAt = -1;
    this.refold = false;
    if (build) {
      const after = build.finish(this.views, this._state);
      for (const name of after.relabel) this.rewriteCommits(name);
      for (const name of after.relog) this.rewriteLog(name);
      this.rebuilt = true;
    }
  }

  /** A branch's commit.md from the logs (labels as readers see them), streamed. */
  private rewriteCommits(branch: string): void {
    this.views.writeCommits(this._state, branch, (add) => this.store.stream((e) => e.type === 'commit.recorded' && add(e), this.now().getTime(), branch));
  }

  private rewriteLog(branch: string): void {
    const shown = shownOf(this._state.branches[branch]?.logged ?? 0);
    const latest = this.recent.latest(this._state, branch, shown) ?? newest(this.store, { branch, limit: 2 * LOG_WINDOW }).reverse();
    this.views.writeLog(this._state, branch, latest);
  }

  /** On open: when anything changed, under the lock: torn tails aside, acknowledge, views, hand edits. */
  private async settle(checked: Checked): Promise<void> {
    this.warnings.push(...checked.warnings);
    const changed = this.store.fresh || checked.added.length > 0 || checked.replaced.length > 0 || checked.grew.length > 0 || checked.resigned.length > 0 || checked.torn.length > 0;
    const stale = this.views.readCheckpoint() !== this.stamp() || this.viewsGone();
    // Visiting, the views on disk are the old commit's tracked files: neither rebuilt nor read as edits.
    if (!changed && (this.store.visit || (!stale && !this.editsPending()))) return;
    try {
      await this.store.withLock(() => {
        for (const f of checked.torn) {
          const moved = f.quarantine(this.layout.quarantine, this.now());
          if (moved) this.warnings.push(`a torn entry at the end of ${f.rel} (a crash mid-write) was moved to ${moved}`);
        }
        this.catchUp();
        if (changed) this.store.acknowledge('all', checked.replaced.length > 0);
        this.settleLocked(checked.replaced.length > 0 || checked.added.length > 0);
      }, this.lockOpts());
    } catch (err) {
      const e = asGccError(err);
      if (e.code !== 'E_READ_ONLY') throw e;
      this.warnings.push(`memory is read-only: ${e.message}; views were not refreshed`);
    }
  }

  /** main.md or main's log.md is missing: the views are rebuilt whole. */
  private viewsGone(): boolean {
    return !existsSync(this.layout.mainMd) || !existsSync(this.layout.logOf(MAIN));
  }

  private editsPending(): boolean {
    return reconcileEdits(this.layout, this.views, this._state, () => this.nonce(), true).dirty || !this.views.hasSeen(this.layout.mainMd);
  }

  /** Catch up with other writers (replaying from scratch when logs were replaced). */
  private catchUp(): void {
    const cu = this.store.catchUp(this._state.lastId, this.now().getTime());
    if (cu.reset || this.refold) {
      this.replayAll(false);
      return;
    }
    if (cu.added.length) {
      const before = this._state;
      this._state = evolveUnfrozen(this._state, cu.added);
      this.recent.add(before, cu.added);
      this.openDelta = this.openDelta ? { before: this.openDelta.before, events: [...this.openDelta.events, ...cu.added] } : { before, events: cu.added };
    }
  }

  /**
   * Under the lock: bring the views in line with the state, then adopt hand edits. After the
   * logs changed underneath (a pull, a checkout), nothing is adopted: a differing file is kept
   * aside, since the other side's events must not read as the person's deletions.
   */
  private settleLocked(logsReplaced: boolean): void {
    if (this.store.visit) {
      this.openDelta = null;
      this.rebuilt = false;
      return;
    }
    // Views git took away (a checkout leaving a commit of the first layout, which tracked files
    // at their paths) are behind whatever the checkpoint says.
    const cp = this.viewsGone() ? null : this.views.readCheckpoint();
    if (cp !== this.stamp()) {
      // Views of another gctx (an upgrade) are rewritten whole, like views behind replaced logs:
      // a hand edit among them is kept aside first, never overwritten.
      const otherFormat = cp !== null && cp.split(' ').slice(0, 3).join(' ') === this.stamp().split(' ').slice(0, 3).join(' ');
      if (logsReplaced || otherFormat) this.warnings.push(...setAsideUnexplained(this.layout, this.views, this._state));
      const d = this.openDelta;
      if (d && cp === this.stamp(d.before) && !logsReplaced) this.project(d.before, d.events);
      else if (!this.rebuilt) this.replayAll(true);
      this.views.writeSmall(this._state);
      this.views.checkpoint(this.stamp());
    }
    this.openDelta = null;
    this.rebuilt = false;
    if (logsReplaced) return;
    const adoption = reconcileEdits(this.layout, this.views, this._state, () => this.nonce(), false);
    this.warnings.push(...adoption.warnings);
    if (adoption.events.length) this.appendAndProject(adoption.events.map((e) => ({ ...e, branch: MAIN }) as Placed), []);
    else if (adoption.dirty) {
      this.views.writeSmall(this._state);
      this.views.checkpoint(this.stamp());
    }
  }

  private nonce(): string {
    return randomHex(8);
  }

  /** Write the views a batch touched, from the states around it. */
  private project(before: MemoryState, events: readonly GccEvent[]): void {
    const plan = incrementalPlan(this.layout, before, this._state, events);
    this.views.apply(plan.writes);
    for (const b of plan.commitRebuild) this.rewriteCommits(b);
    for (const b of plan.logRebuild) this.rewriteLog(b);
    if (plan.writes.has(this.layout.mainMd)) this.views.markSeen(this.layout.mainMd);
    if (plan.writes.has(this.layout.metadata)) this.views.markSeen(this.layout.metadata);
  }

  private appendAndProject(shared: readonly Placed[], local: readonly Placed[]): GccEvent[] {
    const now = this.now();
    const before = this._state;
    const out = this.store.appendOperation(shared, local, this._state.lastId, now);
    this.recent.add(this._state, out);
    this._state = evolveUnfrozen(this._state, out);
    this.saveSnapshot(false);
    // Visiting: the views stay as the old commit has them; the next open elsewhere rebuilds them.
    if (this.store.visit) return out;
    try {
      this.project(before, out);
      this.views.checkpoint(this.stamp());
    } catch (err) {
      // The events are durable, so the operation stands: failing it now would make a caller
      // retry and record it twice. Views are caches; the checkpoint still names the earlier
      // state, so the next operation or open rebuilds them.
      this.warnings.push(`the events were recorded, but the views could not be written (${asGccError(err).message}); they are rebuilt on the next operation`);
    }
    return out;
  }

  private saveSnapshot(closing: boolean): void {
    if (this.refold) return;
    const behind = this._state.events - this.snapshotAt;
    const enough = !closing ? SNAPSHOT_EVERY : this.snapshotAt < 0 ? 1 : SNAPSHOT_ON_CLOSE;
    if (behind < enough || !this.store.ledger.epoch) return;
    try {
      const logs: Record<string, SnapshotLog> = {};
      for (const f of this.store.logs.values()) if (f.meta.size > 0) logs[f.name] = { size: f.meta.size, seq: f.meta.seq, lastId: f.meta.lastId };
      writeSnapshot(this.layout, { format: SNAPSHOT_FORMAT, epoch: this.store.ledger.epoch, logs, state: this._state });
      this.snapshotAt = this._state.events;
    } catch {
      /* a cache: a read-only or full disk only costs the next open some time */
    }
  }

  currentBranch(session?: string): string {
    return currentBranch(this._state, session ?? this.opts.session);
  }

  /** Events on a branch: the version an optimistic caller names as expectedSeq. */
  seqOf(branch: string): number {
    return this._state.branches[branch]?.logged ?? 0;
  }

  pendingWork(session?: string): { edits: number; turns: number; files: string[] } {
    const b = this._state.branches[this.currentBranch(session)]!;
    const files = Object.values(b.pending.files).sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : x.path < y.path ? -1 : 1));
    return { edits: b.pending.edits, turns: b.pending.turns, files: files.map((f) => f.path) };
  }

  /** Refresh without the lock: what other writers appended since this process last looked. */
  refresh(): void {
    this.catchUp();
    this.openDelta = null;
  }

  async execute(cmd: Command, opts: ExecuteOptions = {}): Promise<ExecResult> {
    const session = opts.session ?? this.opts.session;
    try {
      // Loaded by the first write: a process that only reads never decides or redacts.
      const [{ decide }, { redactCommand }] = await Promise.all([import('../decider/decide.js'), import('./redact-command.js')]);
      const clean = redactCommand(cmd);
      // A write where the user works on a commit of the first layout moves it first; at a
      // detached HEAD or mid-bisect it records into this clone's untracked segment instead.
      // (Where HEAD stands is asked again: a process that stays open may have opened elsewhere.)
      if (this.store.visit && this.store.repo && mayMigrate(headState(this.store.repo))) await this.migrate();
      // A merge records no files of its own, but what it brings in is the receiving branch's from
      // now on: its tree is kept as that branch's baseline, as a commit's is.
      const git = clean.type === 'commit' || clean.type === 'merge' ? this.gitFiles(session) : null;
      return await this.store.withLock(() => {
        this.catchUp();
        this.settleLocked(false);
        const here = currentBranch(this._state, session);
        if (opts.expectedSeq !== undefined && this.seqOf(here) !== opts.expectedSeq) {
          throw gccError('E_CONFLICT', `branch ${here} holds ${this.seqOf(here)} events, expected ${opts.expectedSeq}`, 'read the memory again and retry the operation');
        }
        const d: Decision = decide(this._state, clean, { session, nonce: this.nonce(), ...(git && clean.type === 'commit' ? { gitFiles: git.files } : {}) });
        if (!d.ok) throw d.error;
        const events = this.appendAndProject(d.shared, d.local);
        if (git && this.store.repo) {
          const merged = events.find((e) => e.type === 'branch.merged');
          recordTree(this.store.repo, this.root, merged?.type === 'branch.merged' ? merged.data.into : here, git.tree);
        }
        return { events, branch: this.currentBranch(session), message: d.message };
      }, this.lockOpts());
    } catch (err) {
      throw asGccError(err);
    }
  }

  /** What git says changed since the session's branch last committed (null outside git). */
  private gitFiles(session: string | undefined) {
    const repo = this.store.repo;
    if (!repo) return null;
    const here = currentBranch(this._state, session);
    return changedSince(repo, this.root, here, this._state.branches[here]?.parent ?? null);
  }

  /** What CONTEXT reads: the state, and events read back newest first. */
  source(): ContextSource {
    return {
      state: this._state,
      newest: (q) => newest(this.store, q),
      scan: (q, visit) => scanNewest(this.store, q, visit),
      search: (text, o) => {
        this.finder ??= new MemorySearch(this.store, this.store.layout.cache);
        return this.finder.search(text, o);
      },
      uncommitted: (branch) => this.uncommitted(branch),
    };
  }

  /** What git sees changed in the work tree since the branch's last commit, when no hook logged work on it. */
  private uncommitted(branch: string) {
    const repo = this.store.repo;
    const b = this._state.branches[branch];
    if (!repo || !b || b.pending.turns > 0) return null;
    return uncommittedSince(repo, this.root, branch, b.parent ?? null);
  }

  /** CONTEXT at any level, inside a token budget. Catches up with other writers first. */
  context(q: ContextQuery, opts: { session?: string | undefined; budget?: number | undefined; spell?: (q: ContextQuery) => string } = {}): ContextAnswer {
    this.refresh();
    return contextQuery(this.source(), q, { session: opts.session ?? this.opts.session, budget: opts.budget, ...(opts.spell ? { spell: opts.spell } : {}) });
  }

  /** The session briefing: under 1,000 tokens whatever the history. */
  briefing(opts: { session?: string; budget?: number } = {}): string {
    this.refresh();
    const session = opts.session ?? this.opts.session;
    return briefing(this._state, session, opts.budget, this.uncommitted(currentBranch(this._state, session)));
  }

  /**
   * Every byte of every log checked, and every view against a rebuild, through this memory's
   * own store. Verify folds every log itself, so once the logs are found whole the state opened
   * here is let go rather than held beside a second one; the state verify folded from the same
   * logs takes its place when it ends where this one did (a replay equals the incremental
   * path), else it is folded again.
   */
  verify(): Problem[] {
    const { lastId, events } = this._state;
    let released = false;
    let folded: MemoryState | null = null;
    const problems = verifyMemory(this.layout, this.now().getTime(), {
      release: () => {
        released = true;
        this._state = initialState();
        this.openDelta = null;
      },
      folded: (state) => {
        folded = state;
      },
    }, this.store);
    if (released) {
      const state = folded as MemoryState | null;
      if (state && state.lastId === lastId && state.events === events) this._state = state;
      else {
        // Until this succeeds, the state is folded again before anything reads it or saves it.
        this.refold = true;
        try {
          if (this.fromSnapshot()) this.refold = false;
          else this.replayAll(false);
        } catch (err) {
          const e = asGccError(err);
          if (!problems.some((p) => p.message === e.message)) problems.push({ file: e.file ?? '.GCC/events', message: e.message });
        }
      }
      this.openDelta = null;
    }
    return problems;
  }

  /** Rebuild every view from the logs; differing main.md / metadata.yaml are kept aside first. */
  async replay(): Promise<{ written: string[]; kept: string[] }> {
    if (this.store.visit) throw gccError('E_READ_ONLY', 'this commit holds the first layout of .GCC/, whose views git tracks: they are not rebuilt while visiting', 'check out a commit of the new layout, or `gctx migrate` on a branch');
    return this.store.withLock(() => {
      this.catchUp();
      const kept: string[] = [];
      for (const path of [this.layout.mainMd, this.layout.metadata]) {
        if (existsSync(path) && !this.views.isSeen(path)) kept.push(keepAside(this.layout, path, this.now()));
      }
      this.replayAll(true);
      this.views.checkpoint(this.stamp());
      this.rebuilt = false;
      return { written: ['.GCC views'], kept };
    }, this.lockOpts());
  }

  /** Every event, in id order. Reads the whole history: for tools and tests, not for answers to a model. */
  events(): GccEvent[] {
    const out: GccEvent[] = [];
    this.store.stream((e) => out.push(e));
    return out;
  }

  /** The events of one branch, in id order (see events()). */
  eventsOf(branch: string): GccEvent[] {
    return this.events().filter((e) => e.branch === branch);
  }

  /** Branch lifecycle and commit events, in id order: what the history graph draws. */
  historyEvents(): GccEvent[] {
    const out: GccEvent[] = [];
    this.store.stream((e) => {
      if (e.type === 'branch.created' || e.type === 'commit.recorded' || e.type === 'branch.merged' || e.type === 'branch.abandoned') out.push(e);
    });
    return out;
  }

  close(): void {
    this.store.lock.release();
    this.saveSnapshot(true);
  }

  /** Raised for callers that want to tell an integrity failure from others. */
  static isCorruption(err: unknown): boolean {
    return err instanceof GccError && err.code === 'E_CORRUPT';
  }

  /** The logs exist at all (false for a folder with only a .gitignore). */
  get initialized(): boolean {
    return existsSync(this.layout.events);
  }
}
