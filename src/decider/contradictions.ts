/**
 * Events that contradict what the events before them established. The decider refuses such
 * commands, but logs arrive by git from other clones (and can be written by anyone), so evolve
 * absorbs them and stays total (docs/reliability.md has the table). `gctx verify` names them,
 * beside a replay, by asking the branch machine whether each event was a legal step from the
 * state before it: the machine's rejection is the contradiction, so verify cannot disagree with
 * the decider or the fold.
 */
import { type GccEvent, MAIN } from '../events/types.js';
import type { BranchMachineEvent, RejectCode } from '../machines/branch-machine.js';
import { branchStep } from '../machines/steps.js';
import type { MemoryState } from './state.js';

export interface Contradiction {
  event: GccEvent;
  /** Where it was read (the caller's: a log's path). */
  where: string;
  /** What it contradicts, and what the fold does with it. */
  what: string;
}

const q = (name: string) => JSON.stringify(name);

/** The machine's refusal of `event` on branch `name`, in the state `s`; null when the step is legal. */
function refusal(s: MemoryState, name: string, event: BranchMachineEvent): RejectCode | null {
  const b = s.branches[name];
  const parent = name === MAIN ? null : (b?.parent ?? MAIN);
  return branchStep(b?.life ?? 'unborn', { name, parent }, event, 'fold').rejected?.code ?? null;
}

/** What each refusal means for the event refused, and what the fold does with it. */
function said(s: MemoryState, e: BranchMachineEvent & GccEvent, code: RejectCode): string {
  const life = (name: string) => s.branches[name]?.life ?? 'unborn';
  if (e.type === 'branch.created')
    return `creates branch ${q(e.data.name)}, which exists (${life(e.data.name)}): ignored, the first creation stands`;
  if (e.type === 'commit.recorded')
    return (
      `commits on branch ${q(e.branch)}, ${life(e.branch)} already: counted on it, the branch ` +
      `stays ${life(e.branch)}`
    );
  const name = e.data.branch;
  const verb = e.type === 'branch.merged' ? 'merges' : 'abandons';
  switch (code) {
    case 'E_MERGE_MAIN':
    case 'E_ABANDON_MAIN':
      return `${verb} ${MAIN}: ignored`;
    case 'E_MERGE_SELF':
      return `merges ${q(name)} into itself: ignored`;
    case 'E_BRANCH_NOT_FOUND':
      return `${verb} branch ${q(name)}, which no earlier event creates: ignored`;
    default:
      return `${verb} branch ${q(name)}, ${life(name)} already: ignored, the earlier event stands`;
  }
}

/** What `e` contradicts in `s`, the state folded from every event before it; null when nothing. */
export function contradictionOf(s: MemoryState, e: GccEvent): string | null {
  switch (e.type) {
    case 'memory.initialized':
      return s.created
        ? `the memory was initialized already (${s.created}): its settings replace the settings folded so far`
        : null;
    case 'branch.created':
    case 'branch.merged':
    case 'branch.abandoned':
    case 'commit.recorded': {
      const name = e.type === 'branch.created' ? e.data.name : e.type === 'commit.recorded' ? e.branch : e.data.branch;
      const code = refusal(s, name, e);
      // A commit on a branch not created yet waits for the end of the replay (Contradictions.finish).
      if (code === 'E_BRANCH_NOT_FOUND' && e.type === 'commit.recorded') return null;
      if (code) return said(s, e, code);
      // The merge's synthesis commit lands on its target: a commit there must be legal too.
      if (
        e.type === 'branch.merged' &&
        refusal(s, e.data.into, {
          type: 'commit.recorded',
          data: { id: '', label: '', title: '', contribution: '', purpose: '', previous: '', files: [] },
        })
      ) {
        return `merges ${q(name)} into ${q(e.data.into)}, which is not an open branch: applied as written`;
      }
      return null;
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
    else if (
      e.type === 'commit.recorded' &&
      (s.branches[e.branch]?.life ?? 'unborn') === 'unborn' &&
      !this.unborn.has(e.branch)
    )
      this.unborn.set(e.branch, { event: e, where });
  }

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
