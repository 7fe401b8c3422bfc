/**
 * Events that contradict what the events before them established: a branch merged that was
 * never created or is closed already, a second creation of one name, a commit on a closed
 * branch, a second `memory.initialized`. The decider refuses such commands, but logs arrive by
 * git from other clones (and can be written by anyone), so evolve absorbs these by rule and
 * stays total (docs/reliability.md has the table). Looked for here, beside a replay, by
 * `gctx verify` only: reading the state before each event costs every open nothing.
 */
import { type GccEvent, MAIN } from '../events/types.js';
import type { MemoryState } from './state.js';

export interface Contradiction {
  event: GccEvent;
  /** Where it was read (the caller's: a log's path). */
  where: string;
  /** What it contradicts, and what the fold does with it. */
  what: string;
}

const q = (name: string) => JSON.stringify(name);

/** What `e` contradicts in `s`, the state folded from every event before it; null when nothing. */
export function contradictionOf(s: MemoryState, e: GccEvent): string | null {
  switch (e.type) {
    case 'memory.initialized':
      return s.created ? `the memory was initialized already (${s.created}): its settings replace the settings folded so far` : null;
    case 'branch.created': {
      const b = s.branches[e.data.name];
      return b && b.life !== 'unborn' ? `creates branch ${q(e.data.name)}, which exists (${b.life}): ignored, the first creation stands` : null;
    }
    case 'branch.merged':
    case 'branch.abandoned': {
      const name = e.data.branch;
      const verb = e.type === 'branch.merged' ? 'merges' : 'abandons';
      const life = s.branches[name]?.life ?? 'unborn';
      if (name === MAIN) return `${verb} ${MAIN}: ignored`;
      if (e.type === 'branch.merged' && e.data.into === name) return `merges ${q(name)} into itself: ignored`;
      if (life === 'unborn') return `${verb} branch ${q(name)}, which no earlier event creates: ignored`;
      if (life !== 'active') return `${verb} branch ${q(name)}, ${life} already: ignored, the earlier event stands`;
      if (e.type === 'branch.merged' && s.branches[e.data.into]?.life !== 'active') return `merges ${q(name)} into ${q(e.data.into)}, which is not an open branch: applied as written`;
      return null;
    }
    case 'commit.recorded': {
      const life = s.branches[e.branch]?.life;
      return life === 'merged' || life === 'abandoned' ? `commits on branch ${q(e.branch)}, ${life} already: counted on it, the branch stays ${life}` : null;
    }
    default:
      return null;
  }
}

/**
 * Every contradiction in a replay, fed each event with the state before it. A commit on a
 * branch not created yet is not one by itself (two clones' clocks can sort a commit before the
 * creation it followed): only a branch still unborn once every event is folded is reported.
 */
export class Contradictions {
  readonly found: Contradiction[] = [];
  /** How many more were found than `found` keeps (a forged log can hold millions). */
  more = 0;
  private readonly unborn = new Map<string, { event: GccEvent; where: string }>();

  constructor(private readonly keep = 50) {}

  private add(c: Contradiction): void {
    if (this.found.length < this.keep) this.found.push(c);
    else this.more++;
  }

  see(s: MemoryState, e: GccEvent, where: string): void {
    const what = contradictionOf(s, e);
    if (what) this.add({ event: e, where, what });
    else if (e.type === 'commit.recorded' && (s.branches[e.branch]?.life ?? 'unborn') === 'unborn' && !this.unborn.has(e.branch)) this.unborn.set(e.branch, { event: e, where });
  }

  /** The contradictions, with the commits on branches that no event ever created, in log order. */
  finish(s: MemoryState): Contradiction[] {
    for (const [name, { event: e, where }] of this.unborn) {
      if (s.branches[name]?.life === 'unborn') this.add({ event: e, where, what: `commits on branch ${q(name)}, which no event creates: kept under that name` });
    }
    this.unborn.clear();
    return this.found.sort((a, b) => (a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0));
  }
}
