/**
 * The daemon's HTTP plumbing: node:http on 127.0.0.1, every request checked (security.ts)
 * before any route sees it, bodies read within limits, one shape for answers and errors, and
 * an orderly close. Another local process must not starve the hooks: connections are capped
 * (the oldest that never authenticated makes room), one that has not authenticated within a
 * few seconds is closed, as is one after a refusal, and bodies share one byte budget counted
 * while they stream, so parallel large bodies are refused (503) rather than buffered.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { asGccError, type GccError } from '../../errors.js';
import {
  type Access,
  BASE_HEADERS,
  checkCredential,
  checkPlace,
  identityProof,
  pageCookies,
  sameToken,
} from './security.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Answers `text` (JSON unless `headers` name another type), with the headers every answer carries. */
export function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  send(res, status, JSON.stringify(body), headers);

export const PLAIN = { 'Content-Type': 'text/plain; charset=utf-8' };

/** A GccError as an answer: 400 for the caller's mistake, 500 for damage or a fault. */
function sendError(res: ServerResponse, e: GccError): void {
  sendJson(res, e.exitCode === 1 ? (e.code === 'E_BRANCH_NOT_FOUND' ? 404 : 400) : 500, { error: e.toJSON() });
}

/** Bytes of request bodies held at once, across all requests, until their answers are sent. */
export class BodyBudget {
  private used = 0;
  constructor(readonly bytes: number) {}

  /** Takes `n` bytes, held until `res` closes; false when they are not there. */
  take(n: number, res: ServerResponse): boolean {
    if (this.used + n > this.bytes) return false;
    this.used += n;
    res.once('close', () => {
      this.used -= n;
    });
    return true;
  }
}

const busy = () => new HttpError(503, 'busy: other large requests are being read; retry', { 'Retry-After': '1' });

/**
 * The whole body, refused with 413 past `limit` bytes (declared, or counted while it streams)
 * and with 503 when the shared budget cannot hold it: nothing past either is ever buffered.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  budget: BodyBudget,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(new HttpError(413, `request body over ${limit} bytes`));
  if (declared > 0 && !budget.take(declared, res)) return Promise.reject(busy());
  return new Promise((resolve, reject) => {
    // One buffer of the declared size, filled in place: no second copy of a large body.
    const whole = declared > 0 ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: HttpError) => {
      reject(err);
      req.removeAllListeners('data');
      req.destroy();
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) return stop(new HttpError(413, `request body over ${limit} bytes`));
      if (whole && size <= declared) return void c.copy(whole, size - c.length);
      if (!budget.take(c.length, res)) return stop(busy());
      chunks.push(c);
    });
    req.once('end', () => {
      if (whole && size === declared) resolve(whole);
      else if (whole) reject(new HttpError(400, `request body of ${size} bytes, not the ${declared} declared`));
      else resolve(Buffer.concat(chunks, size));
    });
    req.once('error', reject);
  });
}

/** Refuses a method the route does not take (405 with Allow). */
export function allow(req: IncomingMessage, methods: readonly string[]): void {
  if (!methods.includes(req.method ?? ''))
    throw new HttpError(405, `${req.method} is not accepted here`, { Allow: methods.join(', ') });
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, access: Access) => Promise<void> | void;

interface HttpOptions {
  port: number;
  token: string;
  handle: Handler;
  /** For every refused or failed request: one line for the daemon's log. */
  log: (line: string) => void;
}

/** A connection and whether it has sent a valid credential yet. */
interface Conn {
  socket: Socket;
  authed: boolean;
  timer: NodeJS.Timeout | null;
}

const NONCE = /^[0-9a-f]{64}$/;
const MAX_CONNECTIONS = 128;
/** How long a connection may stay open without authenticating. */
const PRE_AUTH_MS = 3_000;

export class HttpServer {
  readonly server: Server;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  private port = 0;
  /** Open connections, oldest first. */
  private readonly conns = new Map<Socket, Conn>();

  constructor(private readonly opts: HttpOptions) {
    this.server = createServer({ requestTimeout: 0, headersTimeout: 30_000 }, (req, res) => void this.serve(req, res));
    // Hosts send hooks seconds apart over one kept-alive connection: closing it sooner than they
    // expect races their next request into a reset, which Claude Code takes as "hook down". Only
    // connections that authenticated are kept that long; idle ones close at once on stop.
    this.server.keepAliveTimeout = 65_000;
    this.server.on('connection', (socket: Socket) => this.admit(socket));
  }

  private admit(socket: Socket): void {
    if (this.conns.size >= MAX_CONNECTIONS) {
      // Room is made from what never authenticated, oldest first; with none, the newcomer goes.
      const stranger = [...this.conns.values()].find((c) => !c.authed);
      if (!stranger) {
        socket.destroy();
        return;
      }
      stranger.socket.destroy();
      this.forget(stranger.socket);
    }
    const conn: Conn = { socket, authed: false, timer: null };
    conn.timer = setTimeout(() => socket.destroy(), PRE_AUTH_MS);
    conn.timer.unref();
    this.conns.set(socket, conn);
    socket.once('close', () => this.forget(socket));
  }

  private forget(socket: Socket): void {
    const c = this.conns.get(socket);
    if (c?.timer) clearTimeout(c.timer);
    this.conns.delete(socket);
  }

  private trust(req: IncomingMessage): void {
    const c = this.conns.get(req.socket);
    if (!c || c.authed) return;
    c.authed = true;
    if (c.timer) clearTimeout(c.timer);
    c.timer = null;
  }

  /** Listens on 127.0.0.1 only; the port actually bound (for port 0). */
  async listen(): Promise<number> {
    this.server.listen({ port: this.opts.port, host: '127.0.0.1', exclusive: true });
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight++;
    res.once('close', () => {
      this.inFlight--;
      if (this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
    });
    try {
      const refused = checkPlace(req, this.port);
      if (refused) throw new HttpError(refused.status, refused.why);
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      const reading = req.method === 'GET' || req.method === 'HEAD';
      // A challenge, answered without any credential: `gctx serve stop` sends its token to no one
      // before the listener proves it holds it, for the pid it names.
      if (url.pathname === '/identify' && reading) {
        const nonce = url.searchParams.get('nonce') ?? '';
        if (!NONCE.test(nonce)) throw new HttpError(400, 'nonce must be 64 hex digits');
        res.setHeader('Connection', 'close');
        return sendJson(res, 200, { pid: process.pid, proof: identityProof(this.opts.token, nonce, process.pid) });
      }
      // The page's address carries the token once: traded for the page's cookie, dropped from the address bar.
      const offered = url.pathname === '/' ? url.searchParams.get('token') : null;
      if (offered !== null && reading) {
        if (!sameToken(offered, this.opts.token))
          throw new HttpError(401, 'wrong token in the address: open the one `gctx serve status` prints');
        this.trust(req);
        const cookies = pageCookies(this.port, this.opts.token);
        res.writeHead(303, { ...BASE_HEADERS, 'Set-Cookie': cookies, Location: '/', 'Content-Length': 0 });
        res.end();
        return;
      }
      const access = checkCredential(req, this.port, this.opts.token);
      if (typeof access !== 'string') throw new HttpError(access.status, access.why);
      if (access === 'read' && (!reading || url.pathname === '/mcp' || url.pathname.startsWith('/hooks/'))) {
        throw new HttpError(401, "the page's credential only reads: send Authorization: Bearer <token>");
      }
      this.trust(req);
      await this.opts.handle(req, res, url, access);
    } catch (err) {
      this.fail(req, res, err);
    }
  }

  private fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    // The path only: a query may carry the token (under any name, any case, any number of times).
    const raw = req.url ?? '';
    const q = raw.indexOf('?');
    const what = `${req.method} ${q === -1 ? raw : `${raw.slice(0, q)}?…`}`;
    if (err instanceof HttpError) {
      this.opts.log(`refused ${what}: ${err.status} ${err.message}`);
      // A refused connection is not kept: it would hold a place a hook needs.
      const keep = this.conns.get(req.socket)?.authed && err.status !== 413 && err.status !== 503;
      const close: Record<string, string> = keep ? {} : { Connection: 'close' };
      if (!res.headersSent) send(res, err.status, `${err.message}\n`, { ...PLAIN, ...close, ...err.headers });
      else res.destroy();
      return;
    }
    const e = asGccError(err);
    if (e.exitCode !== 1) this.opts.log(`${what}: ${e.oneLine()}`);
    if (!res.headersSent) sendError(res, e);
    else res.destroy();
  }

  /** Stops accepting; waits for what is in flight, at most `graceMs`; then cuts every connection. */
  async close(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((r) => this.idle.push(r)),
        new Promise<void>((r) => (timer = setTimeout(r, graceMs))),
      ]);
      clearTimeout(timer);
    }
    this.server.closeAllConnections();
    await closed;
  }
}
