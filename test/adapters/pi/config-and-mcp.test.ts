import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/adapters/pi/config.js';
import { readEvents } from '../../support/events.js';
import { call, createHost, FIXTURES, type Host, say, tempDir } from './harness.js';
import { initialized as project } from '../../support/project.js';

const hosts: Host[] = [];
const ENV_KEYS = [
  'GCC_PI_CHANNEL',
  'GCC_BIN',
  'GCC_PI_READY_TIMEOUT_MS',
  'GCC_TEST_NODE',
  'FAKE_GCTX_LOG',
  'FAKE_GCTX_VERSION',
  'GCC_PI_CONTEXT_BUDGET',
];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
  for (const k of ENV_KEYS) delete process.env[k];
});

const notices = (h: Host) =>
  h
    .visible()
    .filter((m) => m.customType === 'gcc-notice')
    .map((m) => m.text);

describe('configuration layers', () => {
  it('layers environment over project file over global file over defaults', () => {
    const dir = tempDir('gcc-pi-cfg-');
    const agent = tempDir('gcc-pi-agent-');
    mkdirSync(join(dir, '.pi'));
    writeFileSync(
      join(agent, 'gcc.json'),
      JSON.stringify({ contextBudget: 111, briefingBudget: 222, hookTimeoutMs: 333, bin: '/opt/gctx' }),
    );
    writeFileSync(join(dir, '.pi/gcc.json'), JSON.stringify({ contextBudget: 444, briefingBudget: 555 }));
    const r = resolveConfig(dir, { PI_CODING_AGENT_DIR: agent, GCC_PI_CONTEXT_BUDGET: '666' });
    expect(r.config).toMatchObject({
      contextBudget: 666,
      briefingBudget: 555,
      hookTimeoutMs: 333,
      readyTimeoutMs: 10_000,
      bin: '/opt/gctx',
    });
    expect(r.sources).toMatchObject({
      contextBudget: 'env',
      briefingBudget: 'project',
      hookTimeoutMs: 'global',
      readyTimeoutMs: 'default',
      bin: 'global',
    });
    expect(r.warnings).toEqual([]);
  });

  it('falls through a malformed file, and a bad value, to the next layer with a warning', () => {
    const dir = tempDir('gcc-pi-cfg-');
    const agent = tempDir('gcc-pi-agent-');
    mkdirSync(join(dir, '.pi'));
    writeFileSync(join(agent, 'gcc.json'), JSON.stringify({ contextBudget: 123, channel: 'carrier-pigeon' }));
    writeFileSync(join(dir, '.pi/gcc.json'), '{ "contextBudget": 9, oops');
    const r = resolveConfig(dir, { PI_CODING_AGENT_DIR: agent, GCC_PI_HOOK: 'maybe' });
    expect(r.config.contextBudget).toBe(123);
    expect(r.config.channel).toBe('tools');
    expect(r.config.hook).toBe(true);
    expect(r.warnings.join('\n')).toMatch(/gcc\.json: malformed/);
    expect(r.warnings.join('\n')).toMatch(/invalid value for "channel"/);
    expect(r.warnings.join('\n')).toMatch(/invalid value for "hook"/);
  });

  it('never lets the project file choose the executable or a folder outside the project', () => {
    const dir = tempDir('gcc-pi-cfg-');
    const agent = tempDir('gcc-pi-agent-');
    const outside = tempDir('gcc-pi-outside-');
    mkdirSync(join(dir, '.pi'));
    symlinkSync(outside, join(dir, 'escape'));
    for (const memoryDir of ['../elsewhere', '/etc', 'escape', 'sub/../../x']) {
      writeFileSync(join(dir, '.pi/gcc.json'), JSON.stringify({ bin: '/tmp/evil', memoryDir }));
      const r = resolveConfig(dir, { PI_CODING_AGENT_DIR: agent });
      expect(r.config.bin).toBeNull();
      expect(r.config.memoryDir).toBe('.');
      expect(r.memoryRoot).toBe(dir);
      expect(r.warnings.join('\n')).toMatch(/"bin" is ignored in a project file/);
      expect(r.warnings.join('\n')).toMatch(/"memoryDir" must stay inside the project/);
    }
    // Inside is fine.
    writeFileSync(join(dir, '.pi/gcc.json'), JSON.stringify({ memoryDir: 'memory' }));
    expect(resolveConfig(dir, { PI_CODING_AGENT_DIR: agent }).memoryRoot).toBe(join(dir, 'memory'));
  });

  it('resolves against the session directory: finds .GCC/ in an ancestor', async () => {
    const dir = await project();
    mkdirSync(join(dir, 'src/deep'), { recursive: true });
    expect(resolveConfig(join(dir, 'src/deep'), {}).projectRoot).toBe(dir);
  });
});

describe('MCP channel on the real host', () => {
  it('a project file cannot make Pi run its executable: the registration never uses it', async () => {
    const dir = await project();
    const marker = join(dir, 'evil-ran');
    const evil = join(dir, 'evil.sh');
    writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    mkdirSync(join(dir, '.pi'));
    writeFileSync(join(dir, '.pi/gcc.json'), JSON.stringify({ channel: 'mcp', bin: evil }));
    process.env.GCC_PI_READY_TIMEOUT_MS = '1500';
    process.env.PATH = process.env.PATH ?? '';
    const h = await createHost({ cwd: dir, builtins: true });
    hosts.push(h);
    // Whichever channel ends up serving memory (this package's own `gctx mcp`, or the
    // in-process fallback), the evil script is never what runs.
    await h.turn('hi', [
      (seen) => call(seen.tools.includes('gcc_context') ? 'gcc_context' : 'mcp__gcc__context', {}),
      say('ok'),
    ]);
    expect(existsSync(marker)).toBe(false);
    const r = h.toolResults()[0];
    expect(r?.isError, r?.text).toBe(false);
  });

  it("serves memory through Pi's built-in MCP when selected: direct tools, one session, no in-process duplicates", async () => {
    const dir = await project();
    const log = join(tempDir('gcc-pi-fake-'), 'gctx.jsonl');
    Object.assign(process.env, {
      GCC_PI_CHANNEL: 'mcp',
      GCC_BIN: join(FIXTURES, 'fake-gctx'),
      GCC_TEST_NODE: process.execPath,
      FAKE_GCTX_LOG: log,
    });
    const h = await createHost({ cwd: dir, builtins: true });
    hosts.push(h);
    await h.turn('commit via mcp', [call('mcp__gcc__commit', { contribution: 'Committed over MCP' }), say('ok')]);
    const tools = h.requests[0]?.tools ?? [];
    expect(tools).toContain('mcp__gcc__commit');
    expect(tools.filter((t) => t.startsWith('gcc_'))).toEqual([]);
    const r = h.toolResults()[0];
    expect(r?.isError, r?.text).toBe(false);
    const session = `pi:${h.session().sessionManager.getSessionId()}`;
    const events = await readEvents(dir);
    const commit = events.find((e) => e.type === 'commit.recorded');
    // The memory tool call is the operation itself, not also a logged tool call.
    expect(events.filter((e) => e.type === 'tool.recorded')).toEqual([]);
    expect(commit?.data.contribution).toBe('Committed over MCP');
    const spawned = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { argv: string[]; cwd: string; session: string });
    expect(spawned.find((s) => s.argv[0] === 'mcp')).toMatchObject({ cwd: dir, session });
    expect(notices(h)).toEqual([]);
  });

  it('works with the real `gctx mcp` of this package', async () => {
    const dir = await project();
    Object.assign(process.env, { GCC_PI_CHANNEL: 'mcp' });
    const h = await createHost({ cwd: dir, builtins: true });
    hosts.push(h);
    await h.turn('commit via the real server', [
      call('mcp__gcc__commit', { contribution: 'Committed through gctx mcp' }),
      say('ok'),
    ]);
    expect(h.requests[0]?.tools).toContain('mcp__gcc__commit');
    const r = h.toolResults()[0];
    expect(r?.isError, r?.text).toBe(false);
    const commit = (await readEvents(dir)).find((e) => e.type === 'commit.recorded');
    expect(commit?.data.contribution).toBe('Committed through gctx mcp');
    expect(notices(h)).toEqual([]);
  });

  it('falls back to in-process tools, and says so once, when no extension connects MCP', async () => {
    const dir = await project();
    Object.assign(process.env, {
      GCC_PI_CHANNEL: 'mcp',
      GCC_BIN: join(FIXTURES, 'fake-gctx'),
      GCC_TEST_NODE: process.execPath,
    });
    const h = await createHost({ cwd: dir, builtins: false });
    hosts.push(h);
    await h.turn('hi', [call('gcc_commit', { contribution: 'in-process after all' }), say('ok')]);
    await h.turn('again', [say('ok')]);
    expect(h.toolResults()[0]?.isError).toBe(false);
    const told = notices(h).filter((t) => /run in-process.*no loaded extension connects MCP/s.test(t));
    expect(told).toHaveLength(1);
  });
});
