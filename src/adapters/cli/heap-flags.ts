/**
 * How V8 sizes the heap of a `gctx` command that opens a memory. A pass over a long history (a
 * replay from scratch, a fresh clone's first open, `verify`) allocates far more than it keeps,
 * and V8's defaults size the heap for throughput: the young generation grows to 16 MiB a half
 * and the old generation is let grow to several times what is live before a full collection,
 * so such a process held several times the state it needed. Two of V8's heap heuristics are
 * read whenever it decides to grow, so they can be set once the process runs:
 *
 * - `--semi-space-growth-factor=1`: the young generation keeps the size it has when the memory
 *   is opened (V8's smallest, or the next step up) instead of doubling up to its maximum;
 * - `--heap-growing-percent=20`: after a full collection the old generation may grow by a
 *   fifth of what is live before the next, rather than V8's dynamic factor (up to four times).
 *
 * Node documents changing V8 flags after start as unsafe in general (some flags are read once,
 * at start, and a few crash when changed later); these two are plain numbers V8 reads at each
 * decision, and nothing but memory and time depends on them. Only the command line's doors set
 * them, for their own process: a command or a hook (main.ts, hook-main.ts) when the memory it
 * opened starts such a pass (Memory's `onLongPass`: a replay, a first read of logs, building the
 * search index), and `gctx mcp` before its modules load (gctx.ts, its launcher), since a server
 * lives long enough to meet one. The library never changes the flags of a process it is loaded into.
 */

/** The flags, as `node` takes them. */
export const HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=20'] as const;

/**
 * Set HEAP_FLAGS for this process, once; a Node that refuses them only costs memory. Called
 * when a pass over much of the history starts (the memory's `onLongPass`), so a command that
 * reads only the recent past does not load node:v8 for it.
 */
export function keepHeapSmall(): void {
  if (set) return;
  set = true;
  try {
    const v8 = process.getBuiltinModule('node:v8');
    for (const flag of HEAP_FLAGS) v8.setFlagsFromString(flag);
  } catch {
    // Not a failure of the command.
  }
}

let set = false;
