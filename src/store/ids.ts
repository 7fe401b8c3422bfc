/** Event ids: time-ordered (milliseconds + random), strictly growing per clone and past every id seen. */
import { idTime } from '../events/types.js';
import { randomHex } from '../runtime/random.js';

/**
 * The next id after `lastId` at `nowMs`: the later of now and just after the newest id seen,
 * so an event always sorts after what it answers (a commit made after reading a teammate's
 * sorts after it, whatever either clock said), and after `ownLastId`, so this clone's ids grow.
 * An id read from a log is at most FUTURE_SKEW_MS ahead of the clock (events further ahead are
 * refused as damage), which bounds how far another clock can pull this clone's ids along.
 */
export function nextId(lastId: string, nowMs: number, ownLastId = ''): string {
  let ms = nowMs;
  for (const seen of [idTime(lastId), idTime(ownLastId)]) if (Number.isFinite(seen)) ms = Math.max(ms, seen + 1);
  return ms.toString(16).padStart(12, '0') + randomHex(5);
}

export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
