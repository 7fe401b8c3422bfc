import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../../../src/adapters/pi/config.js';
import { installHookBridge } from '../../../src/adapters/pi/hook-bridge.js';
import { MemorySlot } from '../../../src/adapters/pi/session.js';
import { Memory } from '../../../src/index.js';
import { call, createHost, type Host, say, tempDir } from './harness.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

describe('Pi: the write guard on the real host', () => {
  it('refuses find -delete into .GCC/, and lets a git stash and find -exec cat through', async () => {
    const dir = tempDir('gcc-pi-guard-');
    (await Memory.open(dir, { create: true })).close();
    const h = await createHost({ cwd: dir });
    hosts.push(h);
    await h.turn('tidy up', [
      call('bash', { command: "find .GCC -name '*.md' -delete" }),
      call('bash', { command: 'git stash -u' }),
      call('bash', { command: 'find .GCC -name main.md -exec cat {} \\;' }),
      say('ok'),
    ]);
    const [del, stash, read] = h.toolResults();
    expect(del?.isError).toBe(true);
    expect(del?.text).toMatch(/generated from the memory log/);
    // Not gctx's refusal: git's own answer, in a folder that is no repository.
    expect(stash?.text).not.toMatch(/memory log/);
    expect(read?.isError).toBe(false);
  });

  it("lets Pi's edit and write change .GCC/main.md, adopted as events, and still refuses its removal by shell", async () => {
    const dir = tempDir('gcc-pi-main-');
    (await Memory.open(dir, { create: true })).close();
    const h = await createHost({ cwd: dir });
    hosts.push(h);
    await h.turn('plan', [
      call('edit', {
        path: '.GCC/main.md',
        edits: [{ oldText: '## Objectives\n', newText: '## Objectives\n- [ ] Ship the parser\n' }],
      }),
      call('bash', { command: 'rm .GCC/main.md' }),
      say('ok'),
    ]);
    const [edit, rm] = h.toolResults();
    expect(edit?.isError, edit?.text).toBe(false);
    expect(rm?.isError).toBe(true);
    expect(rm?.text).toContain('.GCC/main.md alone may be edited, with a file edit tool');
    const m = await Memory.open(dir);
    try {
      expect(m.state.objectives.map((o) => o.text)).toEqual(['Ship the parser']);
      expect(m.verify()).toEqual([]);
    } finally {
      m.close();
    }
  });
});

describe('Pi bridge without an open memory', () => {
  /** The bridge's tool_call handler, on a stand-in for Pi's extension API. */
  function bridge(memoryRoot: string) {
    const handlers = new Map<string, (event: unknown, ctx: unknown) => Promise<unknown>>();
    const pi = {
      on: (name: string, fn: (event: unknown, ctx: unknown) => Promise<unknown>) => handlers.set(name, fn),
    } as unknown as ExtensionAPI;
    const slot = new MemorySlot();
    slot.resolved = { memoryRoot, config: { hook: true } } as unknown as ResolvedConfig;
    installHookBridge(pi, slot);
    const toolCall = handlers.get('tool_call')!;
    return (toolName: string, input: Record<string, unknown>) =>
      toolCall({ toolName, input, toolCallId: 'c1' }, { cwd: memoryRoot });
  }

  it('still refuses MCP writes and shell writes into a .GCC/ on disk', async () => {
    const dir = tempDir('gcc-pi-nomem-');
    mkdirSync(join(dir, '.GCC/events'), { recursive: true });
    writeFileSync(join(dir, '.GCC/main.md'), '# main\n');
    const guard = bridge(dir);
    expect(await guard('mcp__filesystem__write_file', { path: '.GCC/main.md', content: 'x' })).toMatchObject({
      block: true,
    });
    expect(await guard('bash', { command: 'rm .GCC/main.md' })).toMatchObject({ block: true });
    expect(await guard('bash', { command: 'git checkout .' })).toBeUndefined();
    expect(await guard('bash', { command: 'cat .GCC/main.md' })).toBeUndefined();
    expect(await guard('mcp__gcc__commit', { contribution: 'x' })).toBeUndefined();
  });
});
