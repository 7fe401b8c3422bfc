/**
 * POST /hooks/<agent>: Claude Code's HTTP hooks (and Codex's, and the normalized envelope)
 * through the very handler `gctx hook` runs (adapters/hook/run-hook.ts), with the body in
 * place of stdin. The answer is what `gctx hook` would print, byte for byte, as a 200 body;
 * "no decision" is an empty 200, which Claude Code reads as success with nothing to add.
 *
 * The one difference is where the memory comes from: an event of this daemon's project uses
 * the memory the daemon keeps open (lent, never closed here); an event from another project
 * opens that project's memory for the event, as the process would.
 */
import { realpathSync } from 'node:fs';
import type { Memory } from '../../engine/memory.js';
import { type EventMemory, type HookAgent, processMemories, runHook } from '../hook/run-hook.js';

/** The open memory, lent for one event: writes tracked so the answer waits for them, as the process does. */
function lend(memory: Memory): EventMemory {
  const inflight = new Set<Promise<unknown>>();
  const from = memory.warnings.length;
  return {
    get config() {
      return memory.config;
    },
    root: memory.root,
    gccDir: memory.gccDir,
    // `slim` (the event only records calls): no catch-up here, the append catches up under its lock.
    open: async (slim) => (slim ? undefined : memory.refresh()),
    execute: (cmd, opts) => {
      const work = memory.execute(cmd, opts);
      inflight.add(work);
      work.then(
        () => inflight.delete(work),
        () => inflight.delete(work),
      );
      return work;
    },
    briefing: (opts) => memory.briefing(opts),
    pendingWork: (session) => memory.pendingWork(session),
    approaches: () => memory.state,
    drain: async () => {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
    get warnings() {
      return memory.warnings.slice(from);
    },
    close: () => undefined,
  };
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * One event through the shared handler, the daemon's project being where events without a cwd
 * belong: what `gctx hook` prints (empty for no decision) and its lines for stderr.
 */
export async function answerHook(
  agent: HookAgent,
  body: string,
  memory: Memory,
): Promise<{ body: string; log: string[] }> {
  const memories = {
    forEvent: (root: string, session: string | undefined) =>
      root === memory.root || real(root) === real(memory.root) ? lend(memory) : processMemories.forEvent(root, session),
  };
  const out = await runHook({ agent, input: body, cwd: memory.root }, memories);
  const text = out.stdout ?? '';
  return { body: text === '' || text.endsWith('\n') ? text : `${text}\n`, log: out.stderr };
}
