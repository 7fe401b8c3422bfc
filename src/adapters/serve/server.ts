/**
 * The daemon's HTTP plumbing: a node:http server on 127.0.0.1 that checks every request
 * (security.ts) before any route sees it, reads bodies within a size limit, answers JSON and
 * errors in one shape, counts requests in flight, and closes in order: stop accepting, let
 * what is in flight finish (bounded), then cut what is left.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asGccError, type GccError } from '../../errors.js';
import { BASE_HEADERS, checkPlace, checkToken, sameToken, tokenCookie } from './security.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A GccError as an answer: 400 for the caller's mistake, 500 for damage or a fault. */
export function sendError(res: ServerResponse, e: GccError): void {
  sendJson(res, e.exitCode === 1 ? (e.code === 'E_BRANCH_NOT_FOUND' ? 404 : 400) : 500, { error: e.toJSON() });
}

/** The whole body, refused with 413 past `limit` bytes (declared or received). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(new HttpError(413, `request body over ${limit} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new HttpError(413, `request body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** Refuses a method the route does not take (405 with Allow). */
export function allow(req: IncomingMessage, methods: readonly string[]): void {
  if (!methods.includes(req.method ?? '')) throw new HttpError(405, `${req.method} is not accepted here`, { Allow: methods.join(', ') });
}

export interface HttpOptions {
  port: number;
  token: string;
  handle: Handler;
  /** For every refused or failed request: one line for the daemon's log. */
  log: (line: string) => void;
}

export class HttpServer {
  readonly server: Server;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  private port = 0;

  constructor(private readonly opts: HttpOptions) {
    this.server = createServer({ requestTimeout: 0, headersTimeout: 30_000 }, (req, res) => void this.serve(req, res));
    // Hosts send hooks seconds apart over one kept-alive connection: closing it sooner than they
    // expect races their next request into a reset, which Claude Code takes as "hook down". Idle
    // connections are closed at once when the daemon stops.
    this.server.keepAliveTimeout = 65_000;
  }

  /** Listens on 127.0.0.1 only; the port actually bound (for port 0). */
  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port: this.opts.port, host: '127.0.0.1', exclusive: true }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
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
      // The page's address carries the token once: traded for a cookie, dropped from the address bar.
      const offered = url.pathname === '/' ? url.searchParams.get('token') : null;
      if (offered !== null && (req.method === 'GET' || req.method === 'HEAD')) {
        if (!sameToken(offered, this.opts.token)) throw new HttpError(401, 'wrong token in the address: open the one `gctx serve status` prints');
        res.writeHead(303, { ...BASE_HEADERS, 'Set-Cookie': tokenCookie(this.port, this.opts.token), Location: '/', 'Content-Length': 0 });
        res.end();
        return;
      }
      const unauthorized = checkToken(req, this.port, this.opts.token);
      if (unauthorized) throw new HttpError(unauthorized.status, unauthorized.why);
      await this.opts.handle(req, res, url);
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
      if (!res.headersSent) sendText(res, err.status, `${err.message}\n`, err.headers);
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
      await Promise.race([new Promise<void>((r) => this.idle.push(r)), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    this.server.closeAllConnections();
    await closed;
  }
}
