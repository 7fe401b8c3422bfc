/**
 * log.md codec. An entry is readable prose followed by one machine line that carries the
 * whole event as JSON plus a CRC-32 over prose and JSON:
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

function crcHex(prose: string, json: string): string {
  return crc32(`${prose}\n${json}`).toString(16).padStart(8, '0');
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
  /** Byte-exact text of every complete entry, i.e. where appending resumes. */
  validLength: number;
  /** Text after the last complete batch: a crash mid-write. Empty when the log is whole. */
  tail: string;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Parse a whole log. A damaged entry followed by intact ones is corruption (an error naming
 * file and line). Damage that only reaches to the end of the file is a torn tail: returned,
 * not thrown, so the store can quarantine it. An incomplete batch at the end counts as torn.
 */
export function parse(text: string, file = 'log.md', startSeq = 0): ParsedLog {
  const events: GccEvent[] = [];
  let pos = 0;
  let batchStartIndex = 0;
  let batchStartPos = 0;
  let expectedSeq = startSeq;
  while (pos < text.length) {
    const entryStart = pos;
    const m = text.indexOf(FIND, pos);
    const lineEnd = m === -1 ? -1 : text.indexOf('\n', m + 1);
    const complete = lineEnd !== -1 && text.startsWith(TERMINATOR.slice(1), lineEnd + 1);
    if (!complete) {
      if (m === -1 || lineEnd === -1 || lineEnd + TERMINATOR.length > text.length) break; // torn tail
      throw gccError('E_CORRUPT', 'log entry is not followed by its `---` separator', 'restore the file from git, or run `gctx doctor`', {
        file,
        line: lineOf(text, lineEnd + 1),
      });
    }
    const prose = text.slice(entryStart, m);
    const machine = text.slice(m + 1, lineEnd);
    const ok = machine.endsWith(MACHINE_SUFFIX) ? machine.slice(MACHINE_PREFIX.length, -MACHINE_SUFFIX.length) : '';
    const sp = ok.lastIndexOf(' ');
    const json = sp === -1 ? '' : ok.slice(0, sp);
    const crc = sp === -1 ? '' : ok.slice(sp + 1);
    // A whole entry (terminator present) with a bad CRC was edited or damaged, even at the
    // end: a crash mid-append can only leave an entry without its terminator.
    if (!json || crcHex(prose, json) !== crc) {
      throw gccError('E_CORRUPT', 'log entry fails its integrity check (edited or damaged)', 'restore the file from git; log.md is written only by gctx', {
        file,
        line: lineOf(text, m + 1),
      });
    }
    let event: GccEvent;
    try {
      event = validateEvent(JSON.parse(json));
    } catch (err) {
      throw gccError('E_CORRUPT', `log entry does not hold a valid event: ${(err as Error).message}`, 'restore the file from git', {
        file,
        line: lineOf(text, m + 1),
      });
    }
    if (event.seq !== ++expectedSeq) {
      throw gccError('E_CORRUPT', `log entry has sequence ${event.seq}, expected ${expectedSeq} (duplicated or reordered entry)`, 'restore the file from git, or run `gctx doctor`', {
        file,
        line: lineOf(text, m + 1),
      });
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
  return { events, validLength: Buffer.byteLength(text.slice(0, pos)), tail: text.slice(pos) };
}
