/**
 * `gctx serve status` and `gctx serve stop`, and the check a second start makes: a daemon is
 * running when the state file names a live process AND that process answers /healthz with
 * the same pid for the memory's token. A state file whose process is gone, or whose pid now
 * belongs to something else, is stale: nothing is ever signalled on its word alone.
 */
import { request } from 'node:http';
import { gccError } from '../../errors.js';
import { pageUrl, pidAlive, readState, removeState, serveFiles, type ServeState } from './state-file.js';

export interface Health {
  ok: boolean;
  pid: number;
  root: string;
  version: string;
  events: number;
}

/** /healthz of the daemon the state names, or null when nothing (or something else) answers. */
export function probe(state: ServeState, timeoutMs = 5_000): Promise<Health | null> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port: state.port, path: '/healthz', method: 'GET', agent: false, headers: { Authorization: `Bearer ${state.token}`, Host: `127.0.0.1:${state.port}` }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const h = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Health;
            resolve(res.statusCode === 200 && h.ok === true && h.pid === state.pid ? h : null);
          } catch {
            resolve(null);
          }
        });
        res.on('error', () => resolve(null));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

/**
 * The daemon running for this memory; null when none is. A state file whose process is gone is
 * removed; one whose process lives but does not answer as this daemon (busy, hung, or a reused
 * pid) is left alone and reported, never signalled.
 */
export async function runningDaemon(root: string): Promise<{ state: ServeState; health: Health } | null> {
  const state = readState(root);
  if (!state) return null;
  if (!pidAlive(state.pid)) {
    removeState(root, state.pid);
    return null;
  }
  const health = await probe(state);
  if (!health) {
    throw gccError('E_NOT_RUNNING', `process ${state.pid} is named in ${serveFiles(root).state} but does not answer as gctx serve at ${state.url}`, `wait and retry; if it is a hung gctx serve, end it (kill ${state.pid}); if it is another program, remove that file`);
  }
  return { state, health };
}

export interface Status {
  url: string;
  token: string;
  page: string;
  pid: number;
}

export async function serveStatus(root: string): Promise<Status> {
  const r = await runningDaemon(root);
  if (!r) throw gccError('E_NOT_RUNNING', `gctx serve is not running for ${root}`, 'start it: gctx serve');
  const { state } = r;
  return { url: state.url, token: state.token, page: pageUrl(state.port, state.token), pid: state.pid };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** SIGTERM to the running daemon, then wait for it to be gone; null when none was running. */
export async function serveStop(root: string, waitMs = 15_000): Promise<{ pid: number; url: string } | null> {
  const r = await runningDaemon(root);
  if (!r) return null;
  const { pid, url } = r.state;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + waitMs;
  while (pidAlive(pid)) {
    if (Date.now() > deadline) throw gccError('E_BUSY', `gctx serve (pid ${pid}) did not stop within ${waitMs / 1000} s of SIGTERM`, `kill ${pid}`);
    await sleep(20);
  }
  return { pid, url };
}
