/**
 * `gctx serve`: one daemon per memory, on 127.0.0.1, for HTTP hooks (/hooks/<agent>), MCP over
 * Streamable HTTP (/mcp) and the page (/, /api/*, /events). It adds no operation of its own. It
 * keeps one open Memory and runs one memory operation at a time, each caught up with what other
 * writers appended (their lock keeps them in step). Stopping: no new connections, what is in
 * flight finishes (bounded), MCP sessions close, the memory closes, the state file goes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { Memory } from '../../engine/memory.js';
import { asGccError, gccError } from '../../errors.js';
import { safeText } from '../../log/safe-text.js';
import { VERSION } from '../../runtime/version.js';
import { HOOK_LOCK_TIMEOUT_MS } from '../hook/lazy-memory.js';
import { STDIN_LIMIT } from '../hook/stdin.js';
import { commitsPage, GraphCache, logPage, overview, pageQuery, searchPage } from './api.js';
import { answerHook } from './hooks-route.js';
import { HOOK_AGENTS, type HookAgent } from '../hook/run-hook.js';
import { Live } from './live.js';
import { McpSessions } from './mcp-route.js';
import type { MemoryEvent } from './page/contract.js';
import { FileLock } from '../../store/lock.js';
import { allow, BodyBudget, HttpError, HttpServer, PLAIN, readBody, send, sendJson } from './server.js';
import {
  defaultPort,
  ensureToken,
  originOf,
  pageUrl,
  readState,
  removeState,
  serveFiles,
  writeState,
} from './state-file.js';
import { PageFiles, pageDir } from './static.js';

interface ServeOptions {
  /** The project folder holding `.GCC/`. */
  dir: string;
  /** undefined: the project's own port (state-file.ts defaultPort); 0: any free port. */
  port?: number | undefined;
  /** Default token budget of CONTEXT answers over MCP. */
  budget?: number | undefined;
}

interface Daemon {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** The address a person opens, token included. */
  page: string;
  /** Resolves once the daemon has stopped. */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

/** How long a stopping daemon lets requests in flight finish. */
const GRACE_MS = 5_000;
/** An MCP message is small; a hook payload can carry a whole file, as on stdin. */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;
/** Request bodies held at once: one hook at its limit, plus room for small ones beside it. */
const BODY_BUDGET = STDIN_LIMIT + 2 * MCP_BODY_LIMIT;

export async function startDaemon(opts: ServeOptions): Promise<Daemon> {
  const root = resolve(opts.dir);
  // Refusals, failures and engine warnings; successes are not logged.
  const log = (line: string) => process.stderr.write(safeText(`gctx serve: ${line}\n`));
  // One daemon per memory, decided under a lock held for the daemon's life: two starts at once
  // cannot both run. A daemon that died leaves a lock whose holder is provably dead: taken over.
  const token = ensureToken(root, (why) => log(`warning: ${why}`));
  const lock = new FileLock(serveFiles(root).lock);
  try {
    const onStale = (h: { pid: number }) => log(`took over from gctx serve pid ${h.pid}, which died without stopping`);
    await lock.acquire({ timeoutMs: 0, onStale });
  } catch (err) {
    if (asGccError(err).code !== 'E_LOCKED') throw err;
    const running = readState(root);
    const where = running ? `at ${running.url} (pid ${running.pid})` : '(starting)';
    const fix = '`gctx serve status` for its address, `gctx serve stop` to end it';
    throw gccError('E_ALREADY_RUNNING', `already running ${where}`, fix);
  }
  let memory: Memory;
  try {
    memory = await Memory.open(root, { lockTimeoutMs: HOOK_LOCK_TIMEOUT_MS });
  } catch (err) {
    lock.release();
    throw err;
  }

  let tail: Promise<unknown> = Promise.resolve();
  const where = (): MemoryEvent => ({ events: memory.state.events, lastId: memory.state.lastId });
  const afterOp = () => {
    for (const w of memory.warnings.splice(0)) log(`warning: ${w}`);
    live.update(where());
  };
  /** One memory operation at a time, each caught up with other writers first. */
  const exclusive = <T>(fn: () => Promise<T> | T): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined).then(afterOp);
    return run;
  };
  const read = <T>(fn: (m: Memory) => T): Promise<T> =>
    exclusive(() => {
      memory.refresh();
      return fn(memory);
    });
  const live = new Live(() => read(where), where());
  const bodies = new BodyBudget(BODY_BUDGET);
  const mcp = new McpSessions({ memory, serial: exclusive, budget: opts.budget });
  const graphs = new GraphCache();
  const page = new PageFiles(pageDir());
  if (!page.built) log(`warning: no built page in ${page.dir} (run \`npm run build\`); hooks and MCP work without it`);

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    if (path === '/healthz') {
      allow(req, ['GET', 'HEAD']);
      return sendJson(res, 200, { ok: true, pid: process.pid, root, version: VERSION, events: memory.state.events });
    }
    if (path.startsWith('/hooks/')) {
      allow(req, ['POST']);
      const agent = path.slice('/hooks/'.length) as HookAgent;
      if (!HOOK_AGENTS.includes(agent))
        throw new HttpError(404, `no hook route ${path}: use /hooks/claude-code, /hooks/codex or /hooks/generic`);
      const body = (await readBody(req, res, STDIN_LIMIT, bodies)).toString('utf8');
      let out = { body: '', log: [] as string[] };
      try {
        out = await exclusive(() => answerHook(agent, body, memory));
      } catch (err) {
        // As `gctx hook` exits 0 on an internal error: no decision, never a failure the host sees.
        out.log = [`gctx hook: internal error, no decision: ${err instanceof Error ? err.message : String(err)}`];
      }
      for (const line of out.log) log(line);
      return send(res, 200, out.body, out.body ? {} : PLAIN);
    }
    if (path === '/mcp') {
      allow(req, ['POST', 'DELETE']);
      const body = req.method === 'POST' ? await readBody(req, res, MCP_BODY_LIMIT, bodies) : undefined;
      return mcp.handle(req, res, body?.toString('utf8'));
    }
    // Everything else reads: GET and HEAD only.
    allow(req, ['GET', 'HEAD']);
    if (path === '/events')
      return req.method === 'HEAD'
        ? send(res, 200, '', { 'Content-Type': 'text/event-stream; charset=utf-8' })
        : live.follow(req, res);
    if (path === '/api/overview') return sendJson(res, 200, await read(overview));
    // The page asks for the graph only when the overview names a new tag: no revalidation needed.
    if (path === '/api/graph') return sendJson(res, 200, await read((m) => graphs.get(m)));
    if (path === '/api/commits')
      return sendJson(res, 200, await read((m) => commitsPage(m, pageQuery(m, url.searchParams))));
    if (path === '/api/log') return sendJson(res, 200, await read((m) => logPage(m, pageQuery(m, url.searchParams))));
    if (path === '/api/search') return sendJson(res, 200, await read((m) => searchPage(m, url.searchParams)));
    if (!page.serve(path, res)) throw new HttpError(404, `nothing at ${path}`);
  }

  const http = new HttpServer({ port: opts.port ?? defaultPort(root), token, handle, log });
  let port: number;
  try {
    port = await http.listen();
  } catch (err) {
    memory.close();
    lock.release();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw gccError(
        'E_BUSY',
        `port ${opts.port ?? defaultPort(root)} on 127.0.0.1 is taken by another program`,
        'gctx serve --port <another port> (then install the hooks again for it)',
      );
    throw err;
  }
  const url = `${originOf(port)}/`;
  writeState(root, { pid: process.pid, port, url, token, startedAt: new Date().toISOString() });
  live.start();

  let stopping: Promise<void> | null = null;
  let stopped!: () => void;
  const done = new Promise<void>((r) => (stopped = r));
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      live.close();
      await http.close(GRACE_MS);
      await mcp.closeAll();
      await tail;
      memory.close();
      removeState(root, process.pid);
      lock.release();
      stopped();
    })());

  return { url, page: pageUrl(port, token), stopped: done, stop };
}
