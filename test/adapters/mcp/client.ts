/**
 * Test helper: the real `gctx mcp` as a child process, driven by the SDK's own client over
 * stdio, exactly as a host would. Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI } from '../../support/cli.js';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const MAIN_JS = join(REPO, 'dist/adapters/cli/main.js');
/** The package's `bin`: the bundled executable (scripts/bundle.mjs), as hosts run it. */
export const GCTX_JS = CLI;
/** Node 22 from the devDependency when present, else the one running the tests. */
export const NODE = existsSync(join(REPO, 'node_modules/.bin/node'))
  ? join(REPO, 'node_modules/.bin/node')
  : process.execPath;

export function tempProject(prefix = 'gcc-mcp-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/** `dir` is the server's working folder and, unless `withDir` is false, its --dir. */
export async function connect(
  dir: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
  entry = GCTX_JS,
  withDir = true,
): Promise<Connected> {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const cleanEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== 'GCC_SESSION' && k !== 'CLAUDE_CODE_SESSION_ID') cleanEnv[k] = v;
  const transport = new StdioClientTransport({
    command: NODE,
    args: [entry, 'mcp', ...(withDir ? ['--dir', dir] : []), ...extraArgs],
    cwd: dir,
    env: { ...cleanEnv, ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'gcc-test', version: '1.0.0' });
  await client.connect(transport);
  // As hosts do: the tool list first (the client caches it; gctx declares no output schemas).
  await client.listTools();
  return { client, stderr: () => err, close: () => client.close() };
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** What a result holds for a client to act on: the branch, whether more is left and how to get it. */
export interface Structured {
  branch?: string;
  truncated?: true;
  next?: Record<string, unknown>;
}

export function structured(r: CallToolResult): Structured {
  if (r.isError) throw new Error(`tool failed: ${textOf(r)}`);
  return (r.structuredContent ?? {}) as Structured;
}

/** Raw JSON-RPC over the real process's pipes: what a host that is not the SDK sees. */
export function exchange(
  entry: string,
  dir: string,
  lines: unknown[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
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

export const INITIALIZE = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];
