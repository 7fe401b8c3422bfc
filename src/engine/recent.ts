/**
 * The latest events of each branch as this process folded them, so that trimming a branch's
 * log.md (once every LOG_WINDOW events) takes them from memory instead of reading its logs
 * back. A ring answers only when it provably holds the branch's newest events: it counts what
 * it was given against the branch's event count in the state (an event folded without passing
 * here — a snapshot's delta — leaves a gap), and it starts again, above everything folded
 * before, whenever an event arrives out of id order (another clone's, from a clock behind).
 */
import type { MemoryState } from '../decider/state.js';
import { type GccEvent, isLocalType } from '../events/types.js';

interface Ring {
  events: GccEvent[];
  /** The branch's event count before the ring's first event. */
  start: number;
  given: number;
  /** No event outside the ring sorts above this id. */
  above: string;
}

export class RecentEvents {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly keep: number) {}

  /** Events folded onto `before`, in the order they were folded. */
  add(before: MemoryState, events: readonly GccEvent[]): void {
    const seen = new Map<string, number>();
    for (const e of events) {
      if (isLocalType(e.type)) continue; // not in log.md
      const count = (before.branches[e.branch]?.logged ?? 0) + (seen.get(e.branch) ?? 0);
      seen.set(e.branch, (seen.get(e.branch) ?? 0) + 1);
      let r = this.rings.get(e.branch);
      const last = r?.events[r.events.length - 1];
      if (!r || r.start + r.given !== count || (last && e.id <= last.id)) {
        const above = last && last.id > before.lastId ? last.id : before.lastId;
        r = { events: [], start: count, given: 0, above };
        this.rings.set(e.branch, r);
      }
      r.events.push(e);
      r.given += 1;
      if (r.events.length > this.keep) r.events.shift();
    }
  }

  /** The branch's latest `n` events, oldest first, when this process provably holds them; else null. */
  latest(state: MemoryState, branch: string, n: number): GccEvent[] | null {
    const r = this.rings.get(branch);
    const logged = state.branches[branch]?.logged;
    if (!r || logged === undefined || r.start + r.given !== logged) return null;
    const out = r.events.slice(-n);
    if (out.length < Math.min(n, logged)) return null;
    if (out.length && out[0]!.id <= r.above) return null;
    return out;
  }

  clear(): void {
    this.rings.clear();
  }
}
