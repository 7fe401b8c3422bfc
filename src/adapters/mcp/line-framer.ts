/**
 * Splitting `gctx mcp`'s stdin into lines of at most a limit, without ever holding an overlong
 * line whole, and recovering the id of such a line from its two ends so it can be answered.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Bytes kept from each end of an overlong line, to find its id in. */
const EDGE = 256;
/** An id as it can be read from the raw bytes: an integer, or a plain ASCII string. */
const ID = String.raw`(-?\d{1,15}|"[ !#-\[\]-~]{0,200}")`;
/** `{"jsonrpc":"2.0","id":7,…` (or after "method"): the id near the start of the line. */
const HEAD_ID = new RegExp(String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,)*\s*"id"\s*:\s*${ID}`);
/**
 * A request shows its "method" key before any other but jsonrpc and id. Only a request's id is
 * recovered: the same id on a response (the client's) would name one of the client's own requests.
 */
const REQUEST_HEAD = /^\s*\{(?:\s*"(?:jsonrpc|id)"\s*:\s*(?:"[^"\\]*"|-?\d+)\s*,)*\s*"method"\s*:/;
/**
 * `…,"jsonrpc":"2.0","id":7}`, as the SDK's client writes it: in a whole JSON object the member before the last `}` is
 * top level.
 */
const TAIL_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`);

export type Frame = { kind: 'line'; bytes: Buffer } | { kind: 'overlong'; bytes: number; id: RequestId | null };

/**
 * Splits a byte stream into lines, at most `limit` bytes each. Lines are cut at the newline
 * byte and only then decoded, so a character split between chunks arrives whole (0x0A never
 * occurs inside a multi-byte UTF-8 sequence).
 */
export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0;
  /** While an overlong line is being skipped: its first and last bytes. */
  private skipping: { head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly limit: number,
    private readonly emit: (frame: Frame) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.take(chunk.subarray(start, nl));
      this.finish();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** End of input: a last line without its newline is still a line. */
  end(): void {
    if (this.size > 0) this.finish();
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.skipping) {
      this.skipping.tail = lastBytes(this.skipping.tail, piece);
      return;
    }
    this.parts.push(piece);
    if (this.size <= this.limit) return;
    // Over the limit: keep both ends (for the id) and let the rest go as it arrives.
    this.skipping = {
      head: Buffer.concat(this.parts, Math.min(EDGE, this.size)),
      tail: this.parts.reduce(lastBytes, Buffer.alloc(0)),
    };
    this.parts = [];
  }

  private finish(): void {
    if (this.skipping)
      this.emit({ kind: 'overlong', bytes: this.size, id: recoverId(this.skipping.head, this.skipping.tail) });
    else this.emit({ kind: 'line', bytes: Buffer.concat(this.parts, this.size) });
    this.parts = [];
    this.size = 0;
    this.skipping = null;
  }
}

/** The last EDGE bytes of `before` followed by `piece`, copied so no large chunk stays referenced. */
function lastBytes(before: Buffer, piece: Buffer): Buffer {
  return Buffer.from(
    piece.length >= EDGE ? piece.subarray(piece.length - EDGE) : Buffer.concat([before, piece]).subarray(-EDGE),
  );
}

/** The id of a line that was not kept, when one of its ends shows it plainly; else null. */
function recoverId(head: Buffer, tail: Buffer): RequestId | null {
  const start = head.toString('latin1');
  if (!REQUEST_HEAD.test(start)) return null;
  const m = HEAD_ID.exec(start) ?? TAIL_ID.exec(tail.toString('latin1'));
  if (!m) return null;
  const id: unknown = JSON.parse(m[1]!);
  return isId(id) ? id : null;
}

/** A JSON-RPC id: a string or a safe integer. */
export const isId = (v: unknown): v is RequestId => typeof v === 'string' || Number.isSafeInteger(v);
