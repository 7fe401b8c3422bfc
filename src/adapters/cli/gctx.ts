#!/usr/bin/env node
/**
 * The `gctx` executable: a bootstrap in front of the CLI (main.ts). Two things must happen
 * before the CLI's module graph loads, which main.ts cannot do for its own static imports:
 *
 * - Node's on-disk compile cache is turned on, so later starts skip recompiling modules;
 * - `gctx hook`, which a host runs as a fresh process for every tool call, goes straight to the
 *   hook modules: it never loads the command table, and the engine only when the event needs
 *   it (a PreToolUse that refuses nothing does not).
 *
 * Everything else, and any hook call with options the fast path does not take, is main.ts.
 */
import { enableCompileCache } from 'node:module';

try {
  enableCompileCache?.();
} catch {
  // An unwritable cache folder only costs speed.
}

/** `hook` with only --agent/--dir/--session (as hosts are configured): the fast path. */
function fastHook(argv: readonly string[]): boolean {
  if (argv[0] !== 'hook') return false;
  for (let i = 1; i < argv.length; i += 2) {
    if (!['--agent', '--dir', '--session'].includes(argv[i]!) || argv[i + 1] === undefined) return false;
  }
  return true;
}

async function main(argv: readonly string[]): Promise<number> {
  if (fastHook(argv)) {
    const [{ AGENT_COMMANDS }, { parseArgs, one }, { resolve }] = await Promise.all([import('./agent-commands.js'), import('./args.js'), import('node:path')]);
    const spec = AGENT_COMMANDS.hook!;
    const p = parseArgs(argv.slice(1), spec.flags, spec.usage);
    const dir = one(p, 'dir');
    const out = spec.memory === 'none' ? await spec.run(p, { dir: dir ? resolve(dir) : process.cwd(), session: one(p, 'session') ?? process.env.GCC_SESSION, budget: undefined }) : null;
    if (out?.text) process.stdout.write(out.text.endsWith('\n') ? out.text : `${out.text}\n`);
    return 0;
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
