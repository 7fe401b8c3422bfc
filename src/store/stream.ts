/**
 * Every event of a set of logs in id order (the replay order), without holding the history:
 * each log is in id order (the parser checks it), so a k-way merge visits the union. A log is
 * opened only when its first id comes up and closed when it is done, and an open log is read
 * a window at a time (window.ts), so memory holds one window of each log whose time range
 * overlaps the merge's position — the writers active at the same time — not the history, nor
 * even a whole log (the local log spans all of it).
 *
 * The same event in two logs (two clones that each migrated one history) is visited once;
 * one id carrying two different events is corruption. Ids grow within a log (the parser
 * refuses one that does not), so in the merged order two events with one id are neighbours:
 * comparing each event with the one before finds every repeat, with nothing kept of the ids
 * seen.
 */
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import type { EventCursor } from './cursor.js';
import type { LogFile } from './logfile.js';

interface Cursor {
  file: LogFile;
  reader: EventCursor;
  /** The current window's events, and the position in it. */
  events: GccEvent[];
  at: number;
  /** Called once its log is done. */
  done: () => void;
}

/** Move a cursor to its next event, reading windows as needed; false when its log is done. */
function fill(c: Cursor): boolean {
  while (c.at >= c.events.length) {
    const next = c.reader.next();
    if (next === null) {
      c.events = [];
      c.at = 0;
      c.reader.close();
      c.done();
      return false;
    }
    c.events = next;
    c.at = 0;
  }
  return true;
}

const sameEvent = (a: GccEvent, b: GccEvent): boolean =>
  a.at === b.at && a.branch === b.branch && a.type === b.type && JSON.stringify(a.data) === JSON.stringify(b.data);

class Heap {
  private readonly items: Cursor[] = [];
  get size(): number {
    return this.items.length;
  }
  private key(i: number): string {
    const c = this.items[i]!;
    return c.events[c.at]!.id;
  }
  private swap(i: number, j: number): void {
    const t = this.items[i]!;
    this.items[i] = this.items[j]!;
    this.items[j] = t;
  }
  push(c: Cursor): void {
    if (!fill(c)) return;
    this.items.push(c);
    for (let i = this.items.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (this.key(i) >= this.key(p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  top(): Cursor | undefined {
    return this.items[0];
  }
  /** After the top cursor advanced: drop it when done, restore the order. */
  settle(): void {
    if (!fill(this.items[0]!)) {
      const last = this.items.pop()!;
      if (this.items.length === 0) return;
      this.items[0] = last;
    }
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.items.length && this.key(l) < this.key(m)) m = l;
      if (r < this.items.length && this.key(r) < this.key(m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}

export function mergeById(files: readonly LogFile[], visit: (e: GccEvent, file: LogFile) => void, now?: number): void {
  const queue = [...files].sort((a, b) =>
    a.meta.firstId < b.meta.firstId ? -1 : a.meta.firstId > b.meta.firstId ? 1 : 0,
  );
  const heap = new Heap();
  /** Cursors under way, closed as their logs end (and all of them if the merge stops early). */
  const open = new Set<Cursor>();
  let next = 0;
  let last: { e: GccEvent; file: LogFile } | null = null;
  const admit = (): void => {
    while (next < queue.length) {
      const top = heap.top();
      const f = queue[next]!;
      if (top && f.meta.firstId > top.events[top.at]!.id) return;
      const c: Cursor = { file: f, reader: f.cursor(now), events: [], at: 0, done: () => open.delete(c) };
      open.add(c);
      heap.push(c);
      next++;
    }
  };
  try {
    for (admit(); heap.size > 0; admit()) {
      const c = heap.top()!;
      const e = c.events[c.at]!;
      // A visited event is let go at once, not held until the window's last one is visited.
      (c.events as (GccEvent | undefined)[])[c.at] = undefined;
      c.at++;
      heap.settle();
      if (last && e.id === last.e.id) {
        if (!sameEvent(e, last.e)) {
          throw gccError(
            'E_CORRUPT',
            `event ${e.id} appears in ${last.file.rel} and ${c.file.rel} with different content`,
            'one of the two was edited: restore it from git, or run `gctx doctor --repair`',
            { file: c.file.rel },
          );
        }
        continue;
      }
      last = { e, file: c.file };
      visit(e, c.file);
    }
  } finally {
    for (const c of open) c.reader.close();
  }
}
