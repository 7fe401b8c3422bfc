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
import { EntryParser, lineOf, MACHINE_PREFIX, MACHINE_SUFFIX, TERMINATOR } from './parser.js';
import { renderProse } from './prose.js';

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
  const p = new EntryParser(file, startSeq, 0, (offset) => lineOf(buf, offset));
  p.feed(buf, 0, true);
  const validLength = p.finish();
  return { events: p.events, validLength, tail: buf.toString('utf8', validLength) };
}
