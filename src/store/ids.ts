/** Event ids: time-ordered (milliseconds + random), strictly growing per clone. */
import { idTime } from '../events/types.js';
import { randomHex } from '../runtime/random.js';

/** How far ahead of the clock another writer's ids may pull this clone's (see nextId). */
export const ID_SKEW_MS = 10 * 60 * 1000;

/**
 * The next id after `lastId` at `nowMs`: the later of now and just after the newest id seen,
 * so an event follows what it answers, and after `ownLastId`, so this clone's ids grow. An id
 * further ahead than ID_SKEW_MS is a clock running fast elsewhere (or a forged event): it does
 * not drag this clone's ids along.
 */
export function nextId(lastId: string, nowMs: number, ownLastId = ''): string {
  const t = idTime(lastId);
  const own = idTime(ownLastId);
  let ms = nowMs;
  if (Number.isFinite(t) && t <= nowMs + ID_SKEW_MS) ms = Math.max(ms, t + 1);
  if (Number.isFinite(own)) ms = Math.max(ms, own + 1);
  return ms.toString(16).padStart(12, '0') + randomHex(5);
}

export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
