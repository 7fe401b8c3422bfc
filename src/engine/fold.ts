/**
 * The memory's folded state and the views that render it, kept in step: loaded at open from
 * the snapshot plus what was appended since, or from a streamed replay (which writes every
 * view on the way when they are known to be behind); advanced by what other writers appended
 * and by this process's own appends; and the views brought in line with it, under the lock,
 * with a person's edits of main.md and metadata.yaml adopted as events.
 *
 * The checkpoint names the state the views reflect (`stamp`); an operation's own append writes
 * the views it touched, and views found behind the checkpoint are rebuilt from the logs.
 */
import { existsSync } from 'node:fs';
import { evolveUnfrozen, replayer } from '../decider/evolve.js';
import { initialState, type MemoryState } from '../decider/state.js';
import { type GccEvent, MAIN, type Placed } from '../events/types.js';
import { asGccError } from '../errors.js';
import { incrementalPlan, VIEWS_FORMAT } from '../projections/files.js';
import { LOG_WINDOW, shownOf } from '../projections/render-log.js';
import { randomHex } from '../runtime/random.js';
import { VERSION } from '../runtime/version.js';
import type { LockOptions } from '../store/lock.js';
import type { Layout } from '../store/paths.js';
import { ledgerIdentity, type SnapshotLog, writeSnapshot } from '../store/snapshot.js';
import { signatureOf } from '../store/log-meta.js';
import { type SummaryLog, writeSummary } from './hook-summary.js';
import type { Store } from '../store/store.js';
import type { Problem, VerifyHooks } from './integrity.js';
import { newest, shared } from './reader.js';
import { type Redact, setAsideNamed } from './aside.js';
import { reconcileEdits, setAsideUnexplained } from './reconcile.js';
import { SNAPSHOT_FORMAT } from './revive.js';
import { FullRebuild, type ViewWriter } from './views.js';
import { digestOf, snapshotDiffers, snapshotState } from './snapshot-state.js';

/** Events a long-lived process may run ahead of the snapshot before it writes a new one. */
const SNAPSHOT_EVERY = 200;
/** Events behind the snapshot that make a closing process write a new one. */
const SNAPSHOT_ON_CLOSE = 32;
/**
 * A closing process also writes one when it is no larger than the log bytes appended since plus
 * this: writing a byte of snapshot costs about what folding a byte of the logs does, and the next
 * process — hooks run one per event — would first have to compile the reading of the logs, which
 * costs about what folding this much does. A small memory's hook processes then each open with
 * nothing to fold. (Measured in docs/benchmarks.md.)
 */
const SNAPSHOT_FREE_BYTES = 128 * 1024;

/** Why a hand edit is kept aside when no checkpoint names the state the views were written for. */
const NO_RECORD = 'no record says which state it was written for';

export class Fold {
  private _state: MemoryState = replayer().state();
  /**
   * The state the views were rebuilt whole for since the last settle (main.md, metadata.yaml and every summary.md
   * included), or null.
   */
  private rebuilt: MemoryState | null = null;
  private snapshotAt = -1;
  /** The snapshot's size, and the logs' total size it was taken at (saveSnapshot). */
  private snapshotBytes = 0;
  private snapshotLogBytes = 0;
  /** Events were folded since the hook's summary (hook-summary.ts) was last written by this process. */
  private summaryDue = false;
  /** The state was let go (verify) and could not be folded again: it is, before anything reads it. */
  private refold = false;
  /** The state was folded from the snapshot (and what was appended since), not replayed. */
  private fromSnap = false;

  constructor(
    private readonly layout: Layout,
    private readonly store: Store,
    private readonly views: ViewWriter,
    private readonly now: () => Date,
    private readonly lockOpts: () => LockOptions,
  ) {}

  get state(): MemoryState {
    return this._state;
  }

  private get warnings(): string[] {
    return this.store.warnings;
  }

  /**
   * What the views reflect: the ledger's epoch, the newest event id, the event count, and the gctx and views format
   * that rendered them.
   */
  stamp(state = this._state): string {
    return `${this.store.ledger.epoch} ${state.lastId} ${state.events} ${VERSION}/${VIEWS_FORMAT}`;
  }

  /** Fold what another process appended, when it initialised the memory first. Returns whether it had. */
  adoptInitialized(): boolean {
    const cu = this.store.catchUp(this._state.lastId);
    if (!cu.added.some((e) => e.type === 'memory.initialized')) return false;
    this._state = evolveUnfrozen(this._state, cu.added);
    return true;
  }

  /**
   * Fold every log: from the snapshot plus what was appended since, or a streamed replay. A
   * replay whose views are known to be behind (a fresh clone, a lost cache) writes them on the
   * way, under the lock, rather than streaming the history a second time to write them after.
   */
  async load(redactor: () => Promise<Redact>): Promise<void> {
    if (this.fromSnapshot()) return;
    const [epoch, lastId] = (this.views.readCheckpoint() ?? '').split(' ');
    if (epoch !== this.store.ledger.epoch || lastId !== this.store.ledger.lastId || !epoch) {
      try {
        const redact = await redactor();
        await this.store.withLock(() => {
          this.replayAll(true, redact);
          // The replay read the logs as far as the open found them, before the lock: what another
          // writer appended since, and wrote into the views, the rebuild just wrote over. Caught
          // up, a state further on has its views rebuilt again, or the checkpoint that writer
          // left would vouch for views missing its events.
          this.catchUp();
          if (this.rebuilt !== this._state) this.replayAll(true);
        }, this.lockOpts());
        return;
      } catch (err) {
        if (asGccError(err).code !== 'E_READ_ONLY') throw err;
      }
    }
    this.replayAll(false);
  }

  /** Fold from the snapshot plus what was appended since; false when there is no usable snapshot. */
  private fromSnapshot(): boolean {
    const got = snapshotState(this.layout, this.store, this.now().getTime(), (w) => this.warnOnce(w));
    if (!got) return false;
    this._state = got.state;
    this.fromSnap = true;
    this.snapshotAt = got.at;
    this.snapshotBytes = got.bytes;
    this.snapshotLogBytes = got.logBytes;
    return true;
  }

  private warnOnce(w: string): void {
    if (!this.warnings.includes(w)) this.warnings.push(w);
  }

  /**
   * Stream every log in id order into a fresh state; with views, rebuild every view on the way.
   * `redact`: hand edits the rebuild would write over are kept aside first, redacted; null when
   * the caller has dealt with them already.
   */
  replayAll(withViews: boolean, redact: Redact | null = null): void {
    // The state being replaced is let go before the pass rather than kept live beside the one
    // it builds. Until the pass succeeds, the state is folded again before anything reads it.
    this._state = initialState();
    this.refold = true;
    const fold = replayer();
    const build = withViews ? new FullRebuild(this.layout, 2 * LOG_WINDOW) : null;
    this.store.stream((e) => {
      fold.add(e);
      build?.add(e);
    }, this.now().getTime());
    this._state = fold.state();
    this.fromSnap = false;
    this.snapshotAt = -1;
    this.refold = false;
    if (build) {
      // Written whole over whatever is there: a hand edit of main.md or metadata.yaml that no
      // record vouches for (a fresh ledger, .GCC/.local removed, a checkpoint of another
      // state) is kept aside first, never lost.
      if (redact) {
        const why = this.views.readCheckpoint() === null ? NO_RECORD : undefined;
        this.warnings.push(...setAsideUnexplained(this.layout, this.views, this._state, redact, why));
      }
      const after = build.finish(this.views, this._state);
      for (const name of after.relabel) this.rewriteCommits(name);
      for (const name of after.relog) this.rewriteLog(name);
      this.rebuilt = this._state;
    }
  }

  /** A branch's commit.md from the logs (labels as readers see them), streamed. */
  private rewriteCommits(branch: string): void {
    this.views.writeCommits(this._state, branch, (add) =>
      this.store.stream((e) => e.type === 'commit.recorded' && add(e), this.now().getTime(), branch),
    );
  }

  private rewriteLog(branch: string): void {
    const shown = shownOf(this._state.branches[branch]?.logged ?? 0);
    const latest = newest(this.store, { branch, limit: shown, filter: shared }).reverse();
    this.views.writeLog(this._state, branch, latest);
  }

  /** A top-level view is missing (deleted, or taken by a git command): the views are rebuilt whole. */
  viewsGone(): boolean {
    const l = this.layout;
    return [l.mainMd, l.metadata, l.logOf(MAIN), l.commitOf(MAIN)].some((p) => !existsSync(p));
  }

  /** A person edited main.md or metadata.yaml, or gctx never saw main.md as it is. */
  editsPending(): boolean {
    return (
      reconcileEdits(this.layout, this.views, this._state, () => randomHex(8), null).dirty ||
      !this.views.hasSeen(this.layout.mainMd)
    );
  }

  /**
   * Catch up with other writers (replaying from scratch when logs were replaced); also without the lock, for reads.
   * A teammate's segment a pull brought that cannot be folded is set aside (aside.ts), as on open, and the logs
   * folded again: a long-lived process keeps working too.
   */
  catchUp(): void {
    for (let tries = 0; ; tries++) {
      try {
        return this.catchUpOnce();
      } catch (err) {
        const aside = tries < 8 ? setAsideNamed(this.layout, asGccError(err), this.now()) : null;
        if (!aside) throw err;
        this.warnings.push(aside.said);
        this.store.logs.delete(aside.name);
        this.store.dirMtimes.clear();
        this.refold = true;
      }
    }
  }

  private catchUpOnce(): void {
    const cu = this.store.catchUp(this._state.lastId, this.now().getTime());
    if (cu.reset || this.refold) {
      this.replayAll(false);
      return;
    }
    if (cu.added.length) this._state = evolveUnfrozen(this._state, cu.added);
  }

  /**
   * Under the lock: bring the views in line with the state, then adopt hand edits. After the
   * logs changed underneath (a pull, a checkout), nothing is adopted: a differing file is kept
   * aside, since the other side's events must not read as the person's deletions. `redact`
   * takes secrets out of whatever of the person's text is adopted or set aside.
   */
  settleLocked(logsReplaced: boolean, redact: Redact, opening = true): void {
    // Views taken away (deleted, or by a git command) are behind whatever the checkpoint says.
    // An operation, which rebuilds a log view it finds missing as it appends, asks only after
    // main.md, whose signature serves the hand-edit check below too.
    const main = signatureOf(this.layout.mainMd);
    const gone = main === null || (opening && this.viewsGone());
    const cp = gone ? null : this.views.readCheckpoint();
    let looked: ReadonlyMap<string, string | null> | undefined = new Map([[this.layout.mainMd, main]]);
    if (cp !== this.stamp()) {
      looked = undefined; // views written below: their signatures are taken again
      // Views of another gctx (an upgrade), or of no known state (no checkpoint), are rewritten
      // whole, like views behind replaced logs: a hand edit among them is kept aside first,
      // never overwritten.
      const otherFormat =
        cp !== null && cp.split(' ').slice(0, 3).join(' ') === this.stamp().split(' ').slice(0, 3).join(' ');
      if (logsReplaced || otherFormat || cp === null) {
        const why = logsReplaced || otherFormat ? undefined : NO_RECORD;
        this.warnings.push(...setAsideUnexplained(this.layout, this.views, this._state, redact, why));
      }
      // Views behind the state are rebuilt whole, never brought forward by appends: a writer that
      // died between its views and its checkpoint (or could not write the checkpoint) may have
      // left them ahead of what the checkpoint says, and appending would write entries twice.
      if (!this.rebuilt) this.replayAll(true);
      if (this.rebuilt !== this._state) this.views.writeSmall(this._state);
      this.views.checkpoint(this.stamp());
    }
    this.rebuilt = null;
    if (logsReplaced) return;
    const adoption = reconcileEdits(this.layout, this.views, this._state, () => randomHex(8), redact, looked);
    this.warnings.push(...adoption.warnings);
    if (adoption.events.length)
      this.appendAndProject(
        adoption.events.map((e) => ({ ...e, branch: MAIN }) as Placed),
        [],
      );
    else if (adoption.dirty) {
      this.views.writeSmall(this._state);
      this.views.checkpoint(this.stamp());
    }
  }

  /**
   * Run verify, which folds every log itself: once the logs are found whole the state held here
   * is let go rather than kept beside a second one; the state verify folded from the same logs
   * takes its place when it ends where this one did (a replay equals the incremental path), else
   * it is folded again.
   */
  verifyWith(run: (hooks: VerifyHooks) => Problem[]): Problem[] {
    // Read through a call: a temporary of this frame, which lasts as long as verify, would
    // otherwise keep the released state alive beside the one verify folds.
    const { lastId, events } = this.position();
    // A state folded from the snapshot is held against verify's replay of the same events (a
    // writer may append meanwhile): as a digest, so that verify never holds two states.
    const digest = this.fromSnap && !this.refold ? digestOf(this._state) : null;
    let released = false;
    let folded: MemoryState | null = null;
    const warn = (w: string) => this.warnOnce(w);
    const problems = run({
      release: () => {
        released = true;
        this._state = initialState();
      },
      folded: (state) => {
        folded = state;
      },
      warn: (p) => warn(`${p.file}: ${p.message}`),
    });
    const replayed = folded as MemoryState | null;
    if (
      digest &&
      replayed &&
      replayed.lastId === lastId &&
      replayed.events === events &&
      !problems.length &&
      snapshotDiffers(this.layout, digest, replayed, warn)
    )
      this.snapshotAt = -1;
    if (released) {
      const state = folded as MemoryState | null;
      if (state && state.lastId === lastId && state.events === events) {
        this._state = state;
        this.fromSnap = false;
      } else {
        // Until this succeeds, the state is folded again before anything reads it or saves it.
        this.refold = true;
        try {
          if (this.fromSnapshot()) this.refold = false;
          else this.replayAll(false);
        } catch (err) {
          const e = asGccError(err);
          if (!problems.some((p) => p.message === e.message))
            problems.push({ file: e.file ?? '.GCC/events', message: e.message });
        }
      }
    }
    return problems;
  }

  /**
   * Run a long pass that never reads the state (indexing the history for search) with the state
   * let go, then fold it again from the snapshot and what was appended since (as verify does
   * when its own fold cannot take the state's place).
   */
  withoutState<T>(work: () => T): T {
    // Written now if this state is not on disk yet, as closing would; without a snapshot to
    // fold from, the state is kept rather than replayed twice.
    this.saveSnapshot(true);
    if (this.snapshotAt < 0) return work();
    this._state = initialState();
    this.refold = true;
    try {
      return work();
    } finally {
      if (this.fromSnapshot()) this.refold = false;
      else this.replayAll(false);
    }
  }

  /** Where the state stands (its last event), without handing out the state. */
  private position(): { lastId: string; events: number } {
    return { lastId: this._state.lastId, events: this._state.events };
  }

  /** A full rebuild under the lock, as `gctx replay` asks: every view from the logs. */
  rebuildViews(): void {
    this.replayAll(true);
    this.views.checkpoint(this.stamp());
    this.rebuilt = null;
  }

  /** Write the views a batch touched, from the states around it. */
  private project(before: MemoryState, events: readonly GccEvent[]): void {
    const plan = incrementalPlan(this.layout, before, this._state, events);
    // A log view found missing (removed by hand) is rebuilt from the logs, not started again.
    for (const w of this.views.apply(plan.writes, this.store.checked))
      (w.view === 'log' ? plan.logRebuild : plan.commitRebuild).add(w.branch);
    for (const b of plan.commitRebuild) this.rewriteCommits(b);
    for (const b of plan.logRebuild) this.rewriteLog(b);
    if (plan.writes.has(this.layout.mainMd)) this.views.markSeen(this.layout.mainMd);
    if (plan.writes.has(this.layout.metadata)) this.views.markSeen(this.layout.metadata);
  }

  /**
   * Under the lock: append a batch durably, fold it, and write the views it touched; the ledger
   * is written once at the end, acknowledging the batch and checkpointing the views together.
   */
  appendAndProject(shared: readonly Placed[], local: readonly Placed[]): GccEvent[] {
    return this.store.oneLedgerWrite(() => this.appendThenProject(shared, local));
  }

  private appendThenProject(shared: readonly Placed[], local: readonly Placed[]): GccEvent[] {
    const now = this.now();
    const before = this._state;
    const out = this.store.appendOperation(shared, local, this._state.lastId, now);
    this._state = evolveUnfrozen(this._state, out);
    this.summaryDue = true;
    this.saveSnapshot(false);
    try {
      this.project(before, out);
      this.views.checkpoint(this.stamp());
    } catch (err) {
      // The events are durable, so the operation stands: failing it now would make a caller
      // retry and record it twice. Views are caches; the checkpoint still names the earlier
      // state, so the next operation or open rebuilds them.
      this.warnings.push(
        `the events were recorded, but the views could not be written (${asGccError(err).message}); ` +
          'they are rebuilt on the next operation',
      );
    }
    return out;
  }

  private logBytes(): number {
    let n = 0;
    for (const f of this.store.logs.values()) n += f.meta.size;
    return n;
  }

  /** The snapshot when due; the hook's summary with it, and on closing after this process appended. */
  saveSnapshot(closing: boolean, force = false): void {
    if ((this.snapshot(closing, force) || (closing && this.summaryDue)) && !this.refold) this.saveSummary();
  }

  private saveSummary(): void {
    const ledger = ledgerIdentity(this.layout);
    if (this.snapshotAt < 0 || !this.store.ledger.epoch || ledger === null) return;
    try {
      const logs: Record<string, SummaryLog> = {};
      for (const f of this.store.logs.values())
        if (f.meta.size > 0) logs[f.name] = { size: f.meta.size, seq: f.meta.seq };
      const behind = this._state.events - this.snapshotAt;
      writeSummary(this.layout, { epoch: this.store.ledger.epoch, ledger, logs, behind, state: this._state });
      this.summaryDue = false;
    } catch {
      /* a cache: the next hook takes the engine's path */
    }
  }

  /** Write the snapshot when due; whether it was written. */
  private snapshot(closing: boolean, force: boolean): boolean {
    if (this.refold) return false;
    const behind = this._state.events - this.snapshotAt;
    const enough = force ? 1 : !closing ? SNAPSHOT_EVERY : this.snapshotAt < 0 ? 1 : SNAPSHOT_ON_CLOSE;
    if (!this.store.ledger.epoch || behind <= 0) return false;
    if (
      behind < enough &&
      !(closing && this.snapshotBytes <= this.logBytes() - this.snapshotLogBytes + SNAPSHOT_FREE_BYTES)
    )
      return false;
    try {
      const logs: Record<string, SnapshotLog> = {};
      for (const f of this.store.logs.values())
        if (f.meta.size > 0) logs[f.name] = { size: f.meta.size, seq: f.meta.seq, lastId: f.meta.lastId };
      const ledger = ledgerIdentity(this.layout);
      if (ledger === null) return false;
      this.snapshotBytes = writeSnapshot(this.layout, {
        format: SNAPSHOT_FORMAT,
        epoch: this.store.ledger.epoch,
        ledger,
        logs,
        state: this._state,
      });
      this.snapshotLogBytes = this.logBytes();
      this.snapshotAt = this._state.events;
      return true;
    } catch {
      /* a cache: a read-only or full disk only costs the next open some time */
      return false;
    }
  }
}
