import type { ExtensionContext } from '@earendil-works/pi-coding-agent';

type ReadonlySessionManager = ExtensionContext['sessionManager'];

/**
 * The briefing rides in the session as a hidden custom message, stored once: every LLM call
 * carries it, and the system prompt stays untouched so prefix caching holds. "Once" is judged
 * on what the model sees (the compaction-applied projection of the current branch), so a
 * resume, reload or fork that already carries it adds nothing, and a compaction that dropped
 * it gets it back.
 */

export const BRIEFING_TYPE = 'gcc-briefing';
/** Extension notices to the model (memory unavailable, readiness cap, channel fallback). */
export const NOTICE_TYPE = 'gcc-notice';

export function briefingInContext(sm: ReadonlySessionManager): boolean {
  return sm
    .buildSessionProjection()
    .messages.some((m) => m.role === 'custom' && (m as { customType?: string }).customType === BRIEFING_TYPE);
}
