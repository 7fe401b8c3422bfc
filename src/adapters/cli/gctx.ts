#!/usr/bin/env node
/**
 * The `gctx` executable: a bootstrap in front of the CLI (main.ts). Two things must happen
 * before the CLI's module graph loads, which main.ts cannot do for its own static imports:
 *
 * - Node's on-disk compile cache is turned on, so later starts skip recompiling modules;
 * - `gctx hook`, which a host runs as a fresh process for every tool call, goes straight to the
 *   hook modules: it never loads the command table, and the engine only when the event needs
 *   it (a PreToolUse that refuses nothing does not); `gctx mcp` likewise skips the table.
 *
 * Everything else, and any hook or mcp call with options the fast path does not take, is main.ts.
 */
// A namespace import: on a Node without enableCompileCache, a named import would fail to link.
import * as nodeModule from 'node:module';

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

function fastPath(argv: readonly string[]): 'hook' | 'mcp' | null {
  const name = argv[0];
  if (name !== 'hook' && name !== 'mcp') return null;
  for (let i = 1; i < argv.length; i += 2) {
    if (!FAST[name]!.includes(argv[i]!) || argv[i + 1] === undefined || argv[i + 1]!.startsWith('--')) return null;
  }
  return name;
}

async function main(argv: readonly string[]): Promise<number> {
  const fast = fastPath(argv);
  if (fast) {
    const [{ AGENT_COMMANDS }, { parseArgs, one }, { resolve }, { findMemoryRoot }] = await Promise.all([
      import('./agent-commands.js'),
      import('./args.js'),
      import('node:path'),
      import('../hook/lazy-memory.js'),
    ]);
    const spec = AGENT_COMMANDS[fast]!;
    const p = parseArgs(argv.slice(1), spec.flags, spec.usage);
    const dirFlag = one(p, 'dir');
    // As main.ts: --dir, else the nearest folder upward holding .GCC/, else here.
    const dir = dirFlag ? resolve(dirFlag) : (findMemoryRoot(process.cwd()) ?? process.cwd());
    const budgetText = one(p, 'budget');
    const budget = budgetText === undefined ? undefined : Number(budgetText);
    // A budget main.ts would refuse goes there, for its error message.
    if (budget === undefined || (Number.isInteger(budget) && budget > 0)) {
      const out = spec.memory === 'none' ? await spec.run(p, { dir, session: one(p, 'session') ?? process.env.GCC_SESSION, budget }) : null;
      if (out?.text) process.stdout.write(out.text.endsWith('\n') ? out.text : `${out.text}\n`);
      return out?.exit ?? 0;
    }
  }
  const { run } = await import('./main.js');
  return run(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // A hook must never fail the host; other commands report an internal error.
    process.stderr.write(`gctx: internal error: ${String(err)}\n`);
    process.exitCode = process.argv[2] === 'hook' ? 0 : 2;
  },
);
