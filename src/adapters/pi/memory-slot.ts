import type { Memory } from '../../engine/memory.js';
import { asGccError } from '../../errors.js';
import type { ResolvedConfig } from './config.js';

/**
 * What one extension instance (one Pi session) holds: the opened memory, or why there is none.
 * Fail open: a missing or broken store leaves `memory` null and `problem` set; the tools answer
 * with the problem and its remedy, the hook stays quiet, and the session goes on.
 */
interface Unavailable {
  code: string;
  what: string;
  remedy: string;
}

export class MemorySlot {
  memory: Memory | null = null;
  problem: Unavailable | null = null;
  /** Engine session id of this Pi session. */
  session = '';
  resolved: ResolvedConfig | null = null;

  fail(err: unknown, context: string): void {
    const e = asGccError(err);
    this.memory = null;
    this.problem = {
      code: e.code,
      what: `${context}: ${e.message}${e.file ? ` (${e.file}${e.line ? `:${e.line}` : ''})` : ''}`,
      remedy: e.fix ?? 'run `gctx doctor` in the project folder',
    };
  }

  /** One line for the model or the person: what is missing and what fixes it. */
  describeProblem(): string {
    const p = this.problem;
    if (!p) return '';
    return `GCC memory is unavailable in this session (${p.code}): ${p.what}. Remedy: ${p.remedy}. The session works normally otherwise; memory tools will answer with this error until it is fixed and the session reloaded (/reload).`;
  }
}
