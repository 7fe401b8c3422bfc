import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { FileLock } from '../../../src/store/lock.js';
import { layout } from '../../../src/store/paths.js';
import { tempProject } from './client.js';
import { byId, bytesOf, exchange, HANDSHAKE, rawServer, textOf, toolCall, type Message } from './raw.js';
import { initialized as project } from '../../support/project.js';

async function contributions(dir: string): Promise<string[]> {
  const memory = await Memory.open(dir);
  const texts: string[] = [];
  memory.eachHistoryEvent((e) => {
    if (e.type === 'commit.recorded') texts.push(e.data.contribution);
  });
  memory.close();
  return texts;
}

const ping = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const errorOf = (messages: Message[], id: string | number | null) => byId(messages, id).map((m) => m.error?.code);

describe('gctx mcp: a large message', () => {
  it("still takes a commit at the engine's text cap, however its characters are escaped", async () => {
    const dir = tempProject();
    // 1 Mi characters of CJK (3 bytes each in UTF-8): about 3 MiB on the line.
    const r = await exchange(dir, HANDSHAKE, toolCall(1, 'commit', { contribution: '語'.repeat(1_048_576) }));
    expect(byId(r.messages, 1)[0]?.result?.isError).toBeFalsy();
    // Over the cap, it is the engine that answers, with its own fix.
    const over = await exchange(dir, HANDSHAKE, toolCall(2, 'commit', { contribution: '\u0001'.repeat(1_048_577) }));
    expect(textOf(byId(over.messages, 2)[0])).toMatch(
      /^E_INVALID_ARGUMENT: contribution is longer than 1048576 characters\nFix: summarize it/,
    );
  });
});

describe('gctx mcp: lines that are not JSON-RPC messages', () => {
  it('skips a line that is not JSON or not JSON-RPC and goes on', async () => {
    const dir = tempProject();
    const r = await exchange(
      dir,
      HANDSHAKE,
      'not json\n',
      '{"jsonrpc":"2.0","id":2,"method":"ping"\n',
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
      [ping(3)],
      '42\n',
      { id: 4, method: 'ping' },
      { jsonrpc: '2.0', id: 10, method: 'no/such/method' },
      ping(11),
    );
    expect(r.code).toBe(0);
    expect(errorOf(r.messages, 10)).toEqual([-32601]);
    expect(byId(r.messages, 11)).toEqual([{ jsonrpc: '2.0', id: 11, result: {} }]);
    expect(r.messages.map((m) => String(m.id)).sort()).toEqual(['10', '11', 'init']);
  });

  it('ignores blank lines and takes CRLF line ends', async () => {
    const dir = tempProject();
    const r = await exchange(
      dir,
      HANDSHAKE.replaceAll('\n', '\r\n'),
      '\n\r\n   \n\t\r\n',
      `${JSON.stringify(ping(1))}\r\n\n`,
      ping(2),
    );
    expect(r.code).toBe(0);
    expect(r.messages.map((m) => m.id)).toEqual(['init', 1, 2]);
    expect(r.messages.every((m) => !m.error)).toBe(true);
  });
});

describe('gctx mcp: tool arguments that are not an object', () => {
  it('answers E_INVALID_ARGUMENT with the required and optional arguments, not a validation dump', async () => {
    const dir = tempProject();
    const r = await exchange(
      dir,
      HANDSHAKE,
      toolCall(1, 'commit', null),
      toolCall(2, 'commit'),
      toolCall(3, 'commit', 'just a string'),
      toolCall(4, 'commit', ['a']),
      toolCall(5, 'context', null),
      toolCall(6, 'nope', 7),
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } },
      { jsonrpc: '2.0', id: 8, method: 'tools/call' },
    );
    expect(r.code).toBe(0);
    const fix = '\nFix: required: contribution; optional: title, next, check, files';
    const missing = `E_INVALID_ARGUMENT: invalid arguments for commit: missing contribution${fix}`;
    expect([1, 2].map((id) => byId(r.messages, id)[0]?.result)).toEqual(
      [1, 2].map(() => ({ content: [{ type: 'text', text: missing }], isError: true })),
    );
    expect(textOf(byId(r.messages, 3)[0])).toBe(
      `E_INVALID_ARGUMENT: arguments of commit must be an object, not string${fix}`,
    );
    expect(textOf(byId(r.messages, 4)[0])).toBe(
      `E_INVALID_ARGUMENT: arguments of commit must be an object, not a list${fix}`,
    );
    // null is "no arguments": context needs none.
    expect(byId(r.messages, 5)[0]?.result?.isError).toBeFalsy();
    expect(textOf(byId(r.messages, 6)[0])).toMatch(
      /^E_INVALID_ARGUMENT: unknown tool "nope"\nFix: use one of: commit, /,
    );
    for (const id of [7, 8]) {
      expect(byId(r.messages, id)[0]?.error).toEqual({
        code: -32602,
        message:
          'Invalid params: tools/call needs params.name, the tool to call (one of commit, branch, switch, merge, abandon, roadmap, log, context), and params.arguments, an object',
      });
    }
  });
});

/** Holds the memory's lock from this process, so a server's write waits until `release()`. */
async function holdLock(dir: string): Promise<FileLock> {
  const lock = new FileLock(layout(dir).lock);
  await lock.acquire();
  return lock;
}

/** A folder whose memory exists, so the lock file's folder does. */

describe('gctx mcp: a cancelled call', () => {
  it('does not answer a cancelled call (which still runs: a write cannot be taken back) and still exits', async () => {
    const dir = await project();
    const lock = await holdLock(dir);
    const server = rawServer(dir);
    await server.write(
      HANDSHAKE,
      toolCall(5, 'commit', { contribution: 'cancelled' }),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } },
      ping(6),
    );
    await server.answer(6);
    lock.release();
    server.end();
    const r = await server.exited;
    expect(r.code).toBe(0);
    expect(r.messages.map((m) => m.id)).toEqual(['init', 6]);
    expect(await contributions(dir)).toEqual(['cancelled']);
  });
});

describe('gctx mcp: shutting down', () => {
  it('answers every call read before stdin closes, with several servers contending for one memory', async () => {
    const dir = await project();
    const [servers, calls] = [5, 6];
    const bursts = Array.from({ length: servers }, (_, s) => {
      const commits = Array.from({ length: calls }, (_, i) =>
        toolCall(i + 1, 'commit', { contribution: `server ${s} commit ${i + 1}` }),
      );
      return exchange(dir, HANDSHAKE, ...commits);
    });
    const runs = await Promise.all(bursts);
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.messages.map((m) => m.id).sort()).toEqual(
        [...Array.from({ length: calls }, (_, i) => i + 1), 'init'].sort(),
      );
      expect(r.messages.filter((m) => m.error || m.result?.isError)).toEqual([]);
    }
    const expected = Array.from({ length: servers }, (_, s) =>
      Array.from({ length: calls }, (_, i) => `server ${s} commit ${i + 1}`),
    ).flat();
    expect((await contributions(dir)).sort()).toEqual(expected.sort());
    const memory = await Memory.open(dir);
    expect(memory.verify()).toEqual([]);
    memory.close();
  });

  it('on SIGTERM stops reading, answers what it read, then exits 0', async () => {
    const dir = await project();
    const lock = await holdLock(dir);
    const server = rawServer(dir);
    await server.write(HANDSHAKE, toolCall(2, 'commit', { contribution: 'read before the signal' }), ping(3));
    await server.answer(3);
    server.kill('SIGTERM');
    lock.release();
    const r = await server.exited;
    expect(r.code).toBe(0);
    expect(byId(r.messages, 2)[0]?.result?.isError).toBeFalsy();
    expect(await contributions(dir)).toEqual(['read before the signal']);
  });

  it('answers the calls it read before a line over its limit, then stops reading and exits 0', async () => {
    const dir = await project();
    const lock = await holdLock(dir);
    const server = rawServer(dir);
    await server.write(HANDSHAKE, toolCall(2, 'commit', { contribution: 'read before the long line' }), ping(3));
    await server.answer(3);
    await server.write(`${'x'.repeat(11 * 1024 * 1024)}\n`, ping(4));
    lock.release();
    const r = await server.exited;
    expect(r.code).toBe(0);
    expect(byId(r.messages, 2)).toHaveLength(1);
    expect(byId(r.messages, 2)[0]?.result?.isError).toBeFalsy();
    expect(byId(r.messages, 4)).toEqual([]);
    expect(r.stderr).toContain('10 MiB');
    expect(await contributions(dir)).toEqual(['read before the long line']);
  });

  it('ends cleanly when its stdout is gone (EPIPE)', async () => {
    const dir = tempProject();
    const server = rawServer(dir);
    server.dropStdout();
    server.end(HANDSHAKE, toolCall(1, 'context', {}), ping(2));
    const r = await server.exited;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('writes every answer whole when they outgrow the pipe', async () => {
    const dir = tempProject();
    const lists = Array.from({ length: 300 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const r = await exchange(dir, HANDSHAKE, ...lists);
    expect(r.stdout.length).toBeGreaterThan(1 << 20);
    const answers = r.messages.filter((m) => m.id !== 'init');
    expect(answers.map((m) => m.id)).toEqual(lists.map((l) => l.id));
    expect(new Set(answers.map((m) => JSON.stringify(m.result))).size).toBe(1);
  });
});

/** Requests whose answers depend only on their bytes: unknown tools and searches with text in several scripts. */
const STREAM = bytesOf([
  HANDSHAKE,
  toolCall(1, 'nöpe-日本語-🚀', { x: 'é' }),
  '\r\n',
  toolCall(2, 'context', { level: 'search', text: 'ünïcödé 検索 🧪' }),
  `${JSON.stringify(toolCall(3, 'search', { text: 'Ωmega 🚀🚀 末尾' }))}\r\n`,
  toolCall(4, '🦀', {}),
]);

describe('gctx mcp: any chunking of a stream', () => {
  it('gets the same answers, split anywhere, inside characters too (the real process)', async () => {
    const dir = tempProject();
    await exchange(dir, HANDSHAKE, toolCall(0, 'commit', { contribution: 'a memory to search' }));
    const sorted = (ms: Message[]) => ms.map((m) => JSON.stringify(m)).sort();
    const whole = sorted((await exchange(dir, STREAM)).messages);
    expect(whole).toHaveLength(5);
    const cuts = fc
      .uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 }), { minLength: 1, maxLength: 24 })
      .map((a) => a.sort((x, y) => x - y));
    await fc.assert(
      fc.asyncProperty(cuts, async (at) => {
        const server = rawServer(dir);
        for (const [i, end] of [...at, STREAM.length].entries())
          await server.write(STREAM.subarray(i === 0 ? 0 : at[i - 1], end));
        server.end();
        expect(sorted((await server.exited).messages)).toEqual(whole);
      }),
      { numRuns: 8 },
    );
  });
});
