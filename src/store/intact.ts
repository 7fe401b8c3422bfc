/**
 * What the ledger can still tell of a log that does not read as it was acknowledged: that every
 * acknowledged event is intact (only its blank lines or separators were edited, or text was
 * added after its last entry), or that the ledger itself is what disagrees (the log is unchanged
 * since it was acknowledged, or the ledger's entry is at odds with itself). Asked only of a log
 * found damaged, so reading it whole here costs nothing on the way of a healthy open.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { relative } from 'node:path';
import { type GccError, gccError } from '../errors.js';
import { rebuildLog, salvage } from '../log/codec.js';
import { MACHINE_SUFFIX } from '../log/parser.js';
import { crc32 } from '../log/crc32.js';
import { events } from './git-explain.js';
import { type LedgerEntry, ledgerFileOf } from './ledger.js';
import { signatureOf } from './log-meta.js';
import { MAX_LOG_BYTES } from './logfile.js';

/** Where a log stands, for these questions. */
export interface Held {
  /** The log's name in the ledger (`YYYY-MM/….md`, or `local`). */
  name: string;
  path: string;
  /** Its path relative to the project, for messages. */
  rel: string;
  root: string;
  ledger: string;
}

/**
 * E_CORRUPT saying that every acknowledged event of the log is intact, with a repair that
 * rewrites it as gctx wrote it; null when that cannot be shown (the damage reaches an event).
 */
export function intactDamage(h: Held, entry: LedgerEntry, now?: number): GccError | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(h.path);
  } catch {
    return null;
  }
  if (bytes.length > MAX_LOG_BYTES || !rebuildLog(salvage(bytes, now).events, entry)) return null;
  const appended =
    bytes.length > entry.size &&
    crc32(bytes.subarray(0, entry.size)) === entry.crc &&
    bytes.subarray(entry.size).toString('latin1').trim() !== '';
  const what = appended
    ? 'ends in text that is not an entry (written by something other than gctx)'
    : 'had its spacing edited (blank lines, trailing spaces or the `---` separators, as an editor trims or adds them)';
  const aside = appended ? ', the text kept in .GCC/aside/' : '';
  return gccError(
    'E_CORRUPT',
    `${h.rel} ${what}; its ${events(entry.seq)} ${entry.seq === 1 ? 'is' : 'are'} intact`,
    `run \`gctx doctor --repair\`: it rewrites the file as gctx wrote it, every event kept${aside}`,
    { file: h.rel },
  );
}

/** The size a signature (size:mtime:inode) records, or -1 when it holds none. */
function sizeOf(sig: string): number {
  const m = /^(\d+):/.exec(sig);
  return m ? Number(m[1]) : -1;
}

/** Whether the ledger's entry contradicts itself: a size other than its signature's. */
export function selfContradicting(entry: LedgerEntry): boolean {
  return entry.sig !== '' && sizeOf(entry.sig) !== entry.size;
}

/**
 * E_CORRUPT naming the ledger when it, not the log, is at fault, for a log whose bytes are not
 * what the ledger acknowledged yet read whole (the caller knows both): the log is exactly as it
 * was when acknowledged (its signature is the one recorded), or the ledger's entry contradicts
 * itself. null otherwise.
 */
export function ledgerDisagrees(h: Held, entry: LedgerEntry): GccError | null {
  if (!entry.sig) return null;
  const unchanged = signatureOf(h.path) === entry.sig;
  if (!unchanged && !selfContradicting(entry)) return null;
  const file = relative(h.root, ledgerFileOf(h.ledger, h.name));
  const why = unchanged
    ? `${h.rel} is as it was when acknowledged, and reads whole, but ${file} records other bytes for it`
    : `${file} contradicts itself about ${h.rel} (a size its signature does not have), and the log reads whole`;
  return gccError(
    'E_CORRUPT',
    `${why}: the ledger was edited or damaged, not the log`,
    'run `gctx doctor --repair`: it acknowledges the log as it stands and records that',
    { file },
  );
}

/** The last `n` bytes of a file, or null when it cannot be read. */
function lastBytes(path: string, n: number): Buffer | null {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(n, size));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      return buf;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/**
 * What is said of another writer's log ending in an incomplete batch of `tail` bytes. It is
 * left out either way: this clone never acknowledged it, and a crash can stop a write right
 * after a machine line, whose writer then sets it aside. But a whole batch missing only the
 * separator after it is more likely an editor's trim: said so, since putting it back is the cure.
 */
export function foreignTail(h: { path: string; rel: string }, tail: number, now?: number): string {
  const bytes = lastBytes(h.path, tail);
  const text = bytes ? bytes.toString('utf8').replace(/[\s-]+$/, '') : '';
  const s = text.endsWith(MACHINE_SUFFIX) ? salvage(Buffer.from(text, 'utf8'), now) : null;
  if (s && s.lost === 0 && s.stray === 0 && s.events.length > 0 && !s.events.at(-1)!.more) {
    return (
      `${h.rel} ends in a whole entry missing the \`---\` separator after it (trimmed by an editor?); ` +
      'this clone did not write it, so it is left out until the separator is back'
    );
  }
  return `${h.rel} ends in an incomplete entry that this clone did not write; it is ignored`;
}
