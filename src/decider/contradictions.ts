/**
 * Events that contradict what the events before them established. The decider refuses such
 * commands, but logs arrive by git from other clones (and can be written by anyone), so evolve
 * absorbs them and stays total (docs/reliability.md has the table). `gctx verify` names them:
 * they are what the fold itself refused as it replayed (evolve.ts `Refused`), the branch moves
 * the branch machine's own rejections, so verify cannot disagree with the decider or the fold.
 */
import { type GccEvent, MAIN } from '../events/types.js';
import type { Refusal } from './evolve.js';
import type { MemoryState } from './state.js';

export interface Contradiction {
  event: GccEvent;
  /** Where it was read (the caller's: a log's path). */
  where: string;
  /** What it contradicts, and what the fold does with it. */
  what: string;
}

const q = (name: string) => JSON.stringify(name);

/** What a refusal means for the event refused, and what the fold does with it. */
function said(e: GccEvent, r: Refusal): string {
  if (r.code === 'E_ALREADY_INITIALIZED')
    return `the memory was initialized already (${r.created}): its settings replace the settings folded so far`;
  const name = (e.data as { branch: string }).branch;
  if (r.code === 'E_MERGE_TARGET')
    return `merges ${q(name)} into ${q(r.into)}, which is not an open branch: applied as written`;
  if (e.type === 'branch.created')
    return `creates branch ${q(e.data.name)}, which exists (${r.life}): ignored, the first creation stands`;
  if (e.type === 'commit.recorded')
    return `commits on branch ${q(e.branch)}, ${r.life} already: counted on it, the branch stays ${r.life}`;
  const verb = e.type === 'branch.merged' ? 'merges' : 'abandons';
  switch (r.code) {
    case 'E_MERGE_MAIN':
    case 'E_ABANDON_MAIN':
      return `${verb} ${MAIN}: ignored`;
    case 'E_MERGE_SELF':
      return `merges ${q(name)} into itself: ignored`;
    case 'E_BRANCH_NOT_FOUND':
      return `${verb} branch ${q(name)}, which no earlier event creates: ignored`;
    default:
      return `${verb} branch ${q(name)}, ${r.life} already: ignored, the earlier event stands`;
  }
}

/**
 * Every contradiction in a replay, told each refusal of the fold (`replayer(c.refused)`), with
 * `where` set to the log being read. A commit on a branch not created yet is not one by itself
 * (two clones' clocks can sort a commit before the creation it followed): only a branch still
 * unborn once every event is folded is reported.
 */
export class Contradictions {
  readonly found: Contradiction[] = [];
  /** How many more were found than `found` keeps (a forged log can hold millions). */
  more = 0;
  where = '';
  private readonly unborn = new Map<string, { event: GccEvent; where: string }>();

  constructor(private readonly keep = 50) {}

  private add(c: Contradiction): void {
    if (this.found.length < this.keep) this.found.push(c);
    else this.more++;
  }

  readonly refused = (e: GccEvent, r: Refusal): void => {
    if (e.type === 'commit.recorded' && r.code === 'E_BRANCH_NOT_FOUND') {
      if (!this.unborn.has(e.branch)) this.unborn.set(e.branch, { event: e, where: this.where });
      return;
    }
    this.add({ event: e, where: this.where, what: said(e, r) });
  };

  /** The contradictions, with the commits on branches that no event ever created, in log order. */
  finish(s: MemoryState): Contradiction[] {
    for (const [name, { event: e, where }] of this.unborn) {
      if (s.branches[name]?.life === 'unborn')
        this.add({
          event: e,
          where,
          what: `commits on branch ${q(name)}, which no event creates: kept under that name`,
        });
    }
    this.unborn.clear();
    return this.found.sort((a, b) => (a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0));
  }
}
