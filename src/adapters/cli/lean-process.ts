/**
 * A call that reads the whole history in one pass, `verify`, `doctor` (which verifies) and a
 * search (`gctx search`, `gctx context --search`) that must first index every segment, is run again in a child `node` started with settings that only a
 * process's start can take, and that keep such a pass's memory down where heap-flags.ts cannot:
 *
 * - `--v8-pool-size=1`: one V8 worker thread rather than one per core, so fewer threads whose
 *   memory the garbage collector's parallel work touches;
 * - `MALLOC_ARENA_MAX=1`: the C library keeps one heap for every thread, rather than one arena
 *   per thread that each holds on to what it once allocated;
 * - for building the search index only, `--optimize-for-size`: V8's mode for small devices,
 *   which lets the heap grow by less between full collections and optimises code less: a
 *   build's memory traded for its time (docs/benchmarks.md), where verify has none to gain.
 *
 * The child is process.execPath with this process's own script and node options, never another
 * executable. Only the command line's own process does this (never a process the library is
 * loaded into), once (the child is marked), and only for these passes, whose seconds dwarf the
 * second node start; everything else runs here.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gccError } from '../../errors.js';
import type { WholePass } from '../../operations/operation.js';
import { childProcess } from '../../runtime/lazy-deps.js';
import { layout } from '../../store/paths.js';

/** The node options the child starts with, after this process's own. */
export const LEAN_FLAGS = ['--v8-pool-size=1'] as const;
/** Added for building the search index. */
export const INDEX_FLAGS = ['--optimize-for-size'] as const;
/** What the child's environment adds to this process's. */
export const LEAN_ENV = { MALLOC_ARENA_MAX: '1' } as const;
/** Set in the child: it runs the command itself. */
const CHILD = 'GCTX_LEAN_CHILD';

/**
 * The node options of a lean child for a call whose pass (the operation's `wholePass`) reads
 * every log of the memory in `dir`; null for any other call.
 */
export function leanFlags(pass: WholePass | undefined, dir: string): readonly string[] | null {
  if (pass === 'verify') return LEAN_FLAGS;
  // No record of what the search index was fed: the query indexes every segment first.
  if (pass === 'index' && !existsSync(join(layout(dir).cache, 'search', 'fed.json'))) return [...LEAN_FLAGS, ...INDEX_FLAGS];
  return null;
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
  const stopped = gccError('E_INTERNAL', `the process running \`gctx ${argv[0] ?? ''}\` was stopped by ${r.signal ?? 'a signal'}`, 'run it again (it writes nothing to the logs)');
  process.stderr.write(`gctx: ${stopped.oneLine()}\n`);
  return 2;
}

/**
 * Build the search index of the memory in `dir` in a lean child, waiting for it: what gctx's
 * long-lived servers (`gctx mcp`, `gctx serve`) give Memory as `indexApart`, so that a first
 * search of a long history does not grow their heap, which they keep for as long as they run.
 * The child is `gctx search` with a one-word query, its answer not read. False when no child
 * could run it; the server then builds the index itself.
 */
export function indexInLeanChild(dir: string): boolean {
  const script = process.argv[1];
  if (process.env[CHILD] || !script) return false;
  const r = childProcess().spawnSync(process.execPath, [...process.execArgv, ...LEAN_FLAGS, ...INDEX_FLAGS, script, 'search', 'index', '--limit', '1', '--dir', dir], {
    stdio: 'ignore',
    env: { ...process.env, ...LEAN_ENV, [CHILD]: '1' },
  });
  return !r.error && r.status === 0;
}
