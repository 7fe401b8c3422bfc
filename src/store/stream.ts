/**
 * Every event of a set of logs in id order (the replay order), without holding the history:
 * each log is in id order (the parser checks it), so a k-way merge visits the union. A log is
 * read only when its first id comes up and dropped when it is done, so the logs in memory at
 * once are those whose time ranges overlap — the writers active at the same time — not the
 * whole history.
 *
 * The same event in two logs (two clones that each migrated one history) is visited once;
 * one id carrying two different events is corruption.
 */
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import type { LogFile } from './logfile.js';

interface Cursor {
  file: LogFile;
  events: GccEvent[];
  at: number;
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
    if (c.at >= c.events.length) return;
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
    if (this.items[0]!.at >= this.items[0]!.events.length) {
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

export function mergeById(files: readonly LogFile[], visit: (e: GccEvent) => void, now?: number): void {
  const queue = [...files].sort((a, b) => (a.meta.firstId < b.meta.firstId ? -1 : a.meta.firstId > b.meta.firstId ? 1 : 0));
  const heap = new Heap();
  let next = 0;
  let last: { e: GccEvent; file: LogFile } | null = null;
  const admit = (): void => {
    while (next < queue.length) {
      const top = heap.top();
      const f = queue[next]!;
      if (top && f.meta.firstId > top.events[top.at]!.id) return;
      heap.push({ file: f, events: f.readAll(now), at: 0 });
      next++;
    }
  };
  for (admit(); heap.size > 0; admit()) {
    const c = heap.top()!;
    const e = c.events[c.at]!;
    c.at++;
    heap.settle();
    if (last && e.id === last.e.id) {
      if (!sameEvent(e, last.e)) {
        throw gccError('E_CORRUPT', `event ${e.id} appears in ${last.file.rel} and ${c.file.rel} with different content`, 'one of the two was edited: restore it from git, or run `gctx doctor --repair`', { file: c.file.rel });
      }
      continue;
    }
    last = { e, file: c.file };
    visit(e);
  }
}
