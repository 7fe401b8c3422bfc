import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gccError } from '../../../errors.js';
import { GCC_DIR } from '../../../store/paths.js';
import { operation } from '../../../operations/operation.js';
import { keepHeapSmall } from '../heap-flags.js';

const USAGE = 'gctx serve [start|status|stop] [--port N]';

function portOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d{1,5}$/.test(text) || n > 65535)
    throw gccError(
      'E_INVALID_ARGUMENT',
      `--port takes a port number from 0 to 65535, not ${JSON.stringify(text)}`,
      'gctx serve --port 24242 (0: any free port)',
    );
  return n;
}

export default operation({
  name: 'serve',
  summary: 'one local daemon on 127.0.0.1 for HTTP hooks, MCP over HTTP and a live page (start; status [--json]; stop)',
  args: {
    verb: { kind: 'enum', values: ['start', 'status', 'stop'], help: 'start (default), status or stop.' },
    port: {
      kind: 'string',
      help: "Port on 127.0.0.1 (default: the project's own, the same each start; 0: any free port).",
    },
    host: { kind: 'string', help: 'Refused: the daemon listens on 127.0.0.1 only.' },
    init: { kind: 'boolean', help: 'start: create the memory (.GCC/) first when there is none.' },
  },
  cli: [
    { field: 'verb', as: 'positional' },
    { field: 'port', as: 'flag' },
    { field: 'host', as: 'flag' },
    { field: 'init', as: 'flag' },
  ],
  fronts: ['cli'],
  example: 'serve status',
  answer: 'result',
  readOnly: false,
  needs: 'none',
  run: async (a, ctx) => {
    if (a.host !== undefined)
      throw gccError(
        'E_INVALID_ARGUMENT',
        `gctx serve listens on 127.0.0.1 only; --host ${JSON.stringify(a.host)} is refused`,
        `${USAGE}; reach it from elsewhere through an SSH tunnel (docs/serve.md)`,
      );
    const port = portOf(a.port);
    const control = await import('../../serve/control.js');
    if (a.verb === 'status') {
      const s = await control.serveStatus(ctx.dir);
      return { text: `gctx serve is running at ${s.url} (pid ${s.pid})\nopen: ${s.page}`, data: { ...s } };
    }
    if (a.verb === 'stop') {
      const r = await control.serveStop(ctx.dir);
      return r
        ? { text: `stopped gctx serve at ${r.url} (pid ${r.pid})`, data: { ok: true, stopped: true, pid: r.pid } }
        : { text: 'gctx serve is not running', data: { ok: true, stopped: false } };
    }
    // A daemon with no memory would answer every call with an error, or make one unasked.
    if (!existsSync(join(ctx.dir, GCC_DIR))) {
      if (!a.init)
        throw gccError(
          'E_NOT_INITIALIZED',
          `no memory in ${ctx.dir} to serve`,
          'run `gctx init` first, or `gctx serve --init` to create it and serve it',
        );
      const { Memory } = await import('../../../engine/memory.js');
      (await Memory.open(ctx.dir, { create: true })).close();
    }
    // Whoever started the daemon may stop reading its output (a closed pipe, a gone terminal): it serves on.
    process.stdout.on('error', () => undefined);
    // A process that keeps the memory open for as long as it serves: its heap kept small from
    // before the server's modules load, as `gctx mcp`'s is.
    keepHeapSmall();
    const { startDaemon } = await import('../../serve/daemon.js');
    const d = await startDaemon({ dir: ctx.dir, port, budget: ctx.budget });
    const stop = () => void d.stop();
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, stop);
    // The token stays off logs a service manager keeps; a person at a terminal gets the page's address.
    const open = process.stdout.isTTY ? `open ${d.page}` : 'page address: gctx serve status';
    process.stdout.write(`gctx serve: listening on ${d.url} for ${ctx.dir} (pid ${process.pid}); ${open}\n`);
    await d.stopped;
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.off(signal, stop);
    // Everything is closed; should a library keep the loop alive, leave anyway.
    setTimeout(() => process.exit(), 1_000).unref();
    return { text: 'gctx serve: stopped', data: { ok: true, stopped: true } };
  },
});
