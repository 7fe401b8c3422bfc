/**
 * /mcp: MCP over Streamable HTTP through the SDK's transport, one SDK `Server` per MCP session,
 * built as the stdio server is (adapters/mcp/server.ts). Each MCP session is its own GCC session,
 * `mcp-http-<id>`, unless the client names its host's in `X-GCC-Session` when it initializes.
 * POST answers as JSON; DELETE ends a session; GET (the optional stream) is refused (405).
 * A call that was read is answered: a session with calls in flight is never evicted, and one
 * ended closes only once they are answered. A request id sent again in the same session (a
 * client's retry) gets the first answer, without a second run.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Memory } from '../../engine/memory.js';
import type { SessionSignal } from '../../machines/session.js';
import { buildMcpServer, screenToolCall } from '../mcp/server.js';
import { sendJson } from './server.js';

/** An answer as it was sent, to send again for a retried request id. */
interface Answer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The GCC session its calls act for. */
  gcc: string;
  /** Its own (not a host's): the daemon tells the session machine when it starts and ends. */
  own: boolean;
  started: boolean;
  /** POSTs being answered. */
  calls: Set<Promise<void>>;
  /** Answers by request id, newest last, with the request they answer. */
  answers: Map<string, { request: string; answer: Promise<Answer | null> }>;
}

interface McpRouteOptions {
  memory: Memory;
  /** The daemon's queue: one memory operation at a time. */
  serial: <T>(fn: () => Promise<T>) => Promise<T>;
  budget?: number | undefined;
}

/** Sessions kept at once; past it the least recently used idle one is closed. */
const MAX_SESSIONS = 64;

/** A session id a client may name: what hosts use (UUIDs, thread ids), nothing that could be a path or markup. */
const NAMED_SESSION = /^[\w.:@-]{1,128}$/;
/** Answers kept per session for retries. */
const KEPT_ANSWERS = 256;

const rpcError = (res: ServerResponse, status: number, code: number, message: string) =>
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });

/** The id of a single JSON-RPC request (not a notification, not a batch), as a key. */
function requestKey(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id, method } = body as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? JSON.stringify(id) : null;
}

/**
 * Records what the transport writes to `res` (status, headers, body), even once the client
 * has gone (a retry then gets it); `settle` ends the wait when nothing was written.
 */
function recording(res: ServerResponse): { answer: Promise<Answer | null>; settle: () => void } {
  let settle!: () => void;
  const chunks: Buffer[] = [];
  let status = 0;
  let headers: OutgoingHttpHeaders = {};
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  const keep = (c: unknown) => {
    if (typeof c === 'string' || c instanceof Uint8Array) chunks.push(Buffer.from(c as Uint8Array));
  };
  const answer = new Promise<Answer | null>((resolve) => {
    settle = () => resolve(null);
    res.writeHead = ((code: number, ...rest: unknown[]) => {
      status = code;
      const h = rest.find((r) => r && typeof r === 'object');
      if (h) headers = { ...(h as OutgoingHttpHeaders) };
      return writeHead(code, ...rest);
    }) as ServerResponse['writeHead'];
    res.write = ((c: unknown, ...rest: unknown[]) => (keep(c), write(c, ...rest))) as ServerResponse['write'];
    res.end = ((c?: unknown, ...rest: unknown[]) => {
      if (typeof c !== 'function') keep(c);
      resolve(status === 200 ? { status, headers, body: Buffer.concat(chunks) } : null);
      return end(c, ...rest);
    }) as ServerResponse['end'];
  });
  return { answer, settle };
}

export class McpSessions {
  /** Least recently used first. */
  private readonly sessions = new Map<string, Session>();
  private readonly screen = screenToolCall();

  constructor(private readonly opts: McpRouteOptions) {}

  /** `text`: the body of a POST (the daemon read it within its limit), undefined for DELETE. */
  async handle(req: IncomingMessage, res: ServerResponse, text: string | undefined): Promise<void> {
    let body: unknown;
    try {
      body = text === undefined ? undefined : JSON.parse(text);
    } catch {
      return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const s = this.sessions.get(id);
      if (!s) return rpcError(res, 404, -32001, 'Session not found: initialize a new one');
      this.sessions.delete(id);
      this.sessions.set(id, s);
      return req.method === 'POST' ? this.post(s, req, res, body) : s.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id, and not an initialize request');
    const named = req.headers['x-gcc-session'];
    if (named !== undefined && (typeof named !== 'string' || !NAMED_SESSION.test(named)))
      return rpcError(res, 400, -32000, 'Bad Request: X-GCC-Session must be 1 to 128 letters, digits or ._:@-');
    if (!this.evict()) return rpcError(res, 503, -32000, 'Busy: every MCP session has a call in flight; retry');
    const s = await this.open(named);
    await this.post(s, req, res, body);
  }

  /** One POST, counted in flight; a request id seen before gets its first answer. */
  private async post(s: Session, req: IncomingMessage, res: ServerResponse, given: unknown): Promise<void> {
    // A tools/call the SDK's schema would refuse with a raw dump is answered as over stdio.
    const body = isJSONRPCRequest(given) ? this.screen(given) : given;
    if (isJSONRPCRequest(given) && !isJSONRPCRequest(body)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(body));
    }
    const key = requestKey(body);
    const request = key === null ? '' : JSON.stringify(body);
    // A retry is the same id with the same request; a client that reuses ids for new requests gets new answers.
    const earlier = key === null ? undefined : s.answers.get(key);
    if (earlier?.request === request) {
      const a = await earlier.answer;
      if (!a)
        return rpcError(res, 409, -32000, 'This request was sent before in this session, and its answer was not sent');
      res.writeHead(a.status, a.headers);
      return void res.end(a.body);
    }
    const rec = key === null ? null : recording(res);
    if (key !== null && rec) {
      s.answers.delete(key);
      s.answers.set(key, { request, answer: rec.answer });
      if (s.answers.size > KEPT_ANSWERS) s.answers.delete(s.answers.keys().next().value!);
    }
    const call = s.transport.handleRequest(req, res, body).finally(() => {
      rec?.settle();
      s.calls.delete(call);
    });
    s.calls.add(call);
    await call;
  }

  private async open(named: string | undefined): Promise<Session> {
    const sid = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sid,
      enableJsonResponse: true,
      // Awaited by the transport before it closes on DELETE: calls in flight are answered first.
      onsessionclosed: () => this.close(sid),
    });
    const gcc = named ?? `mcp-http-${sid}`;
    const s: Session = {
      transport,
      server: null as unknown as Server,
      gcc,
      own: named === undefined,
      started: false,
      calls: new Set(),
      answers: new Map(),
    };
    s.server = buildMcpServer({
      session: gcc,
      budget: this.opts.budget,
      memory: async () => {
        // The session machine hears of an own session at its first call (it then shows in the page).
        if (s.own && !s.started) {
          s.started = true;
          await this.tell(s, [{ type: 'START', reason: 'startup' }, { type: 'OPENED' }]);
        }
        return { memory: this.opts.memory, initialized: false };
      },
      serial: this.opts.serial,
    });
    transport.onclose = () => void this.close(sid);
    this.sessions.set(sid, s);
    await s.server.connect(transport);
    return s;
  }

  /** Tells the session machine; a locked memory costs the log entry, never the call (fail open). */
  private async tell(s: Session, signals: SessionSignal[]): Promise<void> {
    try {
      await this.opts.memory.execute({ type: 'session', signals, host: 'mcp' }, { session: s.gcc });
    } catch {
      /* fail open */
    }
  }

  /** Makes room for one more session; false when every session has a call in flight. */
  private evict(): boolean {
    while (this.sessions.size >= MAX_SESSIONS) {
      const idle = [...this.sessions].find(([, s]) => s.calls.size === 0);
      if (!idle) return false;
      void this.close(idle[0]);
    }
    return true;
  }

  /** Ends a session: no new requests; those in flight answered; then its GCC session ended and its server closed. */
  private async close(sid: string): Promise<void> {
    const s = this.sessions.get(sid);
    if (!s) return;
    this.sessions.delete(sid);
    while (s.calls.size) await Promise.allSettled([...s.calls]);
    if (s.started) await this.opts.serial(() => this.tell(s, [{ type: 'SHUTDOWN', reason: 'client left' }]));
    await s.server.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((sid) => this.close(sid)));
  }
}
