/**
 * Reading every log from scratch in replay (id) order without holding the history in
 * memory. A 100,000-event history kept whole costs more in garbage collection and fresh
 * memory than its parsing; streamed, each event is folded and dropped, and the logs are
 * left to be read again only if something later asks for their events.
 *
 * It relies on how gctx writes: ids grow across every append (they are issued under the
 * lock), each file is in id order, and a branch's log starts after the event that created
 * it. Logs that break this (possible after merging clones by hand) are reported, and the
 * caller reads them the usual way.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import type { GccEvent } from '../events/types.js';
import { EntryParser } from '../log/parser.js';
import type { LogFile } from './logfile.js';
import { lineInFile, LogWindow } from './read-log.js';

const WINDOW = 1 << 20;

/** One log read front to back a window at a time, offering events of complete batches. */
class Cursor {
  private queue: GccEvent[] = [];
  private at = 0;
  /** null once the file was read to its end (or is missing). */
  private window: LogWindow | null = null;
  readonly end: number;
  readonly ino: number;
  validLength = 0;
  lastSeq = 0;

  constructor(readonly log: LogFile) {
    let fd: number;
    try {
      fd = openSync(log.path, 'r');
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw err;
      this.end = 0;
      this.ino = -1;
      return;
    }
    try {
      const st = fstatSync(fd);
      // Appends after this point are left for the next catch-up, as a read would leave them.
      this.end = st.size;
      this.ino = st.ino;
      const parser = new EntryParser(log.rel, 0, 0, (offset) => lineInFile(log.path, offset));
      this.window = new LogWindow(Buffer.allocUnsafe(Math.max(1, Math.min(st.size, WINDOW))), parser, 0, st.size);
      this.fill(fd);
    } finally {
      closeSync(fd);
    }
  }

  peek(): GccEvent | undefined {
    while (this.at >= this.queue.length && this.window) {
      const fd = openSync(this.log.path, 'r');
      try {
        this.fill(fd);
      } finally {
        closeSync(fd);
      }
    }
    return this.queue[this.at];
  }

  shift(): void {
    this.at++;
  }

  private fill(fd: number): void {
    const w = this.window!;
    w.step(fd);
    if (w.done) {
      this.validLength = w.parser.finish();
      this.window = null;
    }
    this.queue = w.parser.takeSettled();
    this.at = 0;
    if (this.queue.length) this.lastSeq = this.queue[this.queue.length - 1]!.seq;
  }
}

/** A binary min-heap of cursors by the id of their next event. */
class Heap {
  private readonly items: Cursor[] = [];
  private less(i: number, j: number): boolean {
    return this.items[i]!.peek()!.id < this.items[j]!.peek()!.id;
  }
  private swap(i: number, j: number): void {
    const t = this.items[i]!;
    this.items[i] = this.items[j]!;
    this.items[j] = t;
  }
  push(c: Cursor): void {
    if (!c.peek()) return;
    this.items.push(c);
    for (let i = this.items.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  /** The cursor holding the smallest next id; call settle() after advancing it. */
  top(): Cursor | undefined {
    return this.items[0];
  }
  settle(): void {
    const n = this.items.length;
    if (!this.items[0]!.peek()) {
      this.items[0] = this.items[n - 1]!;
      this.items.pop();
    }
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.items.length && this.less(l, m)) m = l;
      if (r < this.items.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }
}

export interface Streamed {
  log: LogFile;
  /** The file's size when opened; more than validLength means a torn tail. */
  end: number;
  /** Bytes of complete batches, their last sequence, and the inode read. */
  validLength: number;
  lastSeq: number;
  ino: number;
}

/**
 * Visit every event of `first` and of every branch log its events lead to, in id order.
 * `track` returns the log of a branch whose creation was just visited. Returns what was
 * read of each log, or null as soon as an event arrives out of id order (the events
 * visited so far must then be thrown away).
 */
export function streamLogs(first: LogFile, track: (branch: string) => LogFile, visit: (e: GccEvent) => void): Streamed[] | null {
  const cursors = [new Cursor(first)];
  const heap = new Heap();
  heap.push(cursors[0]!);
  const open = new Set<LogFile>([first]);
  let lastId = '';
  for (let c = heap.top(); c; c = heap.top()) {
    const e = c.peek()!;
    if (e.id <= lastId) return null;
    lastId = e.id;
    c.shift();
    heap.settle();
    visit(e);
    if (e.type === 'branch.created') {
      const log = track(e.data.name);
      if (!open.has(log)) {
        open.add(log);
        const next = new Cursor(log);
        cursors.push(next);
        heap.push(next);
      }
    }
  }
  return cursors.map((cur) => ({ log: cur.log, end: cur.end, validLength: cur.validLength, lastSeq: cur.lastSeq, ino: cur.ino }));
}
