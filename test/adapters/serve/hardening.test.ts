/**
 * What an attacker's probe found, each against the real daemon (the built gctx as a child
 * process, real sockets, real HTTP): the page's credential, connection and body limits, MCP
 * calls whose session goes away or that a client retries, and the lifecycle's races.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { pidAlive } from '../../../src/adapters/serve/state-file.js';
import { FileLock } from '../../../src/store/lock.js';
import { layout } from '../../../src/store/paths.js';
import { gctx } from '../../support/cli.js';
import { cleanup } from '../../support/tmp.js';
import { GCTX_JS, NODE } from '../mcp/client.js';
import {
  cleanEnv,
  postHook,
  raw,
  type Raw,
  type RawRequest,
  readServeState,
  type Served,
  type ServeState,
  startServe,
  stateFile,
  until,
} from './served.js';
import { initialized as project } from '../../support/project.js';

async function commitCount(dir: string, contribution: string): Promise<number> {
  const m = await Memory.open(dir);
  try {
    let n = 0;
    m.events().forEach((e) => {
      if (e.type === 'commit.recorded' && e.data.contribution === contribution) n++;
    });
    return n;
  } finally {
    m.close();
  }
}

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

function rpc(state: ServeState, body: unknown, session?: string): Promise<Raw> {
  const headers = { ...MCP_HEADERS, ...(session ? { 'Mcp-Session-Id': session } : {}) };
  return raw(state, { method: 'POST', path: '/mcp', headers, body: JSON.stringify(body) });
}

async function mcpSession(state: ServeState): Promise<string> {
  const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } };
  const r = await rpc(state, { jsonrpc: '2.0', id: 0, method: 'initialize', params });
  expect(r.status).toBe(200);
  return r.headers['mcp-session-id'] as string;
}

const commitCall = (id: number, contribution: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'commit', arguments: { contribution } },
});

/** An answered commit call: true; refused before anything was recorded (404, E_LOCKED): false. */
function answered(r: Raw): boolean {
  if (r.status === 404) return false;
  expect(r.status).toBe(200);
  const body = JSON.parse(r.body) as { result?: { isError?: boolean; content: Array<{ text: string }> } };
  if (body.result?.isError) {
    expect(body.result.content[0]!.text).toMatch(/^E_LOCKED/);
    return false;
  }
  return true;
}

function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

function idleSocket(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      resolve({ socket, closed: new Promise((r) => socket.once('close', () => r())) });
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

describe('gctx serve, hardened', () => {
  let dir: string;
  let d: Served;
  const running: Served[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = await project('gcc-serve-hard-');
    d = await startServe(dir);
    running.push(d);
  });
  afterAll(async () => {
    for (const s of running) await s.stop();
    for (const c of children) c.kill();
    cleanup();
  });

  it('gives the page a read-only credential that is not the token, and takes it only from its own page', async () => {
    const r = await raw(d.state, { path: `/?token=${d.state.token}`, anonymous: true });
    expect(r.status).toBe(303);
    const cookies = r.headers['set-cookie'] as string[];
    expect(cookies.join('\n')).not.toContain(d.state.token);
    const pair = cookies[0]!.split(';')[0]!;
    expect(pair.startsWith(`gcc_page_${d.state.port}=`)).toBe(true);
    const status = async (r: RawRequest) => (await raw(d.state, r)).status;
    const page = (site?: string) => ({
      anonymous: true,
      headers: { Cookie: pair, ...(site ? { 'Sec-Fetch-Site': site } : {}) },
    });
    expect(await status({ ...page(), path: '/api/overview' })).toBe(200);
    // It writes nothing: hooks and MCP refuse it.
    expect(await status({ ...page(), method: 'POST', path: '/hooks/claude-code', body: '{}' })).toBe(401);
    expect(await status({ ...page(), method: 'POST', path: '/mcp', body: '{}' })).toBe(401);
    // Another server on 127.0.0.1 is the same site: its page's requests carry the cookie, and are refused.
    for (const site of ['same-site', 'cross-site']) {
      expect(await status({ ...page(site), path: '/api/overview' }), site).toBe(403);
      const hook = { method: 'POST', path: '/hooks/claude-code', headers: { 'Sec-Fetch-Site': site }, body: '{}' };
      expect(await status(hook), site).toBe(403);
    }
    expect(await status({ ...page('same-origin'), path: '/api/overview' })).toBe(200);
    // The cookie of older versions, the token itself, is no longer taken.
    const old = `gcc_token_${d.state.port}=${d.state.token}`;
    expect(await status({ path: '/api/overview', anonymous: true, headers: { Cookie: old } })).toBe(401);
  });

  it('answers hooks while another process holds more idle connections than the cap, and closes those', async () => {
    const idle = await Promise.all(Array.from({ length: 200 }, () => idleSocket(d.state.port)));
    const hook = await postHook(d.state, 'claude-code', '{}');
    expect(hook.status).toBe(200);
    // None that never authenticated is kept: every one is closed by the daemon.
    await Promise.all(idle.map((s) => s.closed));
    // A refused request does not keep its connection either.
    const refused = await raw(d.state, { path: '/api/overview', anonymous: true });
    expect(refused.status).toBe(401);
    expect(refused.headers.connection).toBe('close');
  });

  it('refuses parallel large bodies past its budget rather than buffer them, and its memory comes back', async () => {
    const before = rss(d.state.pid);
    const body = Buffer.alloc(60 * 1024 * 1024, 'x');
    const post = () =>
      postHook(d.state, 'claude-code', body as unknown as string).then(
        (r) => r.status,
        () => 'reset',
      );
    const statuses = await Promise.all(Array.from({ length: 6 }, post));
    for (const s of statuses) expect([200, 503, 'reset']).toContain(s);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    await until("the daemon's memory to come back", () => rss(d.state.pid) < before + 64 * 1024 * 1024);
    expect((await postHook(d.state, 'claude-code', '{}')).status).toBe(200);
  });

  it('answers an MCP call in flight when its session ends or is evicted, and records it at most once', async () => {
    const lock = new FileLock(layout(dir).lock);
    for (const end of ['DELETE', 'evict'] as const) {
      const contribution = `in flight, session ended by ${end}`;
      const sid = await mcpSession(d.state);
      // The call waits for the memory's lock, held here, while its session goes.
      await lock.acquire();
      const call = rpc(d.state, commitCall(1, contribution), sid);
      await new Promise((r) => setTimeout(r, 200));
      if (end === 'DELETE') {
        const del = raw(d.state, { method: 'DELETE', path: '/mcp', headers: { 'Mcp-Session-Id': sid } });
        lock.release();
        expect((await del).status).toBe(200);
      } else {
        for (let i = 0; i < 64; i++) await mcpSession(d.state);
        lock.release();
      }
      const r = await call;
      expect(await commitCount(dir, contribution)).toBe(answered(r) ? 1 : 0);
    }
  });

  it('records a retried MCP request once and gives every retry the first answer', async () => {
    const sid = await mcpSession(d.state);
    const contribution = 'sent three times';
    const send = () => rpc(d.state, commitCall(7, contribution), sid);
    const [a, b] = await Promise.all([send(), send()]);
    const c = await rpc(d.state, commitCall(7, contribution), sid);
    expect(a.status).toBe(200);
    expect(b.body).toBe(a.body);
    expect(c.body).toBe(a.body);
    expect(await commitCount(dir, contribution)).toBe(1);
    // An id used again for another request is another request.
    const reused = 'a new request under an old id';
    expect(answered(await rpc(d.state, commitCall(7, reused), sid))).toBe(true);
    expect(await commitCount(dir, reused)).toBe(1);
    // A client that gave up on its connection and retries.
    const gaveUp = 'sent, dropped, sent again';
    await new Promise<void>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: d.state.port }, () => {
        const body = JSON.stringify(commitCall(8, gaveUp));
        const head = [
          'POST /mcp HTTP/1.1',
          `Host: 127.0.0.1:${d.state.port}`,
          `Authorization: Bearer ${d.state.token}`,
          'Content-Type: application/json',
          'Accept: application/json, text/event-stream',
          `Mcp-Session-Id: ${sid}`,
          `Content-Length: ${Buffer.byteLength(body)}`,
        ];
        s.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => {
          s.destroy();
          resolve();
        });
      });
    });
    const again = await rpc(d.state, commitCall(8, gaveUp), sid);
    expect(answered(again)).toBe(true);
    expect(await commitCount(dir, gaveUp)).toBe(1);
  });

  it('lists an MCP session by its host while it is open, and no longer once it ended', async () => {
    const sid = await mcpSession(d.state);
    expect(answered(await rpc(d.state, commitCall(1, 'from a session that then ends'), sid))).toBe(true);
    type Listed = { sessions: Array<{ id: string; host: string }> };
    const sessions = async () => (JSON.parse((await raw(d.state, { path: '/api/overview' })).body) as Listed).sessions;
    expect((await sessions()).find((s) => s.id === `mcp-http-${sid}`)).toMatchObject({ host: 'mcp' });
    const end = await raw(d.state, { method: 'DELETE', path: '/mcp', headers: { 'Mcp-Session-Id': sid } });
    expect(end.status).toBe(200);
    expect((await sessions()).find((s) => s.id === `mcp-http-${sid}`)).toBeUndefined();
  });

  it('runs one daemon when two start at once; stop then leaves none', async () => {
    const both = await project('gcc-serve-race-');
    const starts = Array.from({ length: 2 }, () => {
      const args = [GCTX_JS, 'serve', '--dir', both, '--port', '0'];
      const child = spawn(NODE, args, { cwd: both, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let err = '';
      child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      return { child, exited, err: () => err };
    });
    const loser = await Promise.race(starts.map((s) => s.exited.then(() => s)));
    expect(await loser.exited).toBe(1);
    expect(loser.err()).toContain('E_ALREADY_RUNNING');
    const winner = starts.find((s) => s !== loser)!;
    await until('the other to listen', () => readServeState(both)?.pid === winner.child.pid);
    expect(gctx(both, ['serve', 'stop']).code).toBe(0);
    expect(await winner.exited).toBe(0);
    expect(gctx(both, ['serve', 'status']).code).toBe(1);
  });

  it('never sends the token to, nor signals, a process a stale state file names that cannot prove itself', async () => {
    const stale = await project('gcc-serve-impostor-');
    // Another program (a process of its own) listening on the port a stale state file names,
    // under its own pid: it answers anything, and notes every request it gets.
    const notes = join(stale, 'requests.jsonl');
    const listener = spawn(
      NODE,
      [
        '-e',
        `
      const { createServer } = require('node:http');
      const { appendFileSync } = require('node:fs');
      const s = createServer((req, res) => {
        appendFileSync(${JSON.stringify(notes)}, JSON.stringify({ url: req.url, headers: req.headers }) + '\\n');
        const answer = JSON.stringify({ ok: true, pid: process.pid, proof: 'f'.repeat(64) });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
      });
      s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(listener);
    let out = '';
    listener.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const port = Number(await until('the other program to listen', () => (out.includes('\n') ? out.trim() : null)));
    const token = 'a'.repeat(64);
    const state = {
      pid: listener.pid,
      port,
      url: `http://127.0.0.1:${port}/`,
      token,
      startedAt: '2026-01-01T00:00:00Z',
    };
    writeFileSync(stateFile(stale), JSON.stringify(state), { mode: 0o600 });
    for (const verb of ['stop', 'status']) {
      const r = gctx(stale, ['serve', verb]);
      expect(r.code, verb).toBe(1);
      expect(r.stderr, verb).toContain('does not prove itself');
    }
    expect(pidAlive(listener.pid!)).toBe(true);
    const seen = readFileSync(notes, 'utf8');
    expect(seen).toContain('/identify?nonce=');
    expect(seen).not.toContain(token);
  });
});
