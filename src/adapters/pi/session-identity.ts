import type { ExtensionContext } from '@earendil-works/pi-coding-agent';

type ReadonlySessionManager = ExtensionContext['sessionManager'];

/**
 * The memory session of a Pi session. Memory keeps a current branch per session id, so the id
 * must be stable across reload and resume (same Pi session file → same id) and new for a fork,
 * which may carry its parent's branch. Pi's own session id gives the first; a marker entry
 * written into the session tells a fork where it came from, because Pi copies entries before
 * the fork point into the new session.
 */

export const IDENTITY_ENTRY = 'gcc-session';

interface MemoryIdentity {
  /** Session id to pass to the engine. */
  id: string;
  /** The memory session this one was forked from (its marker came along with the fork). */
  forkedFrom?: string;
  /** No marker for this id yet: write one. */
  needsMarker: boolean;
}

export function memoryIdentity(sm: ReadonlySessionManager): MemoryIdentity {
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
