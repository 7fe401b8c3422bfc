/**
 * MCP over Streamable HTTP at /mcp, driven by two real SDK clients (StreamableHTTPClientTransport)
 * at once against the real daemon: each MCP session is its own GCC session, so each client
 * switches to its own memory branch and its commits land there; DELETE ends a session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { gctx } from '../../support/cli.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { raw, type Served, type ServeState, startServe } from './served.js';

async function client(
  state: ServeState,
  name: string,
  headers: Record<string, string> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', state.url), {
    requestInit: { headers: { Authorization: `Bearer ${state.token}`, ...headers } },
  });
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(transport);
  return { client: c, transport };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = (await c.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${text(r)}`);
  return r;
}

async function commitsByBranch(dir: string): Promise<Record<string, string[]>> {
  const m = await Memory.open(dir);
  try {
    const out: Record<string, string[]> = {};
    m.events().forEach((e) => {
      if (e.type === 'commit.recorded') (out[e.branch] ??= []).push(e.data.contribution);
    });
    return out;
  } finally {
    m.close();
  }
}

describe('gctx serve: MCP over Streamable HTTP', () => {
  let dir: string;
  let d: Served;

  beforeAll(async () => {
    dir = tempProject('gcc-serve-mcp-');
    (await Memory.open(dir, { create: true })).close();
    for (const b of ['alpha', 'beta']) expect(gctx(dir, ['branch', b, '--purpose', `Try ${b}`]).code).toBe(0);
    expect(gctx(dir, ['switch', 'main']).code).toBe(0);
    d = await startServe(dir);
  });
  afterAll(async () => {
    await d?.stop();
    cleanup();
  });

  it("serves the catalogue's tools to two clients at once, each on its own branch", async () => {
    const [a, b] = await Promise.all([client(d.state, 'client-a'), client(d.state, 'client-b')]);
    expect(a.transport.sessionId).toBeTruthy();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    const tools = (await a.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['commit', 'branch', 'switch', 'merge', 'context']));
    expect(tools).not.toContain('serve');

    await Promise.all([call(a.client, 'switch', { name: 'alpha' }), call(b.client, 'switch', { name: 'beta' })]);
    const writes: Promise<CallToolResult>[] = [];
    for (let i = 1; i <= 5; i++) {
      writes.push(
        call(a.client, 'commit', { contribution: `alpha step ${i}` }),
        call(b.client, 'commit', { contribution: `beta step ${i}` }),
      );
    }
    const results = await Promise.all(writes);
    expect(results.map((r) => (r.structuredContent as { branch: string }).branch)).toEqual(
      Array.from({ length: 5 }, () => ['alpha', 'beta']).flat(),
    );
    expect(text(await call(a.client, 'context', {}))).toContain('On memory branch alpha');
    expect(text(await call(b.client, 'context', {}))).toContain('On memory branch beta');

    const commits = await commitsByBranch(dir);
    expect(commits.alpha).toEqual([1, 2, 3, 4, 5].map((i) => `alpha step ${i}`));
    expect(commits.beta).toEqual([1, 2, 3, 4, 5].map((i) => `beta step ${i}`));
    expect(commits.main).toBeUndefined();
    // The CLI's session is none of theirs: it stayed on main.
    expect(gctx(dir, ['status']).stdout).toContain('On memory branch main');

    // DELETE ends a session; its id is no longer taken. The other client is untouched.
    const ended = a.transport.sessionId!;
    await a.transport.terminateSession();
    const gone = await raw(d.state, {
      method: 'POST',
      path: '/mcp',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': ended,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(gone.status).toBe(404);
    expect(text(await call(b.client, 'context', {}))).toContain('On memory branch beta');
    await Promise.all([a.client.close(), b.client.close()]);
  });

  it('acts for the host session a client names in X-GCC-Session, the one its hooks log for', async () => {
    expect(gctx(dir, ['switch', 'alpha', '--session', 'claude-7'], undefined).code).toBe(0);
    const c = await client(d.state, 'client-named', { 'X-GCC-Session': 'claude-7' });
    expect(text(await call(c.client, 'context', {}))).toContain('On memory branch alpha');
    await c.client.close();
    const bad = await raw(d.state, {
      method: 'POST',
      path: '/mcp',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'X-GCC-Session': '../etc',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(bad.status).toBe(400);
  });

  it("answers a tool error as an MCP error result carrying the engine's code, the session kept", async () => {
    const c = await client(d.state, 'client-c');
    const before = text(await call(c.client, 'context', {})).match(/On memory branch \S+/)![0];
    const r = (await c.client.callTool({ name: 'switch', arguments: { name: 'no-such-branch' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^E_BRANCH_NOT_FOUND/);
    expect(text(await call(c.client, 'context', {}))).toContain(before);
    await c.client.close();
  });

  it('answers a malformed tools/call with the code and the fix, as over stdio, not a validation dump', async () => {
    const c = await client(d.state, 'client-d');
    const post = (id: number, params: unknown) =>
      raw(d.state, {
        method: 'POST',
        path: '/mcp',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': c.transport.sessionId!,
          'Mcp-Protocol-Version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
      });
    const list = JSON.parse((await post(1, { name: 'commit', arguments: [1] })).body);
    expect(list.result.isError).toBe(true);
    expect(list.result.content[0].text).toMatch(/^E_INVALID_ARGUMENT[^]*\nFix: /);
    const nameless = JSON.parse((await post(2, { arguments: {} })).body);
    expect(nameless.error.code).toBe(-32602);
    expect(nameless.error.message).toContain('params.name');
    await c.client.close();
  });
});
