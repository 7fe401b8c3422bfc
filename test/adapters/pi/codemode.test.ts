import { join } from 'node:path';
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/index.js';
import { readEvents } from '../../support/events.js';
import { call, createHost, FIXTURES, type Host, say, tempDir } from './harness.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

/** An unrelated MCP server (the prototype's echo), reachable from codemode scripts only. */
const echoServer = (pi: ExtensionAPI) => {
  pi.on('session_start', () => {
    pi.registerMcpServer('echo', {
      command: process.execPath,
      args: [join(FIXTURES, 'echo-server.mjs')],
      exposure: 'codemode',
    });
  });
};

describe('Pi extension on the real host: codemode scripts', () => {
  it('sees every nested call: logs it, blocks a .GCC write inside the script, and keeps structuredContent when it adds guidance', async () => {
    const dir = tempDir('gcc-pi-project-');
    const m = await Memory.open(dir, { create: true });
    // Every call crosses the turn threshold's first step, so the first nested call gets guidance.
    await m.execute({ type: 'config', key: 'commit_after_turns', value: 1 });
    m.close();
    const h = await createHost({ cwd: dir, builtins: true, extraFactories: [echoServer] });
    hosts.push(h);
    const code = [
      "const r = await tools.mcp__echo__echo({ text: 'from script' });",
      'text(r.content[0].text);',
      "await tools.bash({ command: 'echo nested-bash' });",
      "try { await tools.write({ path: '.GCC/commit.md', content: 'forged' }); text('write went through'); }",
      "catch (e) { text('rejected: ' + e.message); }",
    ].join('\n');
    await h.turn('script it', [call('codemode', { code }, 'running a script'), say('done')]);
    const out = h.toolResults().find((r) => r.toolName === 'codemode');
    expect(out?.isError, out?.text).toBe(false);
    // The script still read the MCP result's structured content after our guidance was appended.
    expect(out?.text).toContain('echo: from script');
    expect(out?.text).toMatch(/rejected: .*generated from the memory log/);
    expect(out?.text).not.toContain('write went through');

    const recorded = (await readEvents(dir)).flatMap((e) =>
      e.type === 'tool.recorded' ? [`${e.data.tool}:${e.data.isError ? 'error' : 'ok'}`] : [],
    );
    expect(recorded).toEqual(['mcp__echo__echo:ok', 'bash:ok', 'write:error', 'codemode:ok']);
  });
});
