/**
 * Memory: one project's `.GCC/`, opened. It ties the store (segments, local log, ledger,
 * lock), the model (decide/evolve) and the views together:
 *
 *   open:    check every log against the ledger
 *            → fold (snapshot + what was appended since, or a streamed replay) → under the
 *            lock, if anything changed: set torn tails aside, acknowledge, rebuild views,
 *            adopt hand edits
 *   execute: lock → catch up → adopt hand edits → decide → append (fsync) → fold → write the
 *            views the batch touched → acknowledge with the views' checkpoint (one write) → unlock
 *
 * The folded state and the views that follow it are `Fold`'s (fold.ts); this class holds the
 * lifecycle and the answers to callers.
 *
 * Reads catch up without the lock. Every public method returns data or throws GccError.
 */
import { existsSync, lstatSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from '../decider/commands.js';
import type { Decision } from '../decider/decide.js';
import { currentBranch, type MemoryState } from '../decider/state.js';
import { type Config, DEFAULT_CONFIG, FORMAT_VERSION, type GccEvent, MAIN } from '../events/types.js';
import { asGccError, GccError, gccError } from '../errors.js';
import { randomHex } from '../runtime/random.js';
import { layout, type Layout } from '../store/paths.js';
import { journalHolds } from '../store/journal.js';
import { asFolderError, makeFolders, makeProblem } from '../store/project-folder.js';
import { type Checked, Store } from '../store/store.js';
import { changedSince, citeBlobs, keepBaseline, uncommittedSince } from './git-files.js';
import { isHistory, newest, type NewestQuery, recentHistory, scanNewest } from './reader.js';
import { briefing } from '../context/briefing.js';
import { type ContextAnswer, type ContextQuery, type ContextSource, contextQuery } from '../context/query.js';
import { staleChecker } from '../context/stale.js';
import { defaultSpell } from '../context/status.js';
import { sourceAt } from './at-ref.js';
import { keepAside, type Problem, verifyMemory } from './integrity.js';
import { setAsideTeammate } from './aside.js';
import { viewsFromGit, viewsFromGitWarning } from './reconcile.js';
import type { MemorySearch } from './search.js';
import { assertHoldsMemory, assertMayInitialize, checkLogs, type Disk, ensureIgnore, hasAnyLog } from './open-logs.js';
import { Fold } from './fold.js';
import { ViewWriter } from './views.js';

/** Loaded by the first write or settle: a process that only reads never decides or redacts. */
const redactors = () => import('./redact-command.js');

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
  /**
   * When ranked search's code is loaded: 'at-open' (the default), so that `context` answers a
   * search at once; or 'on-demand', for a short-lived process that seldom searches (a CLI
   * command, a hook), which then calls `loadSearch` before a search query.
   */
  search?: 'at-open' | 'on-demand';
  /**
   * Called as a pass over much of the history starts: a replay, a first read of logs, building
   * the search index. A command-line process sets V8's heap flags there; the library does nothing.
   */
  onLongPass?: () => void;
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

export class Memory {
  private readonly fold: Fold;
  private finder: MemorySearch | null = null;
  /** A failed approach was recorded here: the snapshot the hooks' repeat guard reads is written on close. */
  private approachesMoved = false;
  /**
   * What the caller should be told (the store's own among them): stale locks taken over, torn tails set aside, writes
   * that failed after the events were durable.
   */
  readonly warnings: string[];
  private readonly views: ViewWriter;
  private readonly now: () => Date;

  private constructor(
    private readonly layout: Layout,
    private readonly store: Store,
    private readonly opts: OpenOptions,
  ) {
    this.warnings = store.warnings;
    if (opts.onLongPass) store.longPass = opts.onLongPass;
    this.views = new ViewWriter(layout, store);
    this.now = opts.now ?? (() => new Date());
    this.fold = new Fold(layout, store, this.views, this.now, () => this.lockOpts());
  }

  get root(): string {
    return this.layout.root;
  }
  get gccDir(): string {
    return this.layout.gcc;
  }
  get state(): MemoryState {
    return this.fold.state;
  }
  get config(): Config {
    return this.state.config;
  }

  static async open(dir: string, opts: OpenOptions = {}): Promise<Memory> {
    const l = layout(resolve(dir));
    let exists = false;
    try {
      const st = lstatSync(l.gcc);
      if (st.isSymbolicLink())
        throw gccError(
          'E_PATH_ESCAPE',
          '.GCC is a symbolic link',
          'replace it with a real folder; memory never follows links out of the project',
        );
      if (!st.isDirectory())
        throw gccError(
          'E_NOT_INITIALIZED',
          `no memory in ${l.root}: its .GCC is a file, not a folder`,
          'move the file .GCC away, then run `gctx init`',
        );
      exists = true;
    } catch (err) {
      if (err instanceof GccError) throw err;
      // A project folder that is a file, a link loop, a path too long, one this user may not look into.
      if ((err as { code?: string }).code !== 'ENOENT') throw asGccError(asFolderError(l.root, err));
    }
    // `.GCC/` removed while this clone's journal holds its logs: made again, and restored from it.
    const restore = !exists && journalHolds(l.root);
    if (!exists && !opts.create && !restore)
      throw gccError(
        'E_NOT_INITIALIZED',
        `no memory in ${l.root}`,
        'run `gctx init` in the project folder (or pass --dir)',
      );
    if (!exists) {
      try {
        makeFolders(l.gcc);
      } catch (err) {
        throw asGccError(makeProblem(l.root, err));
      }
    }
    // A teammate's segment that stops the open is set aside (aside.ts) and the open tried again.
    const told: string[] = [];
    for (let tries = 0; ; tries++) {
      try {
        const m = new Memory(l, new Store(l), opts);
        await m.openLogs(exists || restore);
        if (opts.search !== 'on-demand') await m.loadSearch();
        m.warnings.unshift(...told);
        return m;
      } catch (err) {
        const e = asGccError(err);
        const said = tries < 16 ? setAsideTeammate(l, e, (opts.now ?? (() => new Date()))()) : null;
        if (!said) throw e;
        told.push(said);
      }
    }
  }

  private get disk(): Disk {
    return { store: this.store, now: this.now, lock: this.lockOpts(), warn: (w: string) => this.warnings.push(w) };
  }

  /** The steps of open after the folder is there. */
  private async openLogs(existed: boolean): Promise<void> {
    const disk = this.disk;
    const checked = await checkLogs(disk);
    if (!hasAnyLog(this.store)) {
      assertMayInitialize(this.store, existed, this.opts.create);
      await this.initialize();
    } else {
      await this.fold.load(async () => (await redactors()).redactSecrets);
      assertHoldsMemory(this.store, this.state.created !== '', this.opts.create);
      await this.settle(checked);
    }
    ensureIgnore(disk);
  }

  private lockOpts() {
    return {
      timeoutMs: this.opts.lockTimeoutMs ?? 30_000,
      onStale: (h: { pid: number }) => this.warnings.push(`took over a stale lock left by dead process ${h.pid}`),
    };
  }

  private async initialize(): Promise<void> {
    await this.store.withLock(() => {
      if (this.fold.adoptInitialized()) return;
      this.fold.appendAndProject(
        [{ type: 'memory.initialized', data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } }, branch: MAIN }],
        [],
      );
      // A new memory's views are all written, whatever a render of nothing would say.
      this.views.writeSmall(this.state);
      this.views.checkpoint(this.fold.stamp());
    }, this.lockOpts());
  }

  /** On open: when anything changed, under the lock: torn tails aside, acknowledge, views, hand edits. */
  private async settle(checked: Checked): Promise<void> {
    this.warnings.push(...checked.warnings);
    const changed =
      this.store.fresh ||
      checked.added.length > 0 ||
      checked.replaced.length > 0 ||
      checked.grew.length > 0 ||
      checked.resigned.length > 0 ||
      checked.torn.length > 0;
    // Views a commit brought (a teammate force-added them) are regenerated: asked only when HEAD moved.
    const fromGit = this.store.repo && this.store.head !== this.store.ledger.head ? viewsFromGit(this.layout) : [];
    const stale = fromGit.length > 0 || this.views.readCheckpoint() !== this.fold.stamp() || this.fold.viewsGone();
    if (!changed && !stale && !this.fold.editsPending()) return;
    // Settling may adopt hand edits or set files aside: their text is redacted.
    const { redactSecrets } = await redactors();
    try {
      await this.store.withLock(() => {
        for (const f of checked.torn) {
          const moved = f.quarantine(this.layout.quarantine, this.now());
          if (moved)
            this.warnings.push(`a torn entry at the end of ${f.rel} (a crash mid-write) was moved to ${moved}`);
        }
        this.fold.catchUp();
        if (changed) this.store.acknowledge('all', checked.replaced.length > 0);
        this.fold.settleLocked(checked.replaced.length > 0 || checked.added.length > 0, redactSecrets);
        if (fromGit.length) {
          this.fold.rebuildViews();
          this.warnings.push(viewsFromGitWarning(fromGit));
        }
      }, this.lockOpts());
    } catch (err) {
      const e = asGccError(err);
      if (e.code !== 'E_READ_ONLY') throw e;
      this.warnings.push(`memory is read-only: ${e.message}; views were not refreshed`);
    }
  }

  /** The branch a session is on, as every writer has left it (catches up with other writers first). */
  currentBranch(session?: string): string {
    this.refresh();
    return currentBranch(this.state, session ?? this.opts.session);
  }

  /** Events on a branch: the version an optimistic caller names as expectedSeq. */
  seqOf(branch: string): number {
    return this.state.branches[branch]?.logged ?? 0;
  }

  pendingWork(session?: string): { edits: number; turns: number; files: string[] } {
    const b = this.state.branches[currentBranch(this.state, session ?? this.opts.session)]!;
    const files = Object.values(b.pending.files).sort((x, y) =>
      x.at < y.at ? 1 : x.at > y.at ? -1 : x.path < y.path ? -1 : 1,
    );
    return { edits: b.pending.edits, turns: b.pending.turns, files: files.map((f) => f.path) };
  }

  /** Refresh without the lock: what other writers appended since this process last looked. */
  refresh(): void {
    this.fold.catchUp();
  }

  async execute(cmd: Command, opts: ExecuteOptions = {}): Promise<ExecResult> {
    const session = opts.session ?? this.opts.session;
    try {
      const [{ decide }, { redactCommand, redactFiles, redactSecrets: redact }] = await Promise.all([
        import('../decider/decide.js'),
        redactors(),
      ]);
      const clean = redactCommand(cmd);
      // A merge records no files of its own, but what it brings in is the receiving branch's from
      // now on: its tree is kept as that branch's baseline, as a commit's is.
      const git = clean.type === 'commit' || clean.type === 'merge' ? this.gitFiles(session) : null;
      return await this.store.withLock(() => {
        this.fold.catchUp();
        this.fold.settleLocked(false, redact, false);
        const here = currentBranch(this.state, session);
        if (opts.expectedSeq !== undefined && this.seqOf(here) !== opts.expectedSeq) {
          throw gccError(
            'E_CONFLICT',
            `branch ${here} holds ${this.seqOf(here)} events, expected ${opts.expectedSeq}`,
            'read the memory again and retry the operation',
          );
        }
        const d: Decision = decide(this.state, clean, {
          session,
          nonce: randomHex(8),
          ...(git && clean.type === 'commit' ? { gitFiles: redactFiles(git.files) } : {}),
        });
        if (!d.ok) throw d.error;
        const ruledOut = this.state.failedApproachCount;
        const events = this.fold.appendAndProject(
          git && clean.type === 'commit' ? citeBlobs(this.root, git, d.shared) : d.shared,
          d.local,
        );
        if (events.some((e) => e.type === 'branch.abandoned') || this.state.failedApproachCount !== ruledOut) {
          this.approachesMoved = true;
        }
        if (git?.next) {
          const merged = events.find((e) => e.type === 'branch.merged');
          const into = merged?.type === 'branch.merged' ? merged.data.into : here;
          keepBaseline(this.root, this.store.layout.cache, into, git.next);
        }
        // Under the lock nobody else appended since: the state just folded is current.
        return { events, branch: currentBranch(this.state, session), message: d.message };
      }, this.lockOpts());
    } catch (err) {
      throw asGccError(err);
    }
  }

  /** What git says changed since the session's branch last committed (null outside git). */
  private gitFiles(session: string | undefined) {
    const repo = this.store.repo;
    if (!repo) return null;
    const here = currentBranch(this.state, session);
    return changedSince(repo, this.root, this.store.layout.cache, here, this.state.branches[here]?.parent ?? null);
  }

  /** What CONTEXT reads: the state, and events read back newest first. */
  source(): ContextSource {
    const fold = this.fold;
    return {
      // Read when used, not held: a search that indexes the history lets the state go meanwhile.
      get state() {
        return fold.state;
      },
      newest: (q) => newest(this.store, q),
      scan: (q, visit) => scanNewest(this.store, q, visit),
      search: (text, o) => {
        if (!this.finder)
          throw gccError(
            'E_INTERNAL',
            'ranked search was not loaded in this process',
            "call `await memory.loadSearch()` before a search query (the memory was opened with search: 'on-demand')",
          );
        return this.finder.search(text, o);
      },
      uncommitted: (branch) => this.uncommitted(branch),
      stale: staleChecker(this.root, this.store.layout.cache),
    };
  }

  /** Load ranked search's code, once: done at open unless the memory was opened with search: 'on-demand'. */
  async loadSearch(): Promise<void> {
    if (this.finder) return;
    const { MemorySearch, storeLogs } = await import('./search.js');
    this.finder ??= new MemorySearch(storeLogs(this.store), this.root, this.store.layout.cache, undefined, (work) => {
      this.store.longPass?.();
      return this.fold.withoutState(work);
    });
  }

  /** What git sees changed in the work tree since the branch's last commit, when no hook logged work on it. */
  private uncommitted(branch: string) {
    const repo = this.store.repo;
    const b = this.state.branches[branch];
    if (!repo || !b || b.pending.turns > 0) return null;
    return uncommittedSince(repo, this.root, this.store.layout.cache, branch, b.parent ?? null);
  }

  /**
   * CONTEXT at any level, inside a token budget. Catches up with other writers first; `at`: as
   * the memory committed in a git ref's history knew it (engine/at-ref.ts).
   */
  context(
    q: ContextQuery,
    opts: {
      session?: string | undefined;
      budget?: number | undefined;
      spell?: (q: ContextQuery) => string;
      at?: string | undefined;
    } = {},
  ): ContextAnswer {
    if (opts.at !== undefined) {
      const at = opts.at;
      const spell = (x: ContextQuery) => `${(opts.spell ?? defaultSpell)(x)} --at ${at}`;
      return contextQuery({ ...sourceAt(this.root, at), stale: staleChecker(this.root, this.store.layout.cache) }, q, {
        budget: opts.budget,
        spell,
      });
    }
    this.refresh();
    return contextQuery(this.source(), q, {
      session: opts.session ?? this.opts.session,
      budget: opts.budget,
      ...(opts.spell ? { spell: opts.spell } : {}),
    });
  }

  /** The session briefing: under 1,000 tokens whatever the history. */
  briefing(opts: { session?: string; budget?: number } = {}): string {
    this.refresh();
    const session = opts.session ?? this.opts.session;
    return briefing(
      this.state,
      session,
      opts.budget,
      this.uncommitted(currentBranch(this.state, session)),
      staleChecker(this.root, this.store.layout.cache),
    );
  }

  /**
   * Every byte of every log checked, and every view against a rebuild, through this memory's
   * own store. Verify folds every log itself, so once the logs are found whole the state opened
   * here is let go rather than held beside a second one; the state verify folded from the same
   * logs takes its place when it ends where this one did (a replay equals the incremental
   * path), else it is folded again.
   */
  verify(): Problem[] {
    return this.fold.verifyWith((hooks) => verifyMemory(this.layout, this.now().getTime(), hooks, this.store));
  }

  /**
   * verify as `gctx verify` and doctor report it, while other processes may be writing: a view
   * read between a writer's append and its view write, or a log read mid-append, differs from a
   * rebuild with nothing wrong. The pass runs without the lock, so writers are not held up for
   * its length; what it finds is looked at again under the lock, through a store that reads
   * the ledger and the logs afresh, where nothing moves, and only what stands there is
   * reported. A memory whose lock cannot be made (read-only) has no writer to wait for: the
   * first pass stands. A lock held past the timeout is E_LOCKED: nothing is claimed either way.
   */
  async verifyConfirmed(): Promise<Problem[]> {
    const first = this.verify();
    if (!first.length) return first;
    try {
      return await this.store.withLock(
        () => this.fold.verifyWith((hooks) => verifyMemory(this.layout, this.now().getTime(), hooks)),
        this.lockOpts(),
      );
    } catch (err) {
      const e = asGccError(err);
      if (e.code === 'E_READ_ONLY') return first;
      throw e;
    }
  }

  /** Rebuild every view from the logs; differing main.md / metadata.yaml are kept aside first. */
  async replay(): Promise<{ written: string[]; kept: string[] }> {
    const { redactSecrets } = await redactors();
    return this.store.withLock(() => {
      this.fold.catchUp();
      const kept: string[] = [];
      for (const path of [this.layout.mainMd, this.layout.metadata]) {
        if (existsSync(path) && !this.views.isSeen(path))
          kept.push(keepAside(this.layout, path, this.now(), redactSecrets));
      }
      this.fold.rebuildViews();
      return { written: ['.GCC views'], kept };
    }, this.lockOpts());
  }

  /** Every event, in id order. Reads the whole history: for tools and tests, not for answers to a model. */
  events(): GccEvent[] {
    const out: GccEvent[] = [];
    this.store.stream((e) => out.push(e));
    return out;
  }

  /** The newest events matching `q`, newest first, reading only the logs that reach that far. */
  newestEvents(q: NewestQuery): GccEvent[] {
    return newest(this.store, q);
  }

  /**
   * Changes whenever the logs were rewritten under this memory (a repair, a restore): caches keyed on it start over.
   */
  get epoch(): string {
    return this.store.ledger.epoch;
  }

  /**
   * Each branch lifecycle and commit event, in id order: what the history graph draws. Streams
   * the whole history, a window of each log at a time; nothing is gathered here.
   */
  eachHistoryEvent(visit: (e: GccEvent) => void): void {
    this.store.stream((e) => isHistory(e) && visit(e));
  }

  /**
   * The branch lifecycle and commit events from the `commits`-th newest commit on, in id order
   * (every one when there are fewer commits): the recent history graph, read from the logs
   * that reach that far back and no others.
   */
  recentHistoryEvents(commits: number): GccEvent[] {
    this.refresh();
    return recentHistory(this.store, commits);
  }

  close(): void {
    this.store.lock.release();
    // The repeat guard of the next hook reads the snapshot alone: a new failed approach is written down now.
    this.fold.saveSnapshot(true, this.approachesMoved);
  }

  /** The logs exist at all (false for a folder with only a .gitignore). */
  get initialized(): boolean {
    return existsSync(this.layout.events);
  }
}
