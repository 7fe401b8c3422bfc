/**
 * The memory as the hook logic sees it (`HookMemory`), opened only when needed. Most hook
 * calls are PreToolUse checks that need nothing but the `.GCC/` path, so the engine (and its
 * module graph) is loaded on first use. Writes started by the hook logic are tracked so the
 * process closes the memory, and releases its lock, only after they land.
 */
import { join } from 'node:path';
import { findMemoryRoot } from '../../store/paths.js';
import { ledgerIdentity, openIsLong } from '../../store/snapshot.js';
import type { Config } from '../../events/types.js';
import type { HookCommand, HookMemory } from '../../observer/memory-port.js';
import type { Memory } from '../../engine/memory.js';
import { readSummary } from '../../engine/hook-summary.js';
import type { ApproachSource } from '../../observer/repeat-guard.js';
import { layout } from '../../store/paths.js';
import type { SlimState } from './slim-record.js';

/** Loaded by the first event that records: a PreToolUse that decides nothing never loads it. */
const slimPath = () => import('./slim-record.js');
type SlimPath = Awaited<ReturnType<typeof slimPath>>;

const GCC = '.GCC';

/**
 * How long a hook waits for another writer's lock. Writers hold it for milliseconds; a host
 * waits for the hook process to exit, so a hook gives up on its log entry (reported on stderr)
 * rather than stall the agent behind a stuck holder for the engine's default 30 s.
 */
export const HOOK_LOCK_TIMEOUT_MS = 3_000;

export class LazyHookMemory implements HookMemory {
  private memory: Memory | null = null;
  private opening: Promise<Memory> | null = null;
  private readonly inflight = new Set<Promise<unknown>>();
  /** The memory as the slim path read it (slim-record.ts), while the engine is not needed. */
  private slim: SlimState | null = null;
  private slimCode: SlimPath | null = null;
  private readonly slimWarnings: string[] = [];

  constructor(
    readonly root: string,
    private readonly session: string | undefined,
    /** Memory's onLongPass, for a process of gctx's own (hook-main.ts). */
    private readonly onLongPass?: () => void,
  ) {}

  get gccDir(): string {
    return join(this.root, GCC);
  }

  /**
   * Ready to read. `slim`: the event only records calls (PostToolUse), so the memory is read as
   * the slim path needs it when it can be (slim-record.ts), and the engine is opened otherwise.
   */
  async open(slim = false): Promise<unknown> {
    if (slim && !this.memory) {
      this.slimCode ??= await slimPath();
      this.slim ??= this.slimCode.readSlim(this.root);
      if (this.slim) return this.slim;
    }
    return this.engine();
  }

  private async engine(): Promise<Memory> {
    if (this.memory) return this.memory;
    if (this.onLongPass && openIsLong(this.root)) this.onLongPass();
    this.opening ??= import('../../engine/memory.js').then(({ Memory }) =>
      Memory.open(this.root, {
        lockTimeoutMs: HOOK_LOCK_TIMEOUT_MS,
        search: 'on-demand',
        ...(this.session ? { session: this.session } : {}),
        ...(this.onLongPass ? { onLongPass: this.onLongPass } : {}),
      }),
    );
    this.memory = await this.opening;
    return this.memory;
  }

  private opened(): Memory {
    if (!this.memory) throw new Error('memory read before it was opened');
    return this.memory;
  }

  get config(): Config {
    return this.memory || !this.slim ? this.opened().config : this.slim.state.config;
  }

  execute(cmd: HookCommand, opts?: { session?: string }): Promise<{ branch: string; message: string }> {
    const work = this.record(cmd, opts);
    this.inflight.add(work);
    const done = () => this.inflight.delete(work);
    work.then(done, done);
    return work;
  }

  /** A call recorded by the slim path when it can be, else by the engine. */
  private async record(cmd: HookCommand, opts?: { session?: string }): Promise<{ branch: string; message: string }> {
    if (!this.memory && cmd.type === 'record-tool') {
      const code = (this.slimCode ??= await slimPath());
      const slim = this.slim ?? code.readSlim(this.root);
      const done = slim && (await code.slimRecord(slim, cmd, opts?.session ?? this.session, HOOK_LOCK_TIMEOUT_MS));
      if (done) {
        this.slim = done.slim;
        this.slimWarnings.push(...done.warnings);
        return done;
      }
      this.slim = null;
    }
    return (await this.engine()).execute(cmd, opts);
  }

  briefing(opts?: { session?: string; budget?: number }): string {
    return this.opened().briefing(opts);
  }

  pendingWork(session?: string): { edits: number; turns: number; files: string[] } {
    if (!this.memory && this.slim && this.slimCode)
      return this.slimCode.slimPending(this.slim, session ?? this.session);
    return this.opened().pendingWork(session);
  }

  /**
   * The failed approaches for the repeat guard: the open memory's, else the hook summary's
   * (engine/hook-summary.ts: a PreToolUse opens no memory and reads no log).
   */
  approaches(): ApproachSource | null {
    if (this.memory) return this.memory.state;
    const l = layout(this.root);
    const summary = readSummary(l);
    // Only this clone's own: one that arrived in a commit or a copy is not taken at its word.
    return summary && summary.ledger === ledgerIdentity(l) ? summary.state : null;
  }

  /** Wait for every write the hook logic started, including fire-and-forget ones. */
  async drain(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Engine warnings (a stale lock taken over, a torn tail quarantined), for stderr. */
  get warnings(): readonly string[] {
    return this.memory ? [...this.slimWarnings, ...this.memory.warnings] : this.slimWarnings;
  }

  close(): void {
    this.memory?.close();
  }
}
