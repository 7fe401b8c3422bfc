/**
 * Where sessions stand after branch events, by the same rules as the engine's projection
 * (src/projections/evolve.ts) and its currentBranch: used by decideBranchOp to leave out the
 * switches a batch already implies, and by replayBranch to place `current`.
 */
import { MAIN, type GccEvent, type NewEvent } from '../events/types.js';
import type { BranchSnapshot } from './branch-machine.js';

export const isOpen = (s: BranchSnapshot | undefined): boolean => !!s && s.matches('active');

/** Where a session goes when its branch closes under it: the parent if open, else main. */
export function fallbackOf(branches: Readonly<Record<string, BranchSnapshot>>, name: string): string {
  const parent = branches[name]?.context.parent ?? MAIN;
  return isOpen(branches[parent]) ? parent : MAIN;
}

/**
 * Session pointers moved the way src/projections/evolve.ts moves them: 'branch.created' and
 * 'branch.switched' move the acting session (or the default); 'branch.merged' moves the acting
 * session and everyone on the source to the target; 'branch.abandoned' moves everyone on it to
 * its parent. A pointer at a closed branch reads as main (the engine's currentBranch rule).
 */
export class Pointers {
  readonly sessions = new Map<string, string>();
  constructor(public defaultBranch: string) {}
  private point(session: string | undefined, to: string): void {
    if (session === undefined) this.defaultBranch = to;
    else this.sessions.set(session, to);
  }
  private repoint(from: string, to: string): void {
    for (const [s, b] of this.sessions) if (b === from) this.sessions.set(s, to);
    if (this.defaultBranch === from) this.defaultBranch = to;
  }
  apply(e: GccEvent | NewEvent, branches: Readonly<Record<string, BranchSnapshot>>): void {
    if (e.type === 'branch.created') this.point(e.data.session, e.data.name);
    else if (e.type === 'branch.switched') this.point(e.data.session, e.data.to);
    else if (e.type === 'branch.merged') {
      this.repoint(e.data.branch, e.data.into);
      if (e.data.session !== undefined) this.point(e.data.session, e.data.into);
    } else if (e.type === 'branch.abandoned') this.repoint(e.data.branch, branches[e.data.branch]?.context.parent ?? MAIN);
  }
  current(session: string | undefined, branches: Readonly<Record<string, BranchSnapshot>>): string {
    const b = (session !== undefined ? this.sessions.get(session) : undefined) ?? this.defaultBranch;
    return isOpen(branches[b]) ? b : MAIN;
  }
}
