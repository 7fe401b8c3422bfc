/** Test helper: a memory folded in memory, with the real decider and fold (no disk). */
import { randomBytes } from 'node:crypto';
import type { Command } from '../../src/decider/commands.js';
import { decide } from '../../src/decider/decide.js';
import { evolveDraft } from '../../src/decider/evolve.js';
import { initialState, type MemoryState } from '../../src/decider/state.js';
import { DEFAULT_CONFIG, FORMAT_VERSION, type GccEvent, MAIN, type Placed } from '../../src/events/types.js';
import { nextId } from '../../src/store/ids.js';

/**
 * A memory folded in memory with the real decider and fold, one command at a time, as execute
 * does minus the disk: fast enough to build thousands of commits per property run. Commands the
 * decider refuses (a branch that exists, a merge of main) are skipped, as a refused call would be.
 */
export class Folded {
  readonly state: MemoryState = initialState();
  private lastId = '';
  private seq = 0;
  private t = Date.parse('2026-01-01T00:00:00Z');

  constructor() {
    this.place([
      { branch: MAIN, type: 'memory.initialized', data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } } },
    ]);
  }

  run(cmd: Command, session?: string): boolean {
    const d = decide(this.state, cmd, { nonce: randomBytes(8).toString('hex'), session });
    if (!d.ok) return false;
    this.place(d.shared);
    this.place(d.local);
    return true;
  }

  place(placed: Placed[]): void {
    this.t += 1000;
    const at = new Date(this.t);
    for (const p of placed) {
      this.lastId = nextId(this.lastId, at.getTime());
      // A plain object mutated in place: evolveDraft's recipe works on it as on a draft.
      evolveDraft(this.state as never, { ...p, id: this.lastId, seq: ++this.seq, at: at.toISOString() } as GccEvent);
    }
  }
}
