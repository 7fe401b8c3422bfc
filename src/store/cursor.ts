/**
 * Reading a log's events a window at a time through its LogFile: what is known of the file is
 * held against what the window read, and a file read for the first time learns its meta.
 */
import type { GccEvent } from '../events/types.js';
import { emptyMeta, type LogMeta, note } from './log-meta.js';
import { crcOfRange, LogWindow } from './window.js';

/** Events handed out a window at a time: `next()` until it returns null, then `close()`. */
export interface EventCursor {
  next(): GccEvent[] | null;
  close(): void;
}

/** What a cursor reads of its log (a LogFile): where it is, what is known of it, how to report a change. */
export interface CursorSource {
  readonly path: string;
  readonly rel: string;
  readonly meta: LogMeta;
  readonly unread: boolean;
  sizeOnDisk(): number | null;
  changedError(): Error;
  firstReadDone(meta: LogMeta, w: LogWindow | null): void;
}

/**
 * One log's known prefix read a window at a time (see LogFile.scan). At the end the bytes read
 * are held against the meta; a parse failure in a file whose bytes are no longer the
 * acknowledged ones is reported as that change rather than as the damage it met.
 */
export class LogCursor implements EventCursor {
  private readonly w: LogWindow | null;
  /** For an unread file: its meta, gathered on this first read. */
  private readonly first: LogMeta | null;

  constructor(
    private readonly file: CursorSource,
    now?: number,
  ) {
    this.first = file.unread ? emptyMeta() : null;
    const to = file.unread ? (file.sizeOnDisk() ?? 0) : file.meta.size;
    this.w = to === 0 ? null : new LogWindow(file.path, { file: file.rel, to, now });
  }

  /** The next window's events (possibly none), or null at the end. */
  next(): GccEvent[] | null {
    if (this.first) return this.nextFirst(this.first);
    if (!this.w) return null;
    const { meta } = this.file;
    let events: GccEvent[] | null;
    try {
      events = this.w.next();
    } catch (err) {
      if (crcOfRange(this.file.path, 0, meta.size) !== meta.crc || (this.file.sizeOnDisk() ?? 0) < meta.size)
        throw this.file.changedError();
      throw err;
    }
    if (events === null && (this.w.validEnd !== meta.size || this.w.crc !== meta.crc)) throw this.file.changedError();
    return events;
  }

  /** An unread file: nothing known to hold it against; what it holds becomes what is known. */
  private nextFirst(meta: LogMeta): GccEvent[] | null {
    const events = this.w?.next() ?? null;
    if (events !== null) {
      note(meta, events);
      return events;
    }
    if (this.file.unread) this.file.firstReadDone(meta, this.w);
    return null;
  }

  close(): void {
    this.w?.close();
  }
}
