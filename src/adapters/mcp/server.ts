/**
 * `gctx mcp`: a stdio MCP server over one project's memory, on the official SDK's low-level
 * `Server`. The low-level server (rather than `McpServer`) lets every failure, argument
 * validation included, come back as an `isError` result carrying the engine's code and fix;
 * a call never drops the connection.
 *
 * Tool calls run one at a time: the engine already serialises writers across processes with
 * its lock, and queueing here keeps this process from polling its own lock.
 *
 * Framing is the SDK's `StdioServerTransport`; the order of shutdown is serveMcp's.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Memory } from '../../engine/memory.js';
import { gccError } from '../../errors.js';
import { safeText } from '../../log/safe-text.js';
import type { SessionSignal } from '../../machines/session.js';
import { GCC_DIR } from '../../store/paths.js';
import { VERSION } from '../../runtime/version.js';
import { checkCall } from '../../operations/schema.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { callTool, errorText, MCP, toolsOf } from './tools.js';

type McpTool = ReturnType<typeof toolsOf>[number];

const mcpTools = (): Map<string, McpTool> => new Map(toolsOf(MCP).map((t) => [t.name, t]));

interface McpOptions {
  /** Project folder; `.GCC/` is created there by the first tool call if missing. */
  dir: string;
  /** Session from `--session` or GCC_SESSION; see {@link defaultSession}. */
  session?: string | undefined;
  /** Default token budget of CONTEXT answers. */
  budget?: number | undefined;
}

const INSTRUCTIONS =
  'Project memory shaped like git (GCC). Call context at the start of a task; commit after each coherent step ' +
  '(what changed, why, the next step); branch before trying an alternative; merge with a synthesis when it worked, ' +
  'or abandon with a reason when it did not.';

/**
 * The session a call acts for when it names none: an explicit one (--session, GCC_SESSION),
 * else the host's own (Claude Code gives stdio servers CLAUDE_CODE_SESSION_ID, the same id its
 * hooks receive, so `gctx hook` and this server agree on the branch), else one per process.
 */
function defaultSession(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return explicit || env.CLAUDE_CODE_SESSION_ID || `mcp-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * The SDK checks elicitation answers with ajv, which its Server builds in its constructor unless
 * given a validator. This server never elicits: build ajv on first use, not on every start.
 */
function lazyValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

/**
 * tools/call requests the SDK's own schema would refuse with a raw validation dump, answered
 * here instead: no tool name is an Invalid params error that lists the tools; `arguments: null`
 * counts as omitted (as coerce.ts treats a null argument); arguments that are not an object are
 * the tool's E_INVALID_ARGUMENT with its required and optional arguments, like any other bad input.
 */
export function screenToolCall(tools: ReadonlyMap<string, McpTool> = mcpTools()) {
  return (request: JSONRPCRequest): JSONRPCRequest | JSONRPCResponse => {
    if (request.method !== 'tools/call') return request;
    const params = request.params ?? {};
    if (typeof params.name !== 'string') {
      const message =
        `Invalid params: tools/call needs params.name, the tool to call (one of ${[...tools.keys()].join(', ')}), ` +
        'and params.arguments, an object';
      return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message } };
    }
    const { arguments: args, ...rest } = params;
    if (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))) return request;
    const t = tools.get(params.name);
    // An unknown tool, or null: served without them (the handler names the tools, or validates what is left).
    if (!t || args === null) return { ...request, params: rest };
    try {
      checkCall(t.op, args, MCP);
      return request;
    } catch (err) {
      return {
        jsonrpc: '2.0',
        id: request.id,
        result: { content: [{ type: 'text', text: errorText(err, MCP).text }], isError: true },
      };
    }
  };
}

/** Opens the memory once, creating `.GCC/` on first use; a failed open is retried next call. */
class MemoryHolder {
  private opening: Promise<Memory> | null = null;
  private memory: Memory | null = null;
  private warned = 0;

  /**
   * @param own the session this server names itself (no host gave one): its lifecycle is the
   * server's to tell the engine's session machine, as every host tells its own.
   */
  constructor(
    private readonly dir: string,
    private readonly own: { session: string } | null = null,
  ) {}

  /** Tell the session machine about this server's own session; silent on failure (fail open). */
  async lifecycle(signals: SessionSignal[]): Promise<void> {
    if (!this.own || !this.memory) return;
    try {
      await this.memory.execute({ type: 'session', signals, host: 'mcp' }, { session: this.own.session });
    } catch {
      /* a locked or read-only memory costs the log entry, not the connection */
    }
  }

  get exists(): boolean {
    return existsSync(join(this.dir, GCC_DIR));
  }

  async get(): Promise<{ memory: Memory; initialized: boolean }> {
    // Someone removed .GCC/ under a running server: start over as in a fresh folder.
    if (this.memory && !this.exists) this.forget();
    if (this.memory) return { memory: this.memory, initialized: false };
    const initialized = !this.exists;
    // A bare folder gets a memory; a folder that is not there is a mistyped --dir, not a place to make one.
    if (initialized && !existsSync(this.dir))
      throw gccError(
        'E_NOT_INITIALIZED',
        `no folder ${this.dir}`,
        "fix --dir in the MCP server's configuration, or create the folder",
      );
    this.opening ??= Memory.open(this.dir, { create: 'if-new' });
    try {
      this.memory = await this.opening;
    } catch (err) {
      this.opening = null;
      throw err;
    }
    await this.lifecycle([{ type: 'START', reason: 'startup' }, { type: 'OPENED' }]);
    return { memory: this.memory, initialized };
  }

  /** Warnings the engine collected since the last call, for stderr (stdout is the protocol). */
  flushWarnings(): void {
    const w = this.memory?.warnings ?? [];
    for (; this.warned < w.length; this.warned++)
      process.stderr.write(safeText(`gctx mcp: warning: ${w[this.warned]}\n`));
  }

  /** Drop the open memory (its folder was removed): the next call opens, or creates, it afresh. */
  forget(): void {
    this.memory?.close();
    this.memory = null;
    this.opening = null;
    this.warned = 0;
  }

  close(): void {
    this.memory?.close();
  }
}

/** What a server needs besides the tools: the memory, and how its calls take turns. */
interface McpServerParts {
  /** The session calls act for. */
  session: string;
  budget?: number | undefined;
  /** The memory to act on; `initialized` when this call created it. */
  memory: () => Promise<{ memory: Memory; initialized: boolean }>;
  /** Runs calls one at a time (with every other user of the same memory, in the daemon). */
  serial: <T>(fn: () => Promise<T>) => Promise<T>;
  /** After each call, for the engine's warnings. */
  afterCall?: () => void;
}

/**
 * A low-level MCP server whose tools are the catalogue's (tools.ts): the stdio server below and
 * each MCP session of `gctx serve` are this one server, each over its own transport.
 */
export function buildMcpServer(parts: McpServerParts): Server {
  const tools = mcpTools();
  let listing: Tool[] | null = null;
  const server = new Server(
    { name: 'gcc', title: 'GCC project memory', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: lazyValidator() },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: (listing ??= [...tools.values()].map(({ op, ...tool }) =>
      op.readOnly ? { ...tool, annotations: { readOnlyHint: true } } : tool,
    )),
  }));

  server.setRequestHandler(CallToolRequestSchema, (request) =>
    parts.serial(async (): Promise<CallToolResult> => {
      const t = tools.get(request.params.name);
      // Said on the first answer after `.GCC/` was created, whether or not the call succeeded.
      let note = '';
      const unknown = () =>
        gccError(
          'E_INVALID_ARGUMENT',
          `unknown tool ${JSON.stringify(request.params.name)}`,
          `use one of: ${[...tools.keys()].join(', ')}`,
        );
      const out = t
        ? await callTool(t.op, request.params.arguments, MCP, {
            session: parts.session,
            budget: parts.budget,
            memory: async () => {
              const { memory, initialized } = await parts.memory();
              if (initialized) note = `Initialised GCC memory in ${memory.gccDir} (first use in this folder).\n`;
              return memory;
            },
          })
        : { ...errorText(unknown(), MCP), facts: {} };
      parts.afterCall?.();
      const structured = Object.keys(out.facts).length ? { structuredContent: out.facts } : {};
      // An error's code leads its text, the note after it.
      if (out.code)
        return { content: [{ type: 'text', text: `${out.text}${note && `\n${note.trimEnd()}`}` }], isError: true };
      return { content: [{ type: 'text', text: note + out.text }], ...structured };
    }),
  );
  return server;
}

/**
 * Serve over stdio until input ends; resolves once the memory is closed. The order matters:
 * stop reading (end of stdin, SIGTERM/SIGINT, or stdout gone), answer every request already
 * read (a call may first wait seconds for the lock behind other servers), close the memory
 * (and with it any hold on the lock), and only then close the connection: closing it first
 * would abort calls still running, so a commit would be recorded but never answered.
 */
export async function serveMcp(opts: McpOptions): Promise<void> {
  const inspector =
    process.env.GCC_INSPECT || process.env.GCC_INSPECT_FILE
      ? (await import('../../diagrams/inspect.js')).inspectorFromEnv(process.env)
      : null;
  const session = defaultSession(opts.session);
  const holder = new MemoryHolder(opts.dir, opts.session || process.env.CLAUDE_CODE_SESSION_ID ? null : { session });
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
  const screen = screenToolCall(mcpTools());
  const server = buildMcpServer({
    session,
    budget: opts.budget,
    memory: () => holder.get(),
    serial,
    afterCall: () => holder.flushWarnings(),
  });
  const transport = new StdioServerTransport();
  // Requests read and not yet answered (a cancelled one is never answered), by id.
  const open = new Set<string>();
  let settled = () => {};
  const answered = (id: unknown) => {
    open.delete(JSON.stringify(id));
    if (!open.size) settled();
  };
  let stopped = () => {};
  const inputEnded = new Promise<void>((resolve) => (stopped = resolve));
  const stop = () => {
    process.stdin.removeAllListeners('data');
    process.stdin.pause();
    stopped();
  };
  process.stdin.once('end', stop);
  process.stdout.on('error', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await server.connect(transport);
  // The transport closes itself on a line over its buffer: stop reading instead, so the calls
  // already read are still answered (a commit recorded is a commit acknowledged), then close.
  const closeTransport = transport.close.bind(transport);
  let closing = false;
  transport.close = () => {
    if (closing) return closeTransport();
    process.stderr.write('gctx mcp: a message over the 10 MiB line limit: no more input is read\n');
    stop();
    // What the client still writes is drained unread, so it is not left blocked on a full pipe.
    process.stdin.resume();
    return Promise.resolve();
  };
  const receive = transport.onmessage!;
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage) => {
    if ('id' in message && !('method' in message)) answered(message.id);
    return send(message);
  };
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && message.method === 'notifications/cancelled') answered(message.params?.requestId);
    if (!('method' in message && 'id' in message)) return receive(message);
    open.add(JSON.stringify(message.id));
    const screened = screen(message as JSONRPCRequest);
    if ('method' in screened) receive(screened);
    else void transport.send(screened);
  };
  // Open an existing memory now, so the first call does not pay for it; never create one unasked.
  const opening = holder.exists ? holder.get().catch(() => undefined) : undefined;
  await inputEnded;
  if (open.size) await new Promise<void>((resolve) => (settled = resolve));
  await tail;
  // A memory still opening when input ended would otherwise open after the close below.
  await opening;
  await holder.lifecycle([{ type: 'SHUTDOWN', reason: 'client left' }]);
  holder.close();
  closing = true;
  await server.close().catch(() => undefined);
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  inspector?.stop();
}
