import { describe, expect, it } from 'vitest';
import { exchange, GCTX_JS, INITIALIZE, MAIN_JS, tempProject } from './client.js';

describe.each([
  ['the bin', GCTX_JS],
  ['main.js', MAIN_JS],
])('gctx mcp over raw stdio, through %s', (_, entry) => {
  it('answers every request received before stdin closes, prints only protocol on stdout, and exits 0', async () => {
    const dir = tempProject();
    const calls = Array.from({ length: 5 }, (_, i) => ({
      jsonrpc: '2.0',
      id: 10 + i,
      method: 'tools/call',
      params: { name: 'commit', arguments: { contribution: `raw ${i}` } },
    }));
    const r = await exchange(entry, dir, [
      ...INITIALIZE,
      ...calls,
      { jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'switch', arguments: { name: 'nowhere' } } },
    ]);
    expect(r.code).toBe(0);
    const messages = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; result?: { isError?: boolean; content?: { text: string }[] } });
    expect(messages.map((m) => m.id)).toEqual([1, 10, 11, 12, 13, 14, 99]);
    expect(messages.slice(1, 6).every((m) => !m.result?.isError)).toBe(true);
    expect(messages[6]!.result?.isError).toBe(true);
    expect(messages[6]!.result?.content?.[0]?.text).toMatch(/^E_BRANCH_NOT_FOUND: /);
  });
});
