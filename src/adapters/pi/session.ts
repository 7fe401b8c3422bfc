/**
 * What one extension instance (one Pi session) holds, and how it is known across Pi's own
 * session events: the opened memory or why there is none, the memory session id, and whether
 * the briefing is already in what the model sees.
 *
 * Fail open: a missing or broken store leaves `memory` null and `problem` set; the tools answer
 * with the problem and its remedy, the hook stays quiet, and the session goes on.
 */
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import type { Memory } from '../../engine/memory.js';
import { asGccError } from '../../errors.js';
import type { ResolvedConfig } from './config.js';

type ReadonlySessionManager = ExtensionContext['sessionManager'];

export const IDENTITY_ENTRY = 'gcc-session';
export const BRIEFING_TYPE = 'gcc-briefing';
/** Extension notices to the model (memory unavailable, readiness cap, channel fallback). */
export const NOTICE_TYPE = 'gcc-notice';

export class MemorySlot {
  memory: Memory | null = null;
  problem: { code: string; what: string; remedy: string } | null = null;
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
    return (
      `GCC memory is unavailable in this session (${p.code}): ${p.what}. Remedy: ${p.remedy}. The session ` +
      'works normally otherwise; memory tools will answer with this error until it is fixed and the session ' +
      'reloaded (/reload).'
    );
  }
}

/**
 * The memory session of a Pi session. Memory keeps a current branch per session id, so the id
 * must be stable across reload and resume (same Pi session file → same id) and new for a fork,
 * which may carry its parent's branch. Pi's own session id gives the first; a marker entry
 * written into the session tells a fork where it came from, because Pi copies entries before
 * the fork point into the new session.
 */
export function memoryIdentity(sm: ReadonlySessionManager): { id: string; forkedFrom?: string; needsMarker: boolean } {
  const id = `pi:${sm.getSessionId()}`;
  let carried: string | undefined;
  for (const entry of sm.getBranch()) {
    if (entry.type !== 'custom' || entry.customType !== IDENTITY_ENTRY) continue;
    const data = entry.data as { id?: unknown } | undefined;
    if (typeof data?.id === 'string') carried = data.id;
  }
  if (carried === id) return { id, needsMarker: false };
  return carried === undefined ? { id, needsMarker: true } : { id, forkedFrom: carried, needsMarker: true };
}

/**
 * The briefing rides in the session as a hidden custom message, stored once, so the system
 * prompt stays untouched and prefix caching holds. "Once" is judged on what the model sees (the
 * compaction-applied projection of the current branch): a resume, reload or fork that carries
 * it adds nothing, and a compaction that dropped it gets it back.
 */
export function briefingInContext(sm: ReadonlySessionManager): boolean {
  return sm
    .buildSessionProjection()
    .messages.some((m) => m.role === 'custom' && (m as { customType?: string }).customType === BRIEFING_TYPE);
}
