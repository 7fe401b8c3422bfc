#!/usr/bin/env node
/**
 * The `gctx` executable: a bootstrap in front of the CLI (main.ts). Two things must happen
 * before the CLI's module graph loads, which main.ts cannot do for its own static imports:
 *
 * - Node's on-disk compile cache is turned on, so later starts skip recompiling modules;
 * - `gctx hook`, which a host runs as a fresh process for every tool call, goes straight to
 *   hook-main.ts: it never loads the command table, and the engine only when the event needs
 *   it (a PreToolUse that refuses nothing does not); `gctx mcp` likewise goes to mcp-main.ts.
 *   Each of the three is a single import so that the bundle (scripts/bundle.mjs) can ship each
 *   as one file.
 *
 * Everything else, and any hook or mcp call with options the fast path does not take, is main.ts.
 */
// A namespace import: on a Node without enableCompileCache, a named import would fail to link.
import * as nodeModule from 'node:module';
import { commandFirst } from './globals.js';
import { keepHeapSmall } from './heap-flags.js';
import { writeErr, writeOut } from './write-out.js';

try {
  nodeModule.enableCompileCache?.();
} catch {
  // An unwritable cache folder only costs speed.
}

/** The options each fast path takes, each with a value (as hosts are configured). */
const FAST: Record<string, readonly string[]> = {
  hook: ['--agent', '--dir', '--session'],
  mcp: ['--dir', '--session', '--budget'],
};

/** The options of a hook or mcp call the fast path takes, by name; null for anything else. */
function fastOptions(argv: readonly string[]): Record<string, string> | null {
  const allowed = FAST[argv[0] ?? ''];
  if (!allowed) return null;
  const opts: Record<string, string> = {};
  for (let i = 1; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (!allowed.includes(argv[i]!) || value === undefined || value.startsWith('--')) return null;
    opts[argv[i]!.slice(2)] = value;
  }
  return opts;
}

async function main(argv: readonly string[]): Promise<number> {
  const opts = fastOptions(argv);
  if (opts && argv[0] === 'hook') {
    const { hookFromBootstrap } = await import('./hook-main.js');
    return hookFromBootstrap(opts);
  }
  if (opts && argv[0] === 'mcp') {
    // Before the server's modules load: the SDK's own loading would grow the young generation.
    keepHeapSmall();
    const { mcpFromBootstrap } = await import('./mcp-main.js');
    // false: a --budget main.ts refuses, with its own message.
    if (await mcpFromBootstrap(opts)) return 0;
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    const { VERSION } = await import('../../runtime/version.js');
    writeOut(`${VERSION}\n`);
    return 0;
  }
  const { run } = await import('./main.js');
  return run(argv);
}

// Global options may come before the command (`gctx --dir x hook …`): the command first, so the
// fast paths and the hook's exit code below know it.
const words = commandFirst(process.argv.slice(2));
main(words).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // A hook must never fail the host; other commands report an internal error.
    writeErr(`gctx: internal error: ${String(err)}\n`);
    process.exitCode = words[0] === 'hook' ? 0 : 2;
  },
);
