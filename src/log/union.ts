/**
 * The union of two copies of one log.md, as the git merge driver computes it. Events are
 * identified by their globally unique id, so a merge needs no common ancestor: the result
 * holds every event of both sides exactly once. Atomic batches (the `more` markers) stay
 * contiguous and are ordered by their first event's id; the events are then renumbered
 * 1..n (the per-file sequence must stay gapless) and re-serialized, which recomputes every
 * integrity check. The order depends only on the set of events, so both clones of a team
 * compute the same bytes and a later merge of the two results is a no-op.
 *
 * Anything that cannot be unioned honestly (a damaged entry, a torn batch, one id carrying
 * two different events, a batch split differently on each side) throws E_CORRUPT, and the
 * driver then reports a conflict rather than writing a log it cannot vouch for.
 */
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { parse, serialize } from './codec.js';

export interface UnionResult {
  /** The merged log, ready to write. */
  text: string;
  events: GccEvent[];
  /** Events only the other side had. */
  added: number;
}

/** An event with its position left out: what must agree when both sides hold one id. */
function identity(e: GccEvent): string {
  return JSON.stringify({ ...e, seq: 0 });
}

/** Split a log's events into its atomic batches, in file order. */
export function batchesOf(events: readonly GccEvent[]): GccEvent[][] {
  const out: GccEvent[][] = [];
  let cur: GccEvent[] = [];
  for (const e of events) {
    cur.push(e);
    if (!e.more) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur); // only from a caller's own array: parse drops unfinished batches
  return out;
}

/** Union two event lists (each one log's events, in file order); see the file comment. */
export function unionEvents(ours: readonly GccEvent[], theirs: readonly GccEvent[], file = 'log.md'): { events: GccEvent[]; added: number } {
  const known = new Map<string, GccEvent>();
  const batches: GccEvent[][] = [];
  let added = 0;
  // Our own side goes through the same check, so a log that somehow holds an entry twice
  // comes out with it once.
  for (const [side, list] of [[0, ours], [1, theirs]] as const) {
    for (const batch of batchesOf(list)) {
      const present = batch.filter((e) => known.has(e.id));
      for (const e of present) if (identity(known.get(e.id)!) !== identity(e)) throw conflict(file, e.id, 'appears with different content');
      if (present.length === batch.length) continue;
      if (present.length > 0) throw conflict(file, batch[0]!.id, 'belongs to a batch that is split differently');
      for (const e of batch) known.set(e.id, e);
      batches.push(batch);
      if (side === 1) added += batch.length;
    }
  }
  // A batch's events share one append, so its first id places it; ids are unique, so the
  // order is total and the same whichever side is "ours".
  batches.sort((a, b) => (a[0]!.id < b[0]!.id ? -1 : a[0]!.id > b[0]!.id ? 1 : 0));
  const events: GccEvent[] = [];
  for (const batch of batches) for (const e of batch) events.push({ ...e, seq: events.length + 1 });
  return { events, added };
}

function conflict(file: string, id: string, what: string) {
  return gccError('E_CORRUPT', `${file}: event ${id} ${what}; the logs cannot be unioned safely`, 'resolve by hand: keep one side (`git checkout --ours|--theirs -- <file>`), then `gctx verify`', { file });
}

/** Parse both sides strictly (a torn tail is refused: it was never acknowledged), union, serialize. */
export function unionLogs(ours: string, theirs: string, file = 'log.md'): UnionResult {
  const sides = [ours, theirs].map((text, i) => {
    // The first layout's logs need not be in id order: this union itself interleaves batches.
    const p = parse(text, file, 0, false);
    if (p.tail.length) throw gccError('E_CORRUPT', `${file}: ${i === 0 ? 'our' : 'their'} side ends in an incomplete entry (a crash mid-write was committed)`, 'run any gctx command on that side (opening the memory quarantines the torn entry), commit, and merge again', { file });
    return p.events;
  });
  const { events, added } = unionEvents(sides[0]!, sides[1]!, file);
  return { text: serialize(events), events, added };
}
