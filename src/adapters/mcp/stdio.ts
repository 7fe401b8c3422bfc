/**
 * `gctx mcp`'s stdio transport: JSON-RPC messages, one per line, over this process's stdin and
 * stdout. It stands in for the SDK's StdioServerTransport, which ended the server on one line
 * over its buffer limit, answered nothing to a line that was not JSON, and told the server the
 * connection was closed as soon as input ended, so calls still running went unanswered.
 *
 * - A line is at most {@link MESSAGE_LIMIT} bytes; a longer one is dropped as it streams in
 *   (never held whole) and answered with an Invalid Request error; the server goes on.
 * - A line that is not JSON (or not UTF-8) gets a Parse error (-32700, id null); JSON that is
 *   not a JSON-RPC 2.0 message, or a batch, gets an Invalid Request error (-32600). Blank
 *   lines are ignored, CRLF is accepted, a last line without its newline is still read.
 * - Each request id is answered once per connection; a request with an id already answered
 *   or in flight is a retry: it is not run again (see {@link Replies}).
 * - End of input is not the end of the connection: {@link StdioTransport.inputEnded} resolves
 *   first, {@link StdioTransport.settled} once every request read is answered and written;
 *   only `close()` (after both) tells the server the connection is gone.
 * - Answers are written one at a time, each after the last was taken by the pipe (stdout's
 *   backpressure). A stdout that fails (EPIPE: the client left) ends input; answers are
 *   dropped from then on, so the server still winds down in order.
 */
import { createHash } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { type Frame, isId, LineFramer } from './line-framer.js';

/**
 * Largest message: 8 MiB, in bytes of one line. The largest legitimate request carries one text
 * at the engine's cap (MAX_TEXT, 1 Mi characters: a commit's contribution, a merge's synthesis).
 * As JSON in UTF-8 that is at most 3 MiB for ordinary text (3 bytes a character for CJK) and
 * 6 MiB in the worst case (every character escaped as `\u001f`), leaving 2 MiB for the rest of
 * the request. Whatever the engine would accept fits, so an overlong text still gets the
 * engine's own error ("summarize it"); the limit only stops a line with no end from growing.
 */
export const MESSAGE_LIMIT = 8 * 1024 * 1024;

/** Answers kept for retries: the last 500, and no more than 16 Mi characters of them. */
const KEPT_ANSWERS = 500;
const KEPT_CHARS = 16 * 1024 * 1024;

/**
 * Which requests of this connection are in flight and what was answered, so that a request
 * repeating an id is treated as the retry it is. JSON-RPC ids are the client's and must not be
 * reused within a session, so a repeated id with the same method and params is the same call
 * sent again: it is not run twice, it gets the same answer (now if kept, else when the first
 * copy finishes). That is as far as the protocol lets a server tell: a new connection, or the
 * same call under a new id, is a new call. An id whose answer is no longer kept (more than
 * KEPT_ANSWERS answers ago) counts as new; an id reused for a different request is refused.
 */
class Replies {
  private readonly pending = new Map<string, { digest: string; owed: number }>();
  private readonly answered = new Map<string, { digest: string; line: string }>();
  private chars = 0;

  get inFlight(): number {
    return this.pending.size;
  }

  /** A request arrived: run it, wait for its first copy, replay its answer, or refuse the reused id. */
  admit(id: RequestId, digest: string): { run: true } | { wait: true } | { replay: string } | { conflict: true } {
    const key = keyOf(id);
    const known = this.pending.get(key) ?? this.answered.get(key);
    if (known && known.digest !== digest) return { conflict: true };
    const pending = this.pending.get(key);
    if (pending) {
      pending.owed++;
      return { wait: true };
    }
    const done = this.answered.get(key);
    if (done) return { replay: done.line };
    this.pending.set(key, { digest, owed: 1 });
    return { run: true };
  }

  /** The client cancelled it: the copies asked for so far are not answered (a later retry is). */
  cancel(id: RequestId): void {
    const pending = this.pending.get(keyOf(id));
    if (pending) pending.owed = 0;
  }

  /** The answer to `id`, as written: how many copies are owed (0 if cancelled), null for an id not in flight. */
  answer(id: RequestId, line: string): number | null {
    const key = keyOf(id);
    const pending = this.pending.get(key);
    if (!pending) return null;
    this.pending.delete(key);
    this.answered.set(key, { digest: pending.digest, line });
    this.chars += line.length;
    for (const [k, v] of this.answered) {
      if (this.answered.size <= KEPT_ANSWERS && this.chars <= KEPT_CHARS) break;
      this.answered.delete(k);
      this.chars -= v.line.length;
    }
    return pending.owed;
  }
}

/** 1 and "1" are different ids. */
const keyOf = (id: RequestId): string => `${typeof id}:${id}`;

/** What a request asks, whatever its id or _meta (a progress token may differ between copies). */
function digestOf(request: JSONRPCRequest): string {
  const { _meta, ...params } = request.params ?? {};
  return createHash('sha1')
    .update(JSON.stringify([request.method, params]))
    .digest('base64');
}

/**
 * What a server may make of a request before it is served: the request to serve (perhaps rewritten), or the answer to
 * give instead.
 */
export type Screen = (request: JSONRPCRequest) => JSONRPCRequest | JSONRPCResponse;

interface StdioTransportOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Bytes of one message at most (default {@link MESSAGE_LIMIT}). */
  limit?: number;
  screen?: Screen;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export class StdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Resolves when no more messages will be read: end of stdin, a read error, stdout gone, or {@link stopReading}. */
  readonly inputEnded: Promise<void>;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly limit: number;
  private readonly framer: LineFramer;
  private readonly replies = new Replies();
  private readonly screen: Screen;
  private endInput!: () => void;
  private reading = false;
  private outputGone = false;
  private closed = false;
  private writes: Promise<void> = Promise.resolve();
  private idleWaiters: (() => void)[] = [];

  constructor(options: StdioTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.limit = options.limit ?? MESSAGE_LIMIT;
    this.screen = options.screen ?? ((request) => request);
    this.framer = new LineFramer(this.limit, (frame) => this.onFrame(frame));
    this.inputEnded = new Promise((resolve) => (this.endInput = resolve));
  }

  async start(): Promise<void> {
    if (this.reading || this.closed) throw new Error('StdioTransport already started');
    this.reading = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    // Both kept to the end of the process: an error (EPIPE) with no listener would crash it.
    this.stdin.on('error', this.onReadError);
    this.stdout.on('error', this.onWriteError);
  }

  /** Read nothing more (a signal to stop): what was read is still answered; a partial line is dropped. */
  stopReading(): void {
    if (!this.reading) return;
    this.reading = false;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.pause();
    this.endInput();
  }

  /** Resolves once every request read so far is answered and every answer written (or dropped, stdout being gone). */
  async settled(): Promise<void> {
    if (this.replies.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.writes;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const line = `${JSON.stringify(message)}\n`;
    if (!('id' in message) || message.id === undefined || !('result' in message || 'error' in message))
      return this.write(line);
    const copies = this.replies.answer(message.id, line) ?? 1;
    for (let i = 0; i < copies; i++) void this.write(line);
    if (this.replies.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    return this.writes;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.stopReading();
    this.closed = true;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = (): void => {
    this.framer.end();
    this.stopReading();
  };

  private readonly onReadError = (error: Error): void => {
    if (!this.reading) return;
    this.onerror?.(error);
    this.stopReading();
  };

  private readonly onWriteError = (error: Error): void => {
    if (this.outputGone) return;
    this.outputGone = true;
    this.onerror?.(error);
    this.stopReading();
  };

  /** Lines are written one after the other, each once the last was taken (stdout's backpressure). */
  private write(line: string): Promise<void> {
    this.writes = this.writes.then(
      () =>
        new Promise<void>((resolve) => {
          if (this.outputGone) return resolve();
          this.stdout.write(line, (err) => {
            if (err) this.onWriteError(err);
            resolve();
          });
        }),
    );
    return this.writes;
  }

  private refuse(id: RequestId | null, code: ErrorCode, message: string, data?: Record<string, unknown>): void {
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data && { data }) } })}\n`);
  }

  private onFrame(frame: Frame): void {
    if (!this.reading) return;
    if (frame.kind === 'overlong') {
      const mib = this.limit / 1024 / 1024;
      return this.refuse(
        frame.id,
        ErrorCode.InvalidRequest,
        `Invalid Request: a message of ${frame.bytes} bytes is over the limit of ${this.limit} bytes (${mib} MiB) for one line; it was skipped unread. ` +
          'Send less: summarize long text (the memory keeps at most 1048576 characters per field) and keep large output in files.',
        { limit: this.limit, bytes: frame.bytes },
      );
    }
    let text: string;
    try {
      text = UTF8.decode(frame.bytes);
    } catch {
      return this.refuse(
        null,
        ErrorCode.ParseError,
        'Parse error: the line is not valid UTF-8; send one JSON-RPC message per line, in UTF-8',
      );
    }
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return this.refuse(
        null,
        ErrorCode.ParseError,
        `Parse error: the line is not JSON (${(err as Error).message}); send one JSON-RPC message per line`,
      );
    }
    if (Array.isArray(value))
      return this.refuse(
        null,
        ErrorCode.InvalidRequest,
        'Invalid Request: batches are not supported; send each message on a line of its own',
      );
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success)
      return this.refuse(readableId(value), ErrorCode.InvalidRequest, `Invalid Request: ${whatIsWrong(value)}`);
    this.receive(parsed.data);
  }

  private receive(message: JSONRPCMessage): void {
    if ('method' in message && message.method === 'notifications/cancelled') {
      // Kept from the server, which would then never answer and leave settled() waiting; the
      // call runs to its end regardless (a write cannot be taken back) and is not answered.
      const id: unknown = message.params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.replies.cancel(id);
      return;
    }
    if (!('method' in message && 'id' in message)) return this.onmessage?.(message);
    const request = message as JSONRPCRequest;
    const seen = this.replies.admit(request.id, digestOf(request));
    if ('replay' in seen) void this.write(seen.replay);
    else if ('conflict' in seen)
      this.refuse(
        request.id,
        ErrorCode.InvalidRequest,
        `Invalid Request: id ${JSON.stringify(request.id)} was already used in this session for a different request; give each request a new id`,
      );
    else if ('run' in seen) {
      try {
        const screened = this.screen(request);
        if ('method' in screened) this.onmessage?.(screened);
        else void this.send(screened);
      } catch (err) {
        // Every request read gets an answer: settled() waits for it.
        void this.send({
          jsonrpc: '2.0',
          id: request.id,
          error: { code: ErrorCode.InternalError, message: `Internal error: ${String(err)}` },
        });
      }
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The id of an invalid request, if it has a usable one (JSON-RPC: null when it cannot be told).
 * Not of what looks like a response: its id is one of the client's own requests.
 */
function readableId(value: unknown): RequestId | null {
  const id = isObject(value) && !('result' in value || 'error' in value) ? value.id : undefined;
  return isId(id) ? id : null;
}

/** Why a JSON value is not a JSON-RPC 2.0 message, in the sender's terms. */
function whatIsWrong(value: unknown): string {
  if (!isObject(value)) return 'a message is a JSON object';
  if (value.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('id' in value && !isId(value.id)) return 'id must be a string or an integer';
  if ('method' in value) {
    if (typeof value.method !== 'string') return 'method must be a string';
    if ('params' in value && !isObject(value.params)) return 'params must be an object';
    const extra = Object.keys(value).filter((k) => !['jsonrpc', 'id', 'method', 'params'].includes(k));
    if (extra.length) return `a request has only jsonrpc, id, method and params, not ${extra.join(', ')}`;
    return 'the request does not have the shape JSON-RPC 2.0 gives one';
  }
  if ('result' in value || 'error' in value)
    return 'a response has an id and either result (an object) or error ({code, message})';
  return 'a message has a method (a request or notification), or a result or error (a response)';
}
