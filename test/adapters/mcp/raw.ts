/**
 * Test helper: the real `gctx mcp` as a child process, spoken to in raw JSON-RPC lines (what a
 * host that is not the SDK, or a broken one, sends). Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { GCTX_JS, NODE } from './client.js';

export interface Message {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  result?: { content?: { type: string; text: string }[]; isError?: boolean; [k: string]: unknown };
  error?: { code: number; message: string; data?: unknown };
}

export interface Exit {
  code: number | null;
  messages: Message[];
  /** stdout exactly as written. */
  stdout: string;
  stderr: string;
}

export const INIT = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
/** The handshake, as one string of lines. */
export const HANDSHAKE = `${JSON.stringify(INIT)}\n${JSON.stringify(INITIALIZED)}\n`;

export const toolCall = (id: string | number, name: string, args?: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});

/** Objects become JSON lines; strings and bytes go as they are. */
export function bytesOf(parts: readonly (object | string | Buffer)[]): Buffer {
  return Buffer.concat(
    parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(typeof p === 'string' ? p : `${JSON.stringify(p)}\n`))),
  );
}

export interface RawServer {
  write(...parts: (object | string | Buffer)[]): Promise<void>;
  /** Writes the parts, then closes stdin. */
  end(...parts: (object | string | Buffer)[]): void;
  /** The first message with this id, once it has arrived. */
  answer(id: string | number | null): Promise<Message>;
  kill(signal: NodeJS.Signals): void;
  /** Closes this side of the server's stdout, as a client that went away. */
  dropStdout(): void;
  exited: Promise<Exit>;
}

export function rawServer(dir: string, args: string[] = []): RawServer {
  if (!existsSync(GCTX_JS)) throw new Error(`${GCTX_JS} is missing: run \`npm run build\` first`);
  const env = { ...process.env };
  delete env.GCC_SESSION;
  delete env.CLAUDE_CODE_SESSION_ID;
  const child = spawn(NODE, [GCTX_JS, 'mcp', '--dir', dir, ...args], {
    cwd: dir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const messages: Message[] = [];
  const waiting: { id: string | number | null; resolve: (m: Message) => void }[] = [];
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    stdout += d;
    const lines = (partial + d).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const m = JSON.parse(line) as Message;
      messages.push(m);
      for (const w of waiting.filter((x) => x.id === m.id)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  // A server that stops reading early makes our writes fail with EPIPE: that is the test's to judge.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<Exit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, messages, stdout, stderr }));
  });
  return {
    write: (...parts) => new Promise((resolve) => child.stdin.write(bytesOf(parts), () => resolve())),
    end: (...parts) => void child.stdin.end(bytesOf(parts)),
    answer: (id) => {
      const seen = messages.find((m) => m.id === id);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiting.push({ id, resolve }));
    },
    kill: (signal) => void child.kill(signal),
    dropStdout: () => child.stdout.destroy(),
    exited,
  };
}

/** Everything at once, then end of input: what the server printed and how it exited. */
export function exchange(dir: string, ...parts: (object | string | Buffer)[]): Promise<Exit> {
  const server = rawServer(dir);
  server.end(...parts);
  return server.exited;
}

export const byId = (messages: readonly Message[], id: string | number | null): Message[] =>
  messages.filter((m) => m.id === id);

export function textOf(m: Message | undefined): string {
  return (m?.result?.content ?? []).map((c) => c.text).join('');
}
