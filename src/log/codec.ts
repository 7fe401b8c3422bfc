/**
 * log.md codec. An entry is readable prose followed by one machine line that carries the
 * whole event as JSON plus a CRC-32 of the entry up to the end of that JSON:
 *
 *   **[OTA-042]** 2026-11-29T10:00:00.000Z | Branch: main
 *   - **Observation**: ...
 *   <!-- gcc:e {"id":"...","seq":42,...} 1a2b3c4d -->
 *
 *   ---
 *
 * Prose lines never start with `<`, and the JSON escapes `<`, `>` and line breaks, so no
 * free text can forge, split or hide an entry. The CRC makes a torn or edited entry visible.
 */
import { crc32 } from 'node:zlib';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { renderProse } from './prose.js';
import { validateEvent } from './validate.js';

export const MACHINE_PREFIX = '<!-- gcc:e ';
const MACHINE_SUFFIX = ' -->';
const TERMINATOR = '\n\n---\n\n';
const FIND = `\n${MACHINE_PREFIX}`;

function escapeJson(json: string): string {
  return json.replace(/[<>\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** CRC-32 of the entry's bytes as they stand in the file, from its first byte to the end of the JSON. */
function crcHex(prose: string, json: string): string {
  return crc32(Buffer.from(`${prose}\n${MACHINE_PREFIX}${json}`, 'utf8')).toString(16).padStart(8, '0');
}

/** The envelope in its canonical key order, so bytes are deterministic. */
function canonical(e: GccEvent): object {
  const out: Record<string, unknown> = { id: e.id, seq: e.seq, at: e.at, branch: e.branch, type: e.type, data: e.data };
  if (e.more !== undefined) out.more = e.more;
  return out;
}

export function serializeEvent(e: GccEvent): string {
  const prose = renderProse(e);
  const json = escapeJson(JSON.stringify(canonical(e)));
  return `${prose}\n${MACHINE_PREFIX}${json} ${crcHex(prose, json)}${MACHINE_SUFFIX}${TERMINATOR}`;
}

export function serialize(events: readonly GccEvent[]): string {
  let out = '';
  for (const e of events) out += serializeEvent(e);
  return out;
}

export interface ParsedLog {
  events: GccEvent[];
  /** Bytes of every complete entry: where appending resumes. */
  validLength: number;
  /** Text after the last complete batch: a crash mid-write. Empty when the log is whole. */
  tail: string;
}

function lineOf(buf: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < buf.length; i++) if (buf[i] === NL) line++;
  return line;
}

const NL = 0x0a;
const FIND_BYTES = Buffer.from(FIND, 'utf8');
const AFTER_LINE = Buffer.from(TERMINATOR.slice(1), 'utf8');
const SUFFIX_BYTES = Buffer.from(MACHINE_SUFFIX, 'utf8');
const JSON_START = FIND_BYTES.length; // offset of the JSON from the newline before the machine line

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

const ENTRY_START = Buffer.from('**[', 'utf8');

/** Whether the bytes from `at` to the end can be the start of a torn entry (or zero fill). */
function couldStartEntry(buf: Buffer, at: number): boolean {
  let end = buf.length;
  while (end > at && buf[end - 1] === 0) end--;
  const n = Math.min(end - at, ENTRY_START.length);
  for (let i = 0; i < n; i++) if (buf[at + i] !== ENTRY_START[i]) return false;
  return true;
}

/** Text of a log, as a string or as the bytes read from disk. */
export function parse(text: string | Buffer, file = 'log.md', startSeq = 0): ParsedLog {
  return parseBytes(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, file, startSeq);
}

/**
 * Parse a whole log. A damaged entry followed by intact ones is corruption (an error naming
 * file and line). Damage that only reaches to the end of the file is a torn tail: returned,
 * not thrown, so the store can quarantine it. An incomplete batch at the end counts as torn.
 * Works on bytes: prose is checked by its CRC and never decoded, only the JSON is.
 */
export function parseBytes(buf: Buffer, file = 'log.md', startSeq = 0): ParsedLog {
  const events: GccEvent[] = [];
  let pos = 0;
  let batchStartIndex = 0;
  let batchStartPos = 0;
  let expectedSeq = startSeq;
  const corrupt = (message: string, fix: string, at: number) => gccError('E_CORRUPT', message, fix, { file, line: lineOf(buf, at) });
  while (pos < buf.length) {
    const entryStart = pos;
    const m = buf.indexOf(FIND_BYTES, pos);
    const lineEnd = m === -1 ? -1 : buf.indexOf(NL, m + 1);
    if (lineEnd === -1 || !matchesAt(buf, lineEnd + 1, AFTER_LINE)) {
      if (m === -1 || lineEnd === -1 || lineEnd + TERMINATOR.length > buf.length) {
        // A crash mid-append leaves a prefix of an entry, which starts like every entry
        // (or zeros, where a filesystem extended the file before its data). Anything else
        // was written by something other than gctx: corruption, not a tear to set aside.
        if (!couldStartEntry(buf, pos)) {
          throw corrupt('the end of the log is not an entry (text written by something other than gctx)', 'restore the file from git, or move the stray text out of log.md', pos);
        }
        break; // torn tail
      }
      throw corrupt('log entry is not followed by its `---` separator', 'restore the file from git, or run `gctx doctor`', lineEnd + 1);
    }
    // <!-- gcc:e JSON CRC8 -->: fixed-width CRC and suffix, so positions are arithmetic.
    const suffixAt = lineEnd - SUFFIX_BYTES.length;
    const crcAt = suffixAt - 8;
    const jsonStart = m + JSON_START;
    const jsonEnd = crcAt - 1;
    const shaped = jsonEnd > jsonStart && buf[jsonEnd] === 0x20 && matchesAt(buf, suffixAt, SUFFIX_BYTES);
    // A whole entry (terminator present) with a bad CRC was edited or damaged, even at the
    // end: a crash mid-append can only leave an entry without its terminator.
    if (!shaped || readHex(buf, crcAt) !== crc32(buf.subarray(entryStart, jsonEnd))) {
      throw corrupt('log entry fails its integrity check (edited or damaged)', 'restore the file from git; log.md is written only by gctx', m + 1);
    }
    let event: GccEvent;
    try {
      event = validateEvent(JSON.parse(buf.toString('utf8', jsonStart, jsonEnd)));
    } catch (err) {
      throw corrupt(`log entry does not hold a valid event: ${(err as Error).message}`, 'restore the file from git', m + 1);
    }
    if (event.seq !== ++expectedSeq) {
      throw corrupt(`log entry has sequence ${event.seq}, expected ${expectedSeq} (duplicated or reordered entry)`, 'restore the file from git, or run `gctx doctor`', m + 1);
    }
    if (events.length === batchStartIndex) batchStartPos = entryStart;
    events.push(event);
    pos = lineEnd + TERMINATOR.length;
    if (!event.more) batchStartIndex = events.length;
  }
  // An unfinished batch at the end was never acknowledged: it belongs to the torn tail.
  if (batchStartIndex < events.length) {
    events.length = batchStartIndex;
    pos = batchStartPos;
  }
  return { events, validLength: pos, tail: buf.toString('utf8', pos) };
}
