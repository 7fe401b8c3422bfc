import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GCTX_JS, MAIN_JS, NODE, tempProject } from './client.js';

/** Raw JSON-RPC over the real process's pipes: what a host that is not the SDK sees. */
function exchange(entry: string, dir: string, lines: unknown[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [entry, 'mcp', '--dir', dir], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // Everything at once, then EOF: the server must answer all of it before it exits.
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
}

describe.each([
  ['the bin', GCTX_JS],
  ['main.js', MAIN_JS],
])('gctx mcp over raw stdio, through %s', (_, entry) => {
  it('answers every request received before stdin closes, prints only protocol on stdout, and exits 0', async () => {
    const dir = tempProject();
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const calls = Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: 'commit', arguments: { contribution: `raw ${i}` } } }));
    const r = await exchange(entry, dir, [init, { jsonrpc: '2.0', method: 'notifications/initialized' }, ...calls, { jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'switch', arguments: { name: 'nowhere' } } }]);
    expect(r.code).toBe(0);
    const messages = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result?: { isError?: boolean; content?: { text: string }[] } });
    expect(messages.map((m) => m.id)).toEqual([1, 10, 11, 12, 13, 14, 99]);
    expect(messages.slice(1, 6).every((m) => !m.result?.isError)).toBe(true);
    expect(messages[6]!.result?.isError).toBe(true);
    expect(messages[6]!.result?.content?.[0]?.text).toMatch(/^E_BRANCH_NOT_FOUND: /);
  });
});
