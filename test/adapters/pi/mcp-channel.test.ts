/**
 * The MCP channel on the real host, for what docs/pi.md claims about it: the 600 s request
 * timeout, an executable that does not resolve, and a `gcc` entry in Pi's own mcp.json. Every
 * call goes through Pi's built-in MCP connector (createMcpExtension) and a real stdio server.
 */
import type { ExtensionAPI, ExtensionFactory } from '@earendil-works/pi-coding-agent';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { userServer } from '../../../src/adapters/pi/mcp-channel.js';
import { readEvents } from '../../support/events.js';
import { call, createHost, FIXTURES, type Host, say, tempDir } from './harness.js';
import { initialized as project } from '../../support/project.js';

const hosts: Host[] = [];
const children: ChildProcess[] = [];
const ENV_KEYS = [
  'GCC_PI_CHANNEL',
  'GCC_BIN',
  'GCC_PI_HOOK',
  'GCC_PI_READY_TIMEOUT_MS',
  'GCC_TEST_NODE',
  'FAKE_GCTX_LOG',
];
afterEach(async () => {
  // A lock holder left behind by a failed test would hold up the servers' shutdown.
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
  for (const h of hosts.splice(0)) await h.dispose();
  for (const k of ENV_KEYS) delete process.env[k];
});

/** Wait for a condition; the cap only stops a broken run from hanging. */
async function until(what: string, cond: () => boolean, capMs = 120_000): Promise<void> {
  const deadline = Date.now() + capMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A test-only extension next to ours: hands the test Pi's API, and the order tools ran in. */
function observer() {
  const seen = { api: null as ExtensionAPI | null, runs: [] as string[], afterEnd: new Map<string, () => void>() };
  const factory: ExtensionFactory = (pi) => {
    seen.api = pi;
    pi.on('tool_execution_start', (e) => void seen.runs.push(`start ${e.toolName}`));
    pi.on('tool_execution_end', (e) => {
      seen.runs.push(`end ${e.toolName}`);
      seen.afterEnd.get(e.toolName)?.();
    });
  };
  const api = () => {
    if (!seen.api) throw new Error('the observer extension was not loaded');
    return seen.api;
  };
  const tools = () =>
    api()
      .getAllTools()
      .filter((t) => (t as { exposure?: string }).exposure !== 'hidden')
      .map((t) => t.name);
  return { factory, seen, api, tools };
}

const notices = (h: Host) =>
  h
    .visible()
    .filter((m) => m.customType === 'gcc-notice')
    .map((m) => m.text);

/** `/gcc status` as the person sees it. */
async function status(h: Host): Promise<string> {
  await h.session().prompt('/gcc status');
  const out = h
    .session()
    .sessionManager.getEntries()
    .flatMap((e) => (e.type === 'custom' && e.customType === 'gcc-output' ? [(e.data as { text: string }).text] : []));
  return out.at(-1) ?? '';
}

async function commits(dir: string): Promise<unknown[]> {
  return (await readEvents(dir)).flatMap((e) => (e.type === 'commit.recorded' ? [e.data.contribution] : []));
}

/** Hold the memory's lock from another process until the returned release is called. */
async function holdLock(dir: string): Promise<() => void> {
  const child = spawn(process.execPath, [join(FIXTURES, 'lock-holder.mjs'), join(dir, '.GCC', '.local', 'lock')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  return () => child.stdin?.end();
}

describe('the 600-second request timeout', () => {
  it("registers gcc with timeout 600, and Pi's connector applies each server's own timeout: a call longer than a short one fails on a twin server, ours completes", async () => {
    const dir = await project();
    // The hook bridge would log the twin's call, which needs the very lock this test holds.
    Object.assign(process.env, {
      GCC_PI_CHANNEL: 'mcp',
      GCC_BIN: join(FIXTURES, 'real-gctx'),
      GCC_TEST_NODE: process.execPath,
      GCC_PI_HOOK: 'false',
    });
    const o = observer();
    const h = await createHost({ cwd: dir, builtins: true, extraFactories: [o.factory] });
    hosts.push(h);
    await until('the gcc tools', () => o.tools().includes('mcp__gcc__commit'));

    // What Pi's connector uses: it builds each server from getMcpServers()' config (Pi
    // dist/extensions/mcp/index.js:249-257) and times requests at config.timeout × 1000 ms,
    // 60 s when unset (dist/extensions/mcp/runtime.js:19, 144-146, 284; index.js:315; tools.js:207).
    const gcc = o
      .api()
      .getMcpServers()
      .find((s) => s.name === 'gcc');
    expect(gcc?.config).toMatchObject({ timeout: 600, exposure: 'direct' });

    // The same `gctx mcp`, on the same memory and session, differing only in a 5 s timeout. Pi
    // applies it to the connection too (initialize, tools/list), so it must outlast a server
    // start on a loaded machine: at 1 s the twin's tools never came up under load.
    o.api().registerMcpServer('twin', { ...gcc!.config, timeout: 5 });
    await until('the twin tools', () => o.tools().includes('mcp__twin__commit'));

    // Both calls wait on the lock; it is let go only once Pi has given up on the twin's call,
    // so ours was in flight longer than the twin's timeout.
    const release = await holdLock(dir);
    o.seen.afterEnd.set('mcp__twin__commit', release);
    await h.turn('commit twice', [
      {
        calls: [
          { name: 'mcp__twin__commit', args: { contribution: 'twin: gave up after 5 s' } },
          { name: 'mcp__gcc__commit', args: { contribution: 'outlived the short timeout' } },
        ],
      },
      say('ok'),
    ]);
    const twin = h.toolResults().find((r) => r.toolName === 'mcp__twin__commit');
    const ours = h.toolResults().find((r) => r.toolName === 'mcp__gcc__commit');
    expect(twin?.isError).toBe(true);
    expect(twin?.text).toMatch(/MCP request timed out after 5000ms/);
    expect(ours?.isError, ours?.text).toBe(false);
    expect(o.seen.runs).toEqual([
      'start mcp__twin__commit',
      'start mcp__gcc__commit',
      'end mcp__twin__commit',
      'end mcp__gcc__commit',
    ]);
    expect(await commits(dir)).toContain('outlived the short timeout');
  });
});

describe('an executable that does not resolve', () => {
  /** Each case sets a bin that does not resolve, and returns it. */
  const cases: [string, (agentDir: string) => string][] = [
    ['GCC_BIN in the environment', () => (process.env.GCC_BIN = '/nonexistent/bin/gctx')],
    [
      'bin in the global gcc.json',
      (agentDir) => {
        writeFileSync(join(agentDir, 'gcc.json'), JSON.stringify({ bin: '/nonexistent/global/gctx' }));
        return '/nonexistent/global/gctx';
      },
    ],
    ['a bare name that is not on PATH', () => (process.env.GCC_BIN = 'gctx-not-installed-anywhere')],
  ];
  it.each(cases)('%s: in-process gcc_* tools, the first turn told why once, and they work', async (_, configure) => {
    const dir = await project();
    const agentDir = tempDir('gcc-pi-agent-');
    process.env.GCC_PI_CHANNEL = 'mcp';
    const bin = configure(agentDir);
    const o = observer();
    const h = await createHost({ cwd: dir, agentDir, builtins: true, extraFactories: [o.factory] });
    hosts.push(h);
    await h.turn('commit', [call('gcc_commit', { contribution: 'in-process after all' }), say('ok')]);
    await h.turn('again', [say('ok')]);

    const tools = h.requests[0]?.tools ?? [];
    expect(tools).toContain('gcc_commit');
    expect(tools.filter((t) => t.startsWith('mcp__gcc__'))).toEqual([]);
    // Nothing was handed to Pi to spawn.
    expect(o.api().getMcpServers()).toEqual([]);
    const why = `the gctx executable "${bin}" does not resolve`;
    expect(notices(h)).toEqual([expect.stringContaining(why)]);
    expect(h.requests[0]?.messages.filter((m) => m.text.includes(why))).toHaveLength(1);
    expect(h.toolResults()[0]?.isError, h.toolResults()[0]?.text).toBe(false);
    expect(await commits(dir)).toEqual(['in-process after all']);
    expect(await status(h)).toMatch(/Channel: tools \(MCP unavailable: the gctx executable .* does not resolve\)/);
  });

  it('is never taken from the project file: a bin there is ignored, whether or not another layer sets one', async () => {
    const dir = await project();
    const agentDir = tempDir('gcc-pi-agent-');
    mkdirSync(join(dir, '.pi'));
    writeFileSync(join(dir, '.pi/gcc.json'), JSON.stringify({ channel: 'mcp', bin: '/nonexistent/project/gctx' }));
    writeFileSync(join(agentDir, 'gcc.json'), JSON.stringify({ bin: '/nonexistent/global/gctx' }));
    const h = await createHost({ cwd: dir, agentDir, builtins: true });
    hosts.push(h);
    await h.turn('hi', [say('ok')]);
    // The global file's executable is the one tried (and reported), not the project's.
    expect(notices(h).join('\n')).toContain('"/nonexistent/global/gctx" does not resolve');
    expect(notices(h).join('\n')).not.toContain('/nonexistent/project/gctx');
    await h.dispose();
    hosts.pop();

    // Without another layer's bin, the project's missing one does not make the channel fall back.
    const h2 = await createHost({ cwd: dir, builtins: true });
    hosts.push(h2);
    await h2.turn('hi', [say('ok')]);
    expect(h2.requests[0]?.tools).toContain('mcp__gcc__commit');
    expect(notices(h2).filter((n) => /run in-process/.test(n))).toEqual([]);
  });
});

describe("a gcc entry in Pi's own mcp.json", () => {
  /** The user's server: the prototype's echo, so the test can tell whose tools are visible. */
  const userEntry = (log: string, extra: Record<string, unknown> = {}) => ({
    mcpServers: {
      gcc: {
        command: process.execPath,
        args: [join(FIXTURES, 'echo-server.mjs')],
        exposure: 'direct',
        env: { ECHO_LOG: log },
        ...extra,
      },
    },
  });
  const spawned = (log: string) =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { kind: string; argv?: string[] })
      : [];

  it("is what Pi connects in place of a registered server of that name (Pi's rule the channel relies on)", async () => {
    const dir = await project();
    const agentDir = tempDir('gcc-pi-agent-');
    const echoLog = join(agentDir, 'echo.jsonl');
    const gctxLog = join(agentDir, 'gctx.jsonl');
    writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(userEntry(echoLog)));
    Object.assign(process.env, { GCC_TEST_NODE: process.execPath, FAKE_GCTX_LOG: gctxLog });
    // Another extension registers `gcc` the way the channel used to; the default channel registers nothing.
    const registersGcc: ExtensionFactory = (pi) => {
      pi.on('session_start', () =>
        pi.registerMcpServer('gcc', { command: join(FIXTURES, 'fake-gctx'), args: ['mcp'], exposure: 'direct' }),
      );
    };
    const h = await createHost({ cwd: dir, agentDir, builtins: true, extraFactories: [registersGcc] });
    hosts.push(h);
    await h.turn('whose?', [say('ok')]);
    // Pi dist/extensions/mcp/index.js:246-261: a registration whose namespace mcp.json defines is skipped.
    expect(h.requests[0]?.tools).toContain('mcp__gcc__echo');
    expect(h.requests[0]?.tools).not.toContain('mcp__gcc__commit');
    expect(spawned(gctxLog)).toEqual([]);
  });

  it("serves memory in place of gctx mcp: the model sees the user's tools, ours is neither registered nor run, /gcc status says whose", async () => {
    const dir = await project();
    const agentDir = tempDir('gcc-pi-agent-');
    const echoLog = join(agentDir, 'echo.jsonl');
    const gctxLog = join(agentDir, 'gctx.jsonl');
    writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(userEntry(echoLog)));
    Object.assign(process.env, {
      GCC_PI_CHANNEL: 'mcp',
      GCC_BIN: join(FIXTURES, 'fake-gctx'),
      GCC_TEST_NODE: process.execPath,
      FAKE_GCTX_LOG: gctxLog,
    });
    const o = observer();
    const h = await createHost({ cwd: dir, agentDir, builtins: true, extraFactories: [o.factory] });
    hosts.push(h);
    await h.turn('whose?', [call('mcp__gcc__echo', { text: 'whose tools?' }), say('ok')]);
    expect(o.api().getMcpServers()).toEqual([]);

    const tools = h.requests[0]?.tools ?? [];
    expect(tools).toContain('mcp__gcc__echo');
    expect(tools.filter((t) => t === 'mcp__gcc__commit' || t.startsWith('gcc_'))).toEqual([]);
    expect(h.toolResults()[0]?.text).toBe('echo: whose tools?');
    expect(spawned(echoLog).some((r) => r.kind === 'spawned')).toBe(true);
    expect(spawned(gctxLog).filter((r) => r.argv?.[0] === 'mcp')).toEqual([]);
    expect(notices(h)).toEqual([]);
    expect(await status(h)).toContain(`Channel: mcp (the "gcc" server in ${join(agentDir, 'mcp.json')}`);
  });

  it("in the project's .pi/mcp.json, wins even when our executable does not resolve: no in-process duplicates", async () => {
    const dir = await project();
    const echoLog = join(dir, 'echo.jsonl');
    mkdirSync(join(dir, '.pi'));
    writeFileSync(join(dir, '.pi/mcp.json'), JSON.stringify(userEntry(echoLog)));
    Object.assign(process.env, { GCC_PI_CHANNEL: 'mcp', GCC_BIN: '/nonexistent/bin/gctx' });
    const h = await createHost({ cwd: dir, builtins: true });
    hosts.push(h);
    await h.turn('whose?', [call('mcp__gcc__echo', { text: 'still theirs' }), say('ok')]);

    const tools = h.requests[0]?.tools ?? [];
    expect(tools).toContain('mcp__gcc__echo');
    expect(tools.filter((t) => t.startsWith('gcc_'))).toEqual([]);
    expect(h.toolResults()[0]?.text).toBe('echo: still theirs');
    expect(notices(h)).toEqual([]);
  });

  it('when disabled there, Pi connects neither it nor ours: memory falls back in-process at once, and says why', async () => {
    const dir = await project();
    const agentDir = tempDir('gcc-pi-agent-');
    const echoLog = join(agentDir, 'echo.jsonl');
    writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify(userEntry(echoLog, { enabled: false })));
    Object.assign(process.env, {
      GCC_PI_CHANNEL: 'mcp',
      GCC_BIN: join(FIXTURES, 'fake-gctx'),
      GCC_TEST_NODE: process.execPath,
    });
    const h = await createHost({ cwd: dir, agentDir, builtins: true });
    hosts.push(h);
    await h.turn('commit', [call('gcc_commit', { contribution: 'in-process, gcc disabled in mcp.json' }), say('ok')]);

    expect(h.requests[0]?.tools).toContain('gcc_commit');
    expect(h.requests[0]?.tools.filter((t) => t.startsWith('mcp__gcc__'))).toEqual([]);
    expect(h.toolResults()[0]?.isError).toBe(false);
    expect(notices(h)).toEqual([expect.stringMatching(/the "gcc" server in .*mcp\.json is disabled/)]);
    expect(spawned(echoLog)).toEqual([]);
  });
});

describe("reading Pi's mcp.json for a gcc entry", () => {
  const write = (file: string, servers: Record<string, unknown>) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  };
  const server = { command: 'gctx', args: ['mcp'] };

  it("follows Pi's layering: project entries replace or override the global one, only in trusted projects", () => {
    const agent = tempDir('gcc-pi-agent-');
    const cwd = tempDir('gcc-pi-cwd-');
    const global = join(agent, 'mcp.json');
    const local = join(cwd, '.pi', 'mcp.json');
    expect(userServer(agent, cwd, true)).toBeNull();
    write(global, { other: server, gcc: server });
    expect(userServer(agent, cwd, true)).toEqual({ file: global, enabled: true });
    // A project override of `enabled` alone applies to the global entry, in a trusted project.
    write(local, { gcc: { enabled: false } });
    expect(userServer(agent, cwd, true)).toEqual({ file: local, enabled: false });
    expect(userServer(agent, cwd, false)).toEqual({ file: global, enabled: true });
    // An override with nothing to override, or an entry Pi rejects outright, defines nothing.
    write(global, { gcc: { enabled: true } });
    expect(userServer(agent, cwd, true)).toBeNull();
    // A full project entry stands on its own.
    write(local, { gcc: { url: 'http://127.0.0.1:1/mcp' } });
    expect(userServer(agent, cwd, true)).toEqual({ file: local, enabled: true });
    writeFileSync(local, '{ not json');
    expect(userServer(agent, cwd, true)).toBeNull();
  });
});
