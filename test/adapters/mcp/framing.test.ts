import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MESSAGE_LIMIT, StdioTransport } from '../../../src/adapters/mcp/stdio.js';
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

describe('gctx mcp: a message over the size limit', () => {
  it('is answered with Invalid Request, under its id when either end of the line shows it, and the server goes on', async () => {
    const dir = tempProject();
    const huge = 'x'.repeat(MESSAGE_LIMIT);
    // The id first (as most clients write it), last (as the SDK's client does), and nowhere;
    // a response's id is the client's own, so it is not used either.
    const idFirst = toolCall(7, 'commit', { contribution: huge });
    const idLast = {
      method: 'tools/call',
      params: { name: 'commit', arguments: { contribution: huge } },
      jsonrpc: '2.0',
      id: 'last',
    };
    const response = { result: { huge }, jsonrpc: '2.0', id: 9 };
    const r = await exchange(
      dir,
      HANDSHAKE,
      idFirst,
      idLast,
      `${'y'.repeat(MESSAGE_LIMIT + 1)}\n`,
      response,
      toolCall(8, 'commit', { contribution: 'small enough' }),
    );
    expect(r.code).toBe(0);
    const refusals = [...byId(r.messages, 7), ...byId(r.messages, 'last'), ...byId(r.messages, null)];
    expect(refusals).toHaveLength(4);
    for (const m of refusals) {
      expect(m.error?.code).toBe(-32600);
      expect(m.error?.message).toMatch(
        /over the limit of 8388608 bytes \(8 MiB\) for one line; it was skipped unread\. Send less: /,
      );
      expect(m.error?.data).toMatchObject({ limit: MESSAGE_LIMIT });
    }
    expect(byId(r.messages, null)[0]?.error?.data).toEqual({ limit: MESSAGE_LIMIT, bytes: MESSAGE_LIMIT + 1 });
    expect(byId(r.messages, 9)).toEqual([]);
    expect(byId(r.messages, 8)[0]?.result?.isError).toBeFalsy();
    expect(await contributions(dir)).toEqual(['small enough']);
  });

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
  it('answers a parse error (id null) for a line that is not JSON or not UTF-8, Invalid Request for JSON that is not JSON-RPC, and goes on', async () => {
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
      { jsonrpc: '2.0', id: { x: 1 }, method: 'ping' },
      { jsonrpc: '2.0', id: 5, method: 'ping', extra: true },
      { jsonrpc: '2.0', id: 6, method: 7 },
      { jsonrpc: '2.0', id: 12, result: 'not an object' },
      { jsonrpc: '2.0', id: 10, method: 'no/such/method' },
      ping(11),
    );
    expect(r.code).toBe(0);
    const nulls = byId(r.messages, null).map((m) => [m.error?.code, m.error?.message]);
    expect(nulls).toEqual([
      [-32700, expect.stringMatching(/^Parse error: the line is not JSON \(.*\); send one JSON-RPC message per line$/)],
      [-32700, expect.stringMatching(/^Parse error: the line is not JSON/)],
      [-32700, 'Parse error: the line is not valid UTF-8; send one JSON-RPC message per line, in UTF-8'],
      [-32600, 'Invalid Request: batches are not supported; send each message on a line of its own'],
      [-32600, 'Invalid Request: a message is a JSON object'],
      [-32600, 'Invalid Request: id must be a string or an integer'],
      [-32600, 'Invalid Request: a response has an id and either result (an object) or error ({code, message})'],
    ]);
    expect(byId(r.messages, 4).map((m) => m.error)).toEqual([
      { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' },
    ]);
    expect(byId(r.messages, 5)[0]?.error?.message).toBe(
      'Invalid Request: a request has only jsonrpc, id, method and params, not extra',
    );
    expect(byId(r.messages, 6)[0]?.error?.message).toBe('Invalid Request: method must be a string');
    expect(errorOf(r.messages, 10)).toEqual([-32601]);
    expect(byId(r.messages, 11)).toEqual([{ jsonrpc: '2.0', id: 11, result: {} }]);
    expect(r.messages).toHaveLength(13);
  });

  it('ignores blank lines, takes CRLF line ends and a last line without its newline', async () => {
    const dir = tempProject();
    const r = await exchange(
      dir,
      HANDSHAKE.replaceAll('\n', '\r\n'),
      '\n\r\n   \n\t\r\n',
      `${JSON.stringify(ping(1))}\r\n\n`,
      JSON.stringify(ping(2)),
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

describe('gctx mcp: a request repeating an id (a retry)', () => {
  it('is answered again with the same bytes and not run again, whether it came while the first ran or after', async () => {
    const dir = await project();
    const lock = await holdLock(dir);
    const server = rawServer(dir);
    const once = toolCall(5, 'commit', { contribution: 'sent twice, meant once' });
    // The retry is read while the first copy waits for the lock: ping 6 is answered after both are read.
    await server.write(HANDSHAKE, once, once, ping(6));
    await server.answer(6);
    lock.release();
    await server.answer(5);
    // And once more after the answer, with another _meta (a progress token): still the same call.
    await server.write({ ...once, params: { ...once.params, _meta: { progressToken: 'p' } } }, ping(7));
    await server.answer(7);
    server.end();
    const r = await server.exited;
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l && (JSON.parse(l) as Message).id === 5);
    expect(lines).toHaveLength(3);
    expect(new Set(lines).size).toBe(1);
    expect(byId(r.messages, 5)[0]?.result?.isError).toBeFalsy();
    expect(await contributions(dir)).toEqual(['sent twice, meant once']);
  });

  it('refuses an id reused for a different request', async () => {
    const dir = tempProject();
    const r = await exchange(
      dir,
      HANDSHAKE,
      toolCall(5, 'commit', { contribution: 'first' }),
      toolCall(5, 'commit', { contribution: 'second' }),
    );
    const [answer, refusal] = [byId(r.messages, 5).find((m) => m.result), byId(r.messages, 5).find((m) => m.error)];
    expect(answer?.result?.isError).toBeFalsy();
    expect(refusal?.error).toEqual({
      code: -32600,
      message:
        'Invalid Request: id 5 was already used in this session for a different request; give each request a new id',
    });
    expect(await contributions(dir)).toEqual(['first']);
  });

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
      // The last call is sent twice, as a client that retries would: one commit, two answers.
      return exchange(dir, HANDSHAKE, ...commits, commits.at(-1)!);
    });
    const runs = await Promise.all(bursts);
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.messages.map((m) => m.id).sort()).toEqual(
        [...Array.from({ length: calls }, (_, i) => i + 1), calls, 'init'].sort(),
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

  it('decodes the same messages however the bytes are cut, and skips only the overlong (the transport alone, exact chunks)', async () => {
    const limit = 160;
    const texts = fc.array(fc.string({ unit: 'binary', maxLength: 70 }), { minLength: 1, maxLength: 6 });
    const ends = fc.array(fc.constantFrom('\n', '\r\n', '\n\n', '\n \r\n'), { minLength: 6, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(texts, ends, fc.array(fc.nat(), { maxLength: 20 }), async (strings, seps, cutSeeds) => {
        const requests = strings.map((text, id) => ({ jsonrpc: '2.0', id, method: 'echo', params: { text } }));
        const stream = Buffer.from(requests.map((r, i) => JSON.stringify(r) + seps[i]).join(''));
        const at = [...new Set(cutSeeds.map((s) => (s % (stream.length - 1)) + 1))].sort((x, y) => x - y);
        const answers = await echoThrough(stream, at, limit);
        // A CR before the newline counts as part of the line.
        const size = (i: number) => Buffer.byteLength(JSON.stringify(requests[i])) + (seps[i] === '\r\n' ? 1 : 0);
        expect(answers).toEqual(
          requests.map((r, i) => (size(i) > limit ? { id: r.id, error: -32600 } : { id: r.id, echo: r.params.text })),
        );
      }),
      { numRuns: 300 },
    );
  });
});

/** An echo server on the transport over in-memory streams, fed `stream` cut at `at`. */
async function echoThrough(stream: Buffer, at: number[], limit: number): Promise<unknown[]> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioTransport({ stdin, stdout, limit });
  transport.onmessage = (m) => {
    if ('id' in m && 'method' in m)
      void transport.send({ jsonrpc: '2.0', id: m.id, result: { echo: (m.params as { text: string }).text } });
  };
  await transport.start();
  for (const [i, end] of [...at, stream.length].entries()) stdin.write(stream.subarray(i === 0 ? 0 : at[i - 1], end));
  stdin.end();
  await transport.inputEnded;
  await transport.settled();
  const out = String(stdout.read() ?? '');
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: number; result?: { echo: string }; error?: { code: number } })
    .map((m) => (m.error ? { id: m.id, error: m.error.code } : { id: m.id, echo: m.result!.echo }));
}
