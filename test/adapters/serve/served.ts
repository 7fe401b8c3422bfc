/**
 * Test helper: the real `gctx serve` as a child process of the built executable (npm run build
 * first), found through the state file it writes once it listens, and raw HTTP against it
 * (node:http, so a test can send any Host, Origin or method a browser or an attacker would).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { ServeState } from '../../../src/adapters/serve/state-file.js';
import { GCTX_JS, NODE } from '../mcp/client.js';

export type { ServeState };

export interface Served {
  child: ChildProcess;
  state: ServeState;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop: () => Promise<number | null>;
}

export const SAFETY_MS = 120_000;

export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== 'GCC_SESSION' && k !== 'CLAUDE_CODE_SESSION_ID') env[k] = v;
  return { ...env, ...extra };
}

export function stateFile(dir: string): string {
  return join(dir, '.GCC/.local/serve.json');
}

export function readServeState(dir: string): ServeState | null {
  try {
    return JSON.parse(readFileSync(stateFile(dir), 'utf8')) as ServeState;
  } catch {
    return null;
  }
}

/** Waits, polling, for `ok`; fails after the safety cap with `what`. */
export async function until<T>(
  what: string,
  ok: () => T | null | undefined | false | Promise<T | null | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + SAFETY_MS;
  for (;;) {
    const v = await ok();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `gctx serve --dir <dir> [args]` (any free port unless args name one), once it listens. */
export async function startServe(dir: string, args: string[] = ['--port', '0']): Promise<Served> {
  if (!existsSync(GCTX_JS)) throw new Error(`${GCTX_JS} is missing: run \`npm run build\` first`);
  const child = spawn(NODE, [GCTX_JS, 'serve', '--dir', dir, ...args], {
    cwd: dir,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const state = await until('gctx serve to listen', () => {
    if (gone) throw new Error(`gctx serve exited before listening: ${err}`);
    const s = readServeState(dir);
    return s && s.pid === child.pid && out.includes('listening') ? s : null;
  });
  return {
    child,
    state,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: async () => {
      if (!gone) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sends no Authorization header (the default sends the token). */
  anonymous?: boolean;
  /** Declares this Content-Length and sends only `body`, waiting for the answer (a refusal on the header alone). */
  declaredLength?: number;
}

/** One request on a fresh connection; Host is the daemon's own unless the test names another. */
export function raw(state: ServeState, r: RawRequest = {}): Promise<Raw> {
  const headers: Record<string, string> = {
    Host: `127.0.0.1:${state.port}`,
    ...(r.anonymous ? {} : { Authorization: `Bearer ${state.token}` }),
    ...r.headers,
  };
  if (r.body !== undefined) headers['Content-Length'] = String(r.declaredLength ?? Buffer.byteLength(r.body));
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: state.port, method: r.method ?? 'GET', path: r.path ?? '/', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (r.declaredLength === undefined) req.end(r.body);
    else req.write(r.body ?? '');
  });
}

export async function json<T>(state: ServeState, path: string): Promise<T> {
  const r = await raw(state, { path });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as T;
}

/** A hook payload posted as Claude Code's HTTP hook posts it. */
export function postHook(state: ServeState, agent: string, payload: string): Promise<Raw> {
  return raw(state, {
    method: 'POST',
    path: `/hooks/${agent}`,
    headers: { 'Content-Type': 'application/json' },
    body: payload,
  });
}
