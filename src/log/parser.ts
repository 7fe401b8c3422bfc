/**
 * The byte-level reader of log entries, fed a window of the file at a time so a large log
 * is never held whole in memory: readers stream through one reused buffer rather than new
 * memory for every read (figures in docs/benchmarks.md).
 *
 * Entry layout and the torn-versus-corrupt rules are described in codec.ts.
 */
import { isAscii } from 'node:buffer';
import type { GccEvent } from '../events/types.js';
import { type GccError, gccError } from '../errors.js';
import { MAX_ENTRY_BYTES, MAX_ENTRY_READ } from '../events/rules.js';
import { crc32 } from './crc32.js';
import { NEWER_GCTX, validateEvent } from '../events/validate.js';

export const MACHINE_PREFIX = '<!-- gcc:e ';
export const MACHINE_SUFFIX = ' -->';
export const TERMINATOR = '\n\n---\n\n';

const NL = 0x0a;
const FIND = `\n${MACHINE_PREFIX}`;
const AFTER_LINE = Buffer.from(TERMINATOR.slice(1), 'latin1');
const SUFFIX_BYTES = Buffer.from(MACHINE_SUFFIX, 'latin1');
const ENTRY_START = Buffer.from('**[', 'latin1');
const JSON_START = FIND.length; // offset of the JSON from the newline before the machine line

/** Eight lowercase hex digits at `at` as an unsigned number, or -1. */
function readHex(buf: Buffer, at: number): number {
  let n = 0;
  for (let i = at; i < at + 8; i++) {
    const c = buf[i]!;
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (d < 0) return -1;
    n = n * 16 + d;
  }
  return n;
}

function matchesAt(buf: Buffer, at: number, what: Buffer): boolean {
  if (at < 0 || at + what.length > buf.length) return false;
  for (let i = 0; i < what.length; i++) if (buf[at + i] !== what[i]) return false;
  return true;
}

/** Whether the bytes from `at` to the end can be the start of a torn entry (or zero fill). */
function couldStartEntry(buf: Buffer, at: number): boolean {
  let end = buf.length;
  while (end > at && buf[end - 1] === 0) end--;
  const n = Math.min(end - at, ENTRY_START.length);
  for (let i = 0; i < n; i++) if (buf[at + i] !== ENTRY_START[i]) return false;
  return true;
}

/** JSON is nearly always ASCII, which decodes several times faster as latin1. */
function decode(buf: Buffer, start: number, end: number): string {
  return buf.toString(isAscii(buf.subarray(start, end)) ? 'latin1' : 'utf8', start, end);
}

/** How to get past a damaged entry: git first, else salvage with the loss on record. */
const REPAIR =
  'restore the file from git (`git checkout -- <file>`), or run `gctx doctor --repair`: what ' +
  'still reads is kept and the loss recorded';
/** Text that is not an entry: git's copy, or the text moved out. */
const STRAY = 'restore the file from git, or move the stray text out of it: only gctx writes memory logs';
/**
 * A segment git checked out with CRLF: repair restores git's bytes; gctx's info/attributes keeps git from converting it
 * again.
 */
const CRLF_FIX =
  'run `gctx doctor --repair`: it restores the file as git holds it, and gctx has told git ' +
  "(in .git/info/attributes) not to convert the memory's segments again";
const CR = 0x0d;
/** An event this gctx cannot read may come from a newer one: repairing would drop it. */
const UPGRADE =
  'if a newer gctx wrote it, upgrade (`npm install -g git-context-controller@latest`) and do ' +
  'not repair: `gctx doctor --repair` drops what this version cannot read. Otherwise restore ' +
  'the file from git (`git checkout -- <file>`)';

/** The fixes above for a log git holds no copy of (the open segment before its first commit, the local log). */
const WITHOUT_GIT: [string, string][] = [
  [REPAIR, 'run `gctx doctor --repair`: what still reads is kept and the loss recorded'],
  [
    STRAY,
    'move the stray text out of it (only gctx writes memory logs), or run `gctx doctor ' +
      '--repair`: it keeps the file aside and every event that reads',
  ],
  [
    UPGRADE,
    UPGRADE.replace(
      / Otherwise .*$/,
      ' Otherwise run `gctx doctor --repair`: what still reads is kept and the loss recorded',
    ),
  ],
];

/** A parser's fix for `file` without the way through git, for a file git holds no copy of; other fixes unchanged. */
export function fixWithoutGit(fix: string, file: string): string {
  for (const [withGit, without] of WITHOUT_GIT) if (fix === withGit.replace('<file>', file)) return without;
  return fix;
}

export class EntryParser {
  readonly events: GccEvent[] = [];
  /** File offset just past the last entry read. */
  consumed: number;
  private batchStartIndex = 0;
  private batchStartPos: number;
  private expectedSeq: number;
  /** Ids grow within a file (one writer issues them under its lock), so a file is in replay order. */
  private lastId = '';

  /**
   * @param start file offset of the first byte to be fed
   * @param lineAt the 1-based line of a file offset, for error messages
   */
  constructor(
    private readonly file: string,
    startSeq: number,
    start: number,
    private readonly lineAt: (offset: number) => number,
    private readonly now?: number,
    lastId = '',
    private readonly ordered = true,
  ) {
    this.expectedSeq = startSeq;
    this.lastId = lastId;
    this.consumed = start;
    this.batchStartPos = start;
  }

  private corrupt(message: string, fix: string, offset: number): GccError {
    return gccError('E_CORRUPT', message, fix.replace('<file>', this.file), {
      file: this.file,
      line: this.lineAt(offset),
    });
  }

  /**
   * Read the entries in `view`, whose first byte sits at file offset `base` (at or before
   * `consumed`; the bytes up to `consumed` were read already). Stops at the first entry not
   * wholly inside the view; at the end of the file (`eof`), what is left is judged.
   */
  feed(view: Buffer, base: number, eof: boolean): void {
    let pos = this.consumed - base;
    while (pos < view.length) {
      const entryStart = pos;
      const m = view.indexOf(FIND, pos, 'latin1');
      const lineEnd = m === -1 ? -1 : view.indexOf(NL, m + 1);
      if (lineEnd === -1 || !matchesAt(view, lineEnd + 1, AFTER_LINE)) {
        if (m === -1 || lineEnd === -1 || lineEnd + TERMINATOR.length > view.length) {
          // An entry longer than any gctx writes is refused, torn or not, rather than read to its end.
          if (view.length - pos > MAX_ENTRY_READ) {
            throw this.corrupt(
              `log entry runs past ${MAX_ENTRY_READ / 1024 / 1024} MiB without its end (gctx writes at ` +
                `most ${MAX_ENTRY_BYTES / 1024 / 1024} MiB an entry)`,
              REPAIR,
              base + pos,
            );
          }
          if (!eof) {
            // The entry continues past the view; text that cannot start one is refused now.
            if (!couldStartEntry(view, pos)) {
              throw this.corrupt(
                'the log holds text that is not an entry (written by something other than gctx)',
                STRAY,
                base + pos,
              );
            }
            break;
          }
          // A crash mid-append leaves a prefix of an entry, which starts like every entry
          // (or zeros, where a filesystem extended the file before its data). Anything else
          // was written by something other than gctx: corruption, not a tear to set aside.
          if (!couldStartEntry(view, pos)) {
            throw this.corrupt(
              'the end of the log is not an entry (text written by something other than gctx)',
              STRAY,
              base + pos,
            );
          }
          break; // torn tail
        }
        if (view[lineEnd - 1] === CR)
          throw this.corrupt(
            "the file's line endings were changed to CRLF (git does that on checkout with `core.autocrlf`)",
            CRLF_FIX,
            base + lineEnd + 1,
          );
        throw this.corrupt('log entry is not followed by its `---` separator', REPAIR, base + lineEnd + 1);
      }
      // <!-- gcc:e JSON CRC8 -->: fixed-width CRC and suffix, so positions are arithmetic.
      const suffixAt = lineEnd - SUFFIX_BYTES.length;
      const crcAt = suffixAt - 8;
      const jsonStart = m + JSON_START;
      const jsonEnd = crcAt - 1;
      const shaped = jsonEnd > jsonStart && view[jsonEnd] === 0x20 && matchesAt(view, suffixAt, SUFFIX_BYTES);
      // A whole entry (terminator present) with a bad CRC was edited or damaged, even at the
      // end: a crash mid-append can only leave an entry without its terminator.
      if (!shaped || readHex(view, crcAt) !== crc32(view.subarray(entryStart, jsonEnd))) {
        throw this.corrupt('log entry fails its integrity check (edited or damaged)', REPAIR, base + m + 1);
      }
      let event: GccEvent;
      try {
        event = validateEvent(JSON.parse(decode(view, jsonStart, jsonEnd)), this.now);
      } catch (err) {
        const why = (err as Error).message;
        throw this.corrupt(
          `log entry does not hold a valid event: ${why}`,
          why.includes(NEWER_GCTX) ? UPGRADE : REPAIR,
          base + m + 1,
        );
      }
      if (event.seq !== ++this.expectedSeq) {
        throw this.corrupt(
          `log entry has sequence ${event.seq}, expected ${this.expectedSeq} (duplicated or reordered entry)`,
          REPAIR,
          base + m + 1,
        );
      }
      if (this.ordered && event.id <= this.lastId) {
        throw this.corrupt(
          `log entry ${event.id} is not newer than the entry before it (ids grow within a log)`,
          REPAIR,
          base + m + 1,
        );
      }
      this.lastId = event.id;
      if (this.events.length === this.batchStartIndex) this.batchStartPos = base + entryStart;
      this.events.push(event);
      pos = lineEnd + TERMINATOR.length;
      if (!event.more) this.batchStartIndex = this.events.length;
    }
    this.consumed = base + pos;
  }

  /**
   * The events of the complete batches read so far, handed over and forgotten here (a reader
   * going through a log a window at a time); the batch still open stays until it completes.
   */
  take(): GccEvent[] {
    const done = this.events.splice(0, this.batchStartIndex);
    this.batchStartIndex = 0;
    return done;
  }

  /**
   * End of input: an unfinished batch was never acknowledged, so it belongs to the torn
   * tail with whatever follows it. Returns the file offset where the complete batches end.
   */
  finish(): number {
    if (this.batchStartIndex < this.events.length) {
      this.events.length = this.batchStartIndex;
      this.consumed = this.batchStartPos;
    }
    return this.consumed;
  }
}

/** 1-based line of `offset` in `buf`. */
export function lineOf(buf: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < buf.length; i++) if (buf[i] === NL) line++;
  return line;
}
