/**
 * /mcp: MCP over Streamable HTTP through the official SDK's transport, one SDK `Server` per MCP
 * session, built by the same generator as the stdio server (adapters/mcp/server.ts). Each MCP
 * session is its own GCC session, `mcp-http-<session id>`, so two clients each keep their own
 * current memory branch; a client that knows its host's session (the id the host's hooks
 * receive) names it in `X-GCC-Session` when it initializes, so the tools and the hooks act on
 * one branch, as `gctx mcp` does with CLAUDE_CODE_SESSION_ID. POST carries the protocol
 * (answers come back as JSON, no stream);
 * DELETE ends a session. GET, the optional server-to-client stream, is refused (405), which
 * the protocol allows: these tools never speak unasked, and GET never changes state here.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Memory } from '../../engine/memory.js';
import { buildMcpServer } from '../mcp/server.js';
import { sendJson } from './server.js';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
}

export interface McpRouteOptions {
  memory: Memory;
  /** The daemon's queue: one memory operation at a time. */
  serial: <T>(fn: () => Promise<T>) => Promise<T>;
  afterCall: () => void;
  budget?: number | undefined;
  /** Sessions kept at once; past it the least recently used one is closed. */
  maxSessions?: number;
}

/** A session id a client may name: what hosts use (UUIDs, thread ids), nothing that could be a path or markup. */
const NAMED_SESSION = /^[\w.:@-]{1,128}$/;

const rpcError = (res: ServerResponse, status: number, code: number, message: string) => sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });

export class McpSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly opts: McpRouteOptions) {}

  get count(): number {
    return this.sessions.size;
  }

  /** `body`: the parsed JSON of a POST (the daemon read it within its limit), undefined for DELETE. */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const s = this.sessions.get(id);
      if (!s) return rpcError(res, 404, -32001, 'Session not found: initialize a new one');
      s.lastUsed = Date.now();
      return s.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id, and not an initialize request');
    const named = req.headers['x-gcc-session'];
    if (named !== undefined && (typeof named !== 'string' || !NAMED_SESSION.test(named))) return rpcError(res, 400, -32000, 'Bad Request: X-GCC-Session must be 1 to 128 letters, digits or ._:@-');
    const s = await this.open(named);
    await s.transport.handleRequest(req, res, body);
  }

  private async open(named: string | undefined): Promise<Session> {
    this.evict();
    const sid = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sid,
      enableJsonResponse: true,
      onsessionclosed: () => void this.close(sid),
    });
    const server = buildMcpServer({
      session: named ?? `mcp-http-${sid}`,
      budget: this.opts.budget,
      memory: () => Promise.resolve({ memory: this.opts.memory, initialized: false }),
      serial: this.opts.serial,
      afterCall: this.opts.afterCall,
    });
    const s: Session = { transport, server, lastUsed: Date.now() };
    transport.onclose = () => void this.close(sid);
    this.sessions.set(sid, s);
    await server.connect(transport);
    return s;
  }

  private evict(): void {
    const max = this.opts.maxSessions ?? 64;
    while (this.sessions.size >= max) {
      let oldest: [string, Session] | null = null;
      for (const e of this.sessions) if (!oldest || e[1].lastUsed < oldest[1].lastUsed) oldest = e;
      if (!oldest) return;
      void this.close(oldest[0]);
    }
  }

  private async close(sid: string): Promise<void> {
    const s = this.sessions.get(sid);
    if (!s) return;
    this.sessions.delete(sid);
    await s.server.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((sid) => this.close(sid)));
  }
}
