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
import { MAX_ENTRY_BYTES } from '../events/rules.js';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { crc32 } from './crc32.js';
import { EntryParser, lineOf, MACHINE_PREFIX, MACHINE_SUFFIX, TERMINATOR } from './parser.js';
import { renderProse } from './prose.js';
import { validateEvent } from '../events/validate.js';

function escapeJson(json: string): string {
  return json.replace(/[<>\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** CRC-32 of the entry's bytes as they stand in the file, from its first byte to the end of the JSON. */
function crcHex(prose: string, json: string): string {
  return crc32(Buffer.from(`${prose}\n${MACHINE_PREFIX}${json}`, 'utf8'))
    .toString(16)
    .padStart(8, '0');
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

/**
 * Refuse, before anything is written, an event whose entry would be larger than a reader
 * accepts: every field can be at its own cap, and together they could exceed MAX_ENTRY_BYTES.
 */
export function assertEntrySize(events: readonly Pick<GccEvent, 'branch' | 'type' | 'data'>[]): void {
  for (const ev of events) {
    // An entry is its JSON plus prose drawn from the same fields: a small JSON cannot reach the cap.
    if (JSON.stringify(ev.data).length < MAX_ENTRY_BYTES / 16) continue;
    const probe = { id: '0'.repeat(22), seq: 1, at: new Date(0).toISOString(), ...ev } as GccEvent;
    const bytes = Buffer.byteLength(serializeEvent(probe), 'utf8');
    if (bytes > MAX_ENTRY_BYTES) {
      throw gccError(
        'E_INVALID_ARGUMENT',
        `this ${ev.type} would take ${(bytes / 1024 / 1024).toFixed(1)} MiB of the log; an entry ` +
          `is at most ${MAX_ENTRY_BYTES / 1024 / 1024} MiB`,
        'summarize the text (the log keeps what matters, not whole outputs), or record fewer files',
      );
    }
  }
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
export function parse(text: string | Buffer, file = 'log.md', startSeq = 0, ordered = true): ParsedLog {
  return parseBytes(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, { file, startSeq, ordered });
}

export interface ParseOptions {
  /** Name for messages. */
  file?: string;
  /** Sequence and id of the entry before `buf[0]` (0 and '' at the start of a file). */
  startSeq?: number;
  lastId?: string;
  /** File offset of `buf[0]`, when only a tail of the file was read. */
  base?: number;
  /** The 1-based line of a file offset, when the caller knows better than `buf`. */
  lineAt?: (offset: number) => number;
  /** The clock events' ids are held against (validateEvent). */
  now?: number;
  /** Ids must grow within the log (true for segments; the first layout's unioned logs need not). */
  ordered?: boolean;
}

/**
 * Parse a log's bytes. A damaged entry followed by intact ones is corruption (an error naming
 * file and line). Damage that only reaches to the end of the bytes is a torn tail: returned,
 * not thrown. An incomplete batch at the end counts as torn. Works on bytes: prose is checked
 * by its CRC and never decoded, only the JSON is.
 */
export function parseBytes(buf: Buffer, o: ParseOptions = {}): ParsedLog {
  const base = o.base ?? 0;
  const p = new EntryParser(
    o.file ?? 'log.md',
    o.startSeq ?? 0,
    base,
    o.lineAt ?? ((offset) => lineOf(buf, offset - base)),
    o.now,
    o.lastId ?? '',
    o.ordered ?? true,
  );
  p.feed(buf, base, true);
  const validEnd = p.finish();
  return { events: p.events, validLength: validEnd - base, tail: buf.toString('utf8', validEnd - base) };
}

/** Lines without their trailing blanks: what an editor's trim (or a CRLF checkout) leaves of them. */
const trimLines = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');

/** Text between entries that is only blank lines and a separator, whole or trimmed. */
const BETWEEN = /^\s*(?:-{1,3}\s*)?$/;

/**
 * The event of one salvaged entry, or a throw. An entry whose prose differs from gctx's only in
 * trailing blanks (an editor trimmed them) is whole: its prose is rendered again from the JSON,
 * and the checksum of that rendering is the one on the machine line, so the JSON is as written.
 */
function salvageEntry(prose: string, line: string, now: number | undefined): GccEvent {
  if (!prose.startsWith('**[') || !line.endsWith(MACHINE_SUFFIX)) throw new Error('no entry');
  const inner = line.slice(MACHINE_PREFIX.length, line.length - MACHINE_SUFFIX.length);
  const json = inner.slice(0, -9);
  const crc = inner.slice(-8);
  if (inner[inner.length - 9] !== ' ') throw new Error('integrity');
  const e = validateEvent(JSON.parse(json), now);
  if (crcHex(prose, json) === crc) return e;
  // As the file holds it: a lone surrogate in free text was written as U+FFFD.
  const again = Buffer.from(renderProse(e), 'utf8').toString('utf8');
  if (trimLines(again) !== trimLines(prose) || crcHex(again, json) !== crc) throw new Error('integrity');
  return e;
}

export interface Salvaged {
  events: GccEvent[];
  /** Entries that did not hold together (an event each, as far as can be told). */
  lost: number;
  /** Stretches of text that were never entries: nothing of the memory, set aside with the file. */
  stray: number;
}

/**
 * Every entry of a damaged log that still holds together — its CRC, its JSON, a valid event —
 * in file order, how many entries did not, and how many stretches of text were never entries.
 * Blanks and separators trimmed or added around an entry do not cost it. For repair: what reads
 * is kept.
 */
export function salvage(buf: Buffer, now?: number): Salvaged {
  const events: GccEvent[] = [];
  let lost = 0;
  let stray = 0;
  const seen = new Set<string>();
  for (const chunk of buf.toString('utf8').split(TERMINATOR)) {
    const at = chunk.lastIndexOf(`\n${MACHINE_PREFIX}`);
    if (at === -1) {
      const text = chunk.replaceAll('\u0000', '');
      if (text.trimStart().startsWith('**[')) lost++;
      else if (!BETWEEN.test(text)) stray++;
      continue;
    }
    const start = chunk.startsWith('**[') ? 0 : chunk.lastIndexOf('\n**[', at) + 1;
    if (!BETWEEN.test(chunk.slice(0, start))) stray++;
    const prose = chunk.slice(start, at);
    // The machine line ends at its line break: what follows it in this chunk is a trimmed
    // separator, or text that is not an entry.
    const eol = chunk.indexOf('\n', at + 1);
    const line = (eol === -1 ? chunk.slice(at + 1) : chunk.slice(at + 1, eol)).trimEnd();
    if (eol !== -1 && !BETWEEN.test(chunk.slice(eol))) stray++;
    try {
      const e = salvageEntry(prose, line, now);
      if (seen.has(e.id)) throw new Error('duplicate');
      seen.add(e.id);
      events.push(e);
    } catch {
      lost++;
    }
  }
  return { events, lost, stray };
}

/**
 * A log's bytes as gctx wrote them, rebuilt from the events salvaged from it, when they give
 * back the acknowledged bytes (`ack`: their size and CRC-32). Serializing is deterministic, so a
 * log whose acknowledged entries all still read is restored byte for byte, whatever was done to
 * its blanks and separators or appended to it. Whole batches read past the acknowledged ones
 * (appended before a crash kept the ledger from saying so) follow them. null otherwise.
 */
export function rebuildLog(events: readonly GccEvent[], ack: { size: number; crc: number }): Buffer | null {
  const parts: Buffer[] = [];
  let size = 0;
  let crc = 0;
  let lastId = '';
  let whole = 0;
  let reached = ack.size === 0;
  for (const e of events) {
    if (e.seq !== parts.length + 1 || e.id <= lastId) break;
    lastId = e.id;
    const b = Buffer.from(serializeEvent(e), 'utf8');
    parts.push(b);
    size += b.length;
    crc = crc32(b, crc);
    if (e.more) continue;
    whole = parts.length;
    if (size === ack.size) reached = crc === ack.crc;
    if (size >= ack.size && !reached) return null;
  }
  return reached ? Buffer.concat(parts.slice(0, whole)) : null;
}
