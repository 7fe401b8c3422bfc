/**
 * A call that reads the whole history in one pass, `verify` and `doctor` (which verifies), is
 * run again in a child `node` started with settings that only a process's start can take, and
 * that keep such a pass's memory down where heap-flags.ts cannot:
 *
 * - `--v8-pool-size=1`: one V8 worker thread rather than one per core, so fewer threads whose
 *   memory the garbage collector's parallel work touches;
 * - `MALLOC_ARENA_MAX=1`: the C library keeps one heap for every thread, rather than one arena
 *   per thread that each holds on to what it once allocated.
 *
 * The child is process.execPath with this process's own script and node options, never another
 * executable. Only the command line's own process does this (never a process the library is
 * loaded into), once (the child is marked), and only for these passes, whose seconds dwarf the
 * second node start; everything else runs here.
 */
import { gccError } from '../../errors.js';
import type { WholePass } from '../../operations/operation.js';

/** The node options the child starts with, after this process's own. */
export const LEAN_FLAGS = ['--v8-pool-size=1'] as const;
/** What the child's environment adds to this process's. */
export const LEAN_ENV = { MALLOC_ARENA_MAX: '1' } as const;
/** Set in the child: it runs the command itself. */
const CHILD = 'GCTX_LEAN_CHILD';

/**
 * The node options of a lean child for a call whose pass (the operation's `wholePass`) reads
 * every log of the memory; null for any other call.
 */
export function leanFlags(pass: WholePass | undefined): readonly string[] | null {
  return pass === 'verify' ? LEAN_FLAGS : null;
}

/**
 * Run this process's command again in a lean child, waiting for it; its exit code, or null
 * when this process is to run the command itself (it is the child, or no child could start).
 */
export async function runLean(argv: readonly string[], flags: readonly string[]): Promise<number | null> {
  const script = process.argv[1];
  if (process.env[CHILD] || !script) return null;
  // Loaded here: the commands that run where they were started never load it.
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, [...process.execArgv, ...flags, script, ...argv], {
    stdio: 'inherit',
    env: { ...process.env, ...LEAN_ENV, [CHILD]: '1' },
  });
  if (r.error) return null;
  if (r.status !== null) return r.status;
  // Killed by a signal: said in one line and reported as an internal failure, as a crash of this process would be.
  const stopped = gccError(
    'E_INTERNAL',
    `the process running \`gctx ${argv[0] ?? ''}\` was stopped by ${r.signal ?? 'a signal'}`,
    'run it again (it writes nothing to the logs)',
  );
  process.stderr.write(`gctx: ${stopped.oneLine()}\n`);
  return 2;
}
