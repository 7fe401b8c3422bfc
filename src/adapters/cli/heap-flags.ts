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
 * them, for their own process: a command that opens a memory (main.ts), `gctx hook` (whose
 * event may open one: a SessionStart in a fresh clone replays the whole history) and `gctx mcp`
 * (hook-main.ts; gctx.ts before mcp-main.ts loads; their launchers). The library never changes the flags of a
 * process it is loaded into.
 */

/** The flags, as `node` takes them. */
export const HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=20'] as const;

/** Set HEAP_FLAGS for this process; a Node that refuses them only costs memory. */
export async function keepHeapSmall(): Promise<void> {
  try {
    const v8 = await import('node:v8');
    for (const flag of HEAP_FLAGS) v8.setFlagsFromString(flag);
  } catch {
    // Not a failure of the command.
  }
}
