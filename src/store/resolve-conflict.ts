/**
 * A segment git (or a hand merge) left with conflict markers: the union of its sides' events,
 * by id, written back as valid segments of at most SEGMENT_MAX. Segments are never appended
 * to by two writers, so this only meets files merged by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { parse, serialize } from '../log/codec.js';
import { conflictSides } from '../log/conflict.js';
import { randomHex } from '../runtime/random.js';
import { SEGMENT_MAX } from './append.js';
import { emptyMeta } from './log-meta.js';
import { newSegmentName } from './paths.js';
import type { Store } from './store.js';

/**
 * Events in id order as segments of at most SEGMENT_MAX, renumbered. Each event stands alone:
 * a hand merge may have interleaved batches, so their markers say nothing a reader needs.
 */
function renumber(events: GccEvent[]): GccEvent[][] {
  const files: GccEvent[][] = [[]];
  let bytes = 0;
  for (const e of events) {
    const size = JSON.stringify(e).length * 2;
    if (bytes > 0 && bytes + size > SEGMENT_MAX) {
      files.push([]);
      bytes = 0;
    }
    const file = files[files.length - 1]!;
    const { more: _more, ...rest } = e;
    file.push({ ...rest, seq: file.length + 1 } as GccEvent);
    bytes += size;
  }
  return files.filter((f) => f.length);
}

/** The union of the sides of a conflicted segment, written back and acknowledged. Under the lock. */
export function resolveConflict(store: Store, name: string): number {
  const f = store.file(name);
  const text = readFileSync(f.path, 'utf8');
  const sides = conflictSides(text);
  if (!sides) {
    const fix = "resolve the conflict by hand (keep both sides' entries), then retry";
    const what = `${f.rel} holds conflict markers that do not nest as git writes them`;
    throw gccError('E_CORRUPT', what, fix, { file: f.rel });
  }
  const byId = new Map<string, GccEvent>();
  for (const t of [sides.ours, sides.theirs]) {
    for (const e of parse(t, f.rel, 0, false).events) if (!byId.has(e.id)) byId.set(e.id, e);
  }
  const events = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const files = renumber(events);
  const whole = files.length ? serialize(files[0]!) : '';
  writeFileSync(f.path, whole);
  // The union is this log from now on: its journal copy too, or the next open would put the old bytes back.
  if (store.journaled(name)) store.journal?.replace(name, Buffer.from(whole, 'utf8'));
  const written = [f];
  for (const extra of files.slice(1)) {
    const more = store.file(newSegmentName(new Date(), randomHex(3)));
    more.append(serialize(extra), extra);
    written.push(more);
  }
  f.meta = emptyMeta();
  f.load();
  // The union holds every event of both sides, what this clone acknowledged among them; it is
  // acknowledged as it now stands (ids sort the other side's events in among ours, so the old
  // bytes are no longer a prefix), and the memory is folded again from it.
  store.acknowledge(written, true, true);
  return events.length;
}
