/**
 * Reading back what a front end recorded: every event of a project's memory in id order, as the
 * engine reads them (segments and the local log), and the local log alone, parsed by the codec.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from '../../src/engine/memory.js';
import type { GccEvent } from '../../src/events/types.js';
import { parse } from '../../src/log/codec.js';

/** Every event of the memory in `dir`, oldest first (shared segments and this clone's local log). */
export async function readEvents(dir: string): Promise<GccEvent[]> {
  const m = await Memory.open(dir);
  try {
    const out: GccEvent[] = [];
    m.events().forEach((e) => out.push(e));
    return out;
  } finally {
    m.close();
  }
}

/** The events of `.GCC/.local/local.md` (session pointers and lifecycles), in file order. */
export function localEvents(dir: string): GccEvent[] {
  const file = join(dir, '.GCC', '.local', 'local.md');
  return existsSync(file) ? parse(readFileSync(file), file).events : [];
}

/** Session lifecycle events as `type:host:reason` (reason empty for a compaction). */
export function lifecycle(events: readonly GccEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === 'session.started' || e.type === 'session.ended'
      ? [`${e.type}:${e.data.host}:${e.data.reason}`]
      : e.type === 'session.compacted'
        ? [`${e.type}:${e.data.host}:`]
        : [],
  );
}
