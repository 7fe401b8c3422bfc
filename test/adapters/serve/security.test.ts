/**
 * Who may talk to `gctx serve`, against the real daemon (a child process of the built gctx):
 * each refusal the security model promises (docs/serve.md), and the headers the page needs.
 */
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { json, raw, type Served, startServe } from './served.js';

describe('gctx serve: who may talk to it', () => {
  let dir: string;
  let d: Served;
  const events = async () => (await json<{ events: number }>(d.state, '/api/overview')).events;

  beforeAll(async () => {
    dir = tempProject('gcc-serve-sec-');
    (await Memory.open(dir, { create: true })).close();
    d = await startServe(dir);
  });
  afterAll(async () => {
    await d?.stop();
    cleanup();
  });

  it('answers its owner: the token as a Bearer header', async () => {
    const r = await raw(d.state, { path: '/api/overview' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ events: 1, branch: 'main' });
  });

  it('refuses a request without the token, or with another one (401)', async () => {
    expect((await raw(d.state, { path: '/api/overview', anonymous: true })).status).toBe(401);
    expect(
      (await raw(d.state, { path: '/api/overview', headers: { Authorization: `Bearer ${'0'.repeat(64)}` } })).status,
    ).toBe(401);
    expect(
      (
        await raw(d.state, {
          path: '/api/overview',
          headers: { Authorization: `Bearer ${d.state.token.slice(0, -1)}` },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await raw(d.state, {
          path: '/api/overview',
          anonymous: true,
          headers: { Cookie: `gcc_token_${d.state.port}=nope` },
        })
      ).status,
    ).toBe(401);
    // Hooks and MCP are held to the same rule.
    expect(
      (await raw(d.state, { method: 'POST', path: '/hooks/claude-code', anonymous: true, body: '{}' })).status,
    ).toBe(401);
    expect((await raw(d.state, { method: 'POST', path: '/mcp', anonymous: true, body: '{}' })).status).toBe(401);
  });

  it('never writes the token into its log, however a refused request carries it in the query', async () => {
    const t = d.state.token;
    for (const path of [
      `/x?token=nope&token=${t}`,
      `/nothere?TOKEN=${t}`,
      `/api/overview?a=1&t=${t}`,
      `/?%74oken=${t}`,
    ]) {
      await raw(d.state, { path, anonymous: true });
    }
    expect(d.stderr()).toMatch(/refused GET \/x\?…/);
    expect(d.stderr()).not.toContain(t);
  });

  it('refuses a Host that is not loopback with its port, token or not (DNS rebinding, 403)', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${d.state.port}`,
      `127.0.0.1:${d.state.port + 1}`,
      '127.0.0.1',
      `192.168.1.5:${d.state.port}`,
    ]) {
      const r = await raw(d.state, { path: '/api/overview', headers: { Host: host } });
      expect(r.status, host).toBe(403);
    }
    for (const host of [`localhost:${d.state.port}`, `[::1]:${d.state.port}`, `LOCALHOST:${d.state.port}`]) {
      expect((await raw(d.state, { path: '/api/overview', headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it('refuses a foreign Origin (403), and takes its own', async () => {
    for (const origin of [
      'https://evil.example',
      `http://localhost:${d.state.port}`,
      'null',
      `http://127.0.0.1:${d.state.port + 1}`,
    ]) {
      const r = await raw(d.state, {
        method: 'POST',
        path: '/hooks/claude-code',
        headers: { Origin: origin },
        body: '{}',
      });
      expect(r.status, origin).toBe(403);
    }
    expect(
      (await raw(d.state, { path: '/api/overview', headers: { Origin: `http://127.0.0.1:${d.state.port}` } })).status,
    ).toBe(200);
  });

  it('trades the token in the page address for an HttpOnly, SameSite=Strict cookie, and takes that cookie', async () => {
    const wrong = await raw(d.state, { path: `/?token=${'f'.repeat(64)}`, anonymous: true });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const r = await raw(d.state, { path: `/?token=${d.state.token}`, anonymous: true });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const cookie = (r.headers['set-cookie'] as string[])[0]!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const pair = cookie.split(';')[0]!;
    expect((await raw(d.state, { path: '/api/overview', anonymous: true, headers: { Cookie: pair } })).status).toBe(
      200,
    );
  });

  it('changes nothing on GET or HEAD: hooks and MCP take POST (and DELETE) only (405)', async () => {
    const before = await events();
    for (const [method, path] of [
      ['GET', '/hooks/claude-code'],
      ['HEAD', '/hooks/claude-code'],
      ['GET', '/mcp'],
      ['PUT', '/mcp'],
      ['POST', '/api/overview'],
      ['DELETE', '/api/log'],
      ['POST', '/'],
    ] as const) {
      const r = await raw(d.state, { method, path });
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.allow).toBeTruthy();
    }
    expect((await raw(d.state, { method: 'HEAD', path: '/events' })).status).toBe(200);
    for (const path of [
      '/',
      '/api/overview',
      '/api/log',
      '/api/commits',
      '/api/graph',
      '/api/search?q=memory',
      '/healthz',
    ]) {
      expect((await raw(d.state, { path })).status, path).toBe(200);
      expect((await raw(d.state, { method: 'HEAD', path })).status, `HEAD ${path}`).toBe(200);
    }
    expect(await events()).toBe(before);
  });

  it('refuses a body over its limit (413)', async () => {
    // Refused on the declared length, before any of the body is read.
    const declared = await raw(d.state, {
      method: 'POST',
      path: '/mcp',
      headers: { 'Content-Type': 'application/json' },
      body: '{"pad":"',
      declaredLength: 5 * 1024 * 1024,
    });
    expect(declared.status).toBe(413);
    const hook = await raw(d.state, {
      method: 'POST',
      path: '/hooks/claude-code',
      headers: { 'Content-Type': 'application/json' },
      body: '{"pad":"',
      declaredLength: 65 * 1024 * 1024,
    });
    expect(hook.status).toBe(413);
  });

  it('sends the page with its CSP (frame-ancestors none), revalidated; assets immutable; nothing sniffed', async () => {
    const page = await raw(d.state, { path: '/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)![1]!;
    const a = await raw(d.state, { path: asset });
    expect(a.status).toBe(200);
    expect(a.headers['cache-control']).toContain('immutable');
    expect(a.headers['content-type']).toContain('text/javascript');
    expect((await raw(d.state, { path: '/api/overview' })).headers['cache-control']).toBe('no-store');
    for (const path of [
      '/assets/../../package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/etc/passwd',
      '/assets/',
    ]) {
      expect((await raw(d.state, { path })).status, path).toBe(404);
    }
  });

  it('listens on 127.0.0.1 only, and keeps its token and state readable by their owner only', async () => {
    expect(d.state.url).toBe(`http://127.0.0.1:${d.state.port}/`);
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (outside) {
      const refused = await new Promise<string>((resolve) => {
        const s = connect({ host: outside.address, port: d.state.port }, () => {
          s.destroy();
          resolve('connected');
        });
        s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
    }
    for (const f of ['serve.json', 'serve.token'])
      expect(statSync(join(dir, '.GCC/.local', f)).mode & 0o777, f).toBe(0o600);
  });
});
