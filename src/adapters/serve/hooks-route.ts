/**
 * POST /hooks/<agent>: Claude Code's HTTP hooks (and Codex's, and the normalized envelope)
 * through the very handler `gctx hook` runs (adapters/hook/run-hook.ts), with the body in
 * place of stdin. The answer is what `gctx hook` would print, byte for byte, as a 200 body;
 * "no decision" is an empty 200, which Claude Code reads as success with nothing to add.
 *
 * The one difference is where the memory comes from: an event of this daemon's project uses
 * the memory the daemon keeps open (lent, never closed here); an event from another project
 * opens that project's memory for the event, as the process would.
 */
import { realpathSync } from 'node:fs';
import type { Memory } from '../../engine/memory.js';
import type { HookCommand } from '../../observer/memory-port.js';
import {
  type EventMemory,
  HOOK_AGENTS,
  type HookAgent,
  type HookMemories,
  type HookOutcome,
  processMemories,
  runHook,
} from '../hook/run-hook.js';

/** The open memory, lent for one event: writes tracked so the answer waits for them, as the process does. */
class LentMemory implements EventMemory {
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly from: number;

  constructor(private readonly memory: Memory) {
    this.from = memory.warnings.length;
  }

  get config() {
    return this.memory.config;
  }
  get root() {
    return this.memory.root;
  }
  get gccDir() {
    return this.memory.gccDir;
  }

  /** `slim` (the event only records calls): no catch-up here, the append catches up under its lock. */
  open(slim?: boolean): Promise<Memory> {
    if (!slim) this.memory.refresh();
    return Promise.resolve(this.memory);
  }

  async execute(cmd: HookCommand, opts?: { session?: string }): Promise<{ branch: string; message: string }> {
    const work = this.memory.execute(cmd, opts);
    this.inflight.add(work);
    const done = () => this.inflight.delete(work);
    work.then(done, done);
    const r = await work;
    return { branch: r.branch, message: r.message };
  }

  briefing(opts?: { session?: string; budget?: number }): string {
    return this.memory.briefing(opts);
  }

  pendingWork(session?: string): { edits: number; turns: number; files: string[] } {
    return this.memory.pendingWork(session);
  }

  approaches() {
    return this.memory.state;
  }

  async drain(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  get warnings(): readonly string[] {
    return this.memory.warnings.slice(this.from);
  }

  close(): void {
    // Lent: the daemon keeps it open.
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function daemonMemories(memory: Memory): HookMemories {
  const own = real(memory.root);
  return {
    forEvent: (root, session) =>
      root === memory.root || real(root) === own ? new LentMemory(memory) : processMemories.forEvent(root, session),
  };
}

export function hookAgent(name: string): HookAgent | null {
  return (HOOK_AGENTS as readonly string[]).includes(name) ? (name as HookAgent) : null;
}

/** One event through the shared handler; the daemon's project is where events without a cwd belong. */
export function answerHook(agent: HookAgent, body: string, memories: HookMemories, root: string): Promise<HookOutcome> {
  return runHook({ agent, input: body, cwd: root }, memories);
}

/** What `gctx hook` prints for the outcome, as the HTTP body (empty for no decision). */
export function hookBody(out: HookOutcome): string {
  return out.stdout === null || out.stdout === '' ? '' : out.stdout.endsWith('\n') ? out.stdout : `${out.stdout}\n`;
}
