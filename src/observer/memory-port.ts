import type { Command } from '../decider/commands.js';
import type { Config } from '../events/types.js';
import type { ApproachSource } from './repeat-guard.js';

/**
 * The slice of the engine's `Memory` the hook logic needs. Declared structurally here so the
 * hook depends on a contract, not on the engine's module graph: `gctx hook` and the Pi adapter
 * pass the real `Memory`, which satisfies it.
 */
export interface HookMemory {
  readonly config: Config;
  readonly root: string;
  readonly gccDir: string;
  execute(cmd: HookCommand, opts?: { session?: string }): Promise<{ branch: string; message: string }>;
  briefing(opts?: { session?: string; budget?: number }): string;
  pendingWork(session?: string): { edits: number; turns: number; files: string[] };
  /** The failed approaches for the repeat guard, without a read of the logs (null: none to hand). */
  approaches?(): ApproachSource | null;
  /** An open memory's folded state, where the host holds one (the Pi extension). */
  readonly state?: ApproachSource;
}

/** The engine commands the hook issues. */
export type HookCommand = Extract<Command, { type: 'record-tool' | 'record-prompt' | 'log' | 'session' }>;
