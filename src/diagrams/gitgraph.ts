/**
 * The memory's history as a Mermaid gitGraph: branches from 'branch.created', commits from
 * 'commit.recorded' (labelled `C003 title`), merges from MERGE's synthesis commit (or from
 * 'branch.merged' when no synthesis commit is in the events given), abandoned branches closed
 * with a reverse commit tagged "abandoned".
 *
 * A GitGraph takes the events one at a time, in id order, as the store streams them, and keeps
 * only what it shows: each branch's parent and status, and the steps since the last `recent`
 * commits; the commits before them are counted and said once. Every step is kept only when
 * asked for, and a graph that prints as it goes (GitGraph.printing) keeps none: its memory
 * follows what it shows, not the length of the history.
 *
 * Mermaid refuses some histories GCC allows (a merge whose two heads are the same commit, a
 * repeated commit id), so the renderer tracks heads the way Mermaid's gitGraph does and adds
 * a placeholder commit or a suffix where Mermaid would otherwise fail to draw. Free text is
 * sanitized: no quote, backslash, newline or `;` can leave the string it is written in.
 */
import { branchOrder, type MemoryState } from '../decider/state.js';
import { MAIN, type GccEvent } from '../events/types.js';

export interface GitGraphModel {
  commits: Array<{ id: string; label: string; title: string; branch: string; mergeFrom?: string }>;
  merges: Array<{ branch: string; into: string; commit: string }>;
  branches: Array<{ name: string; parent: string | null; status: 'active' | 'merged' | 'abandoned' }>;
  /** Commits older than the ones listed, left out (absent when none is). */
  earlier?: number;
}

/** Text safe inside a Mermaid double-quoted string, on one line, at most `max` characters. */
export function mermaidText(s: string, max = 60): string {
  const flat = s
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/;/g, ',')
    .replace(/%%/g, '%')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(flat); // by code point, so no surrogate pair is cut in half
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
}

/** What the graph keeps of one event: the fields it draws, nothing of the event's text beyond the title. */
type Step =
  | { kind: 'created'; branch: string }
  | { kind: 'commit'; branch: string; id: string; label: string; title: string; mergeFrom?: string }
  | { kind: 'merged'; branch: string; into: string; commit: string }
  | { kind: 'abandoned'; branch: string };

/** What the folded state already knows of the whole history: what GitGraph.recent starts from. */
export interface KnownHistory {
  branches: GitGraphModel['branches'];
  commits: number;
}

/** The branches (main first, then in order of creation) and the number of commits of a folded state. */
export function knownHistory(state: MemoryState): KnownHistory {
  const all = Object.values(state.branches).sort(branchOrder);
  return {
    branches: all.map((b) => ({
      name: b.name,
      parent: b.parent,
      status: b.life === 'merged' || b.life === 'abandoned' ? b.life : 'active',
    })),
    commits: all.reduce((n, b) => n + b.commits, 0),
  };
}

/** Commits drawn when no count is asked for: a diagram a person can still read. */
export const RECENT_COMMITS = 50;

type Status = GitGraphModel['branches'][number]['status'];

/** Lines joined into one string this many at a time, so a long diagram is not one string per line. */
const CHUNK_LINES = 4096;

/**
 * The Mermaid text of a sequence of steps, drawn as they come. A branch is drawn when it is
 * first needed, from the parent `parentOf` names for it.
 */
class Drawing {
  private readonly chunks: string[] = [];
  private lines: string[] = ['gitGraph'];
  private readonly names = new Map<string, string>([[MAIN, MAIN]]);
  private readonly taken = new Set<string>([MAIN]);
  private readonly heads: Map<string, string>;
  private readonly ids: Set<string>;
  private readonly closed = new Set<string>();
  private readonly visiting = new Set<string>();
  private cur = MAIN;
  private done: string | null = null;

  /**
   * `earlier`: commits left out before the first step, said in a comment and in the root's id.
   * `print`: where each piece of the text goes as soon as it is drawn, rather than kept.
   */
  constructor(
    private readonly parentOf: (branch: string) => string | null | undefined,
    earlier = 0,
    drawn = 0,
    private readonly print?: (chunk: string) => void,
  ) {
    const root = earlier > 0 ? `${earlier} earlier commit${earlier === 1 ? '' : 's'}` : 'init';
    if (earlier > 0)
      this.push(
        `  %% the last ${drawn === 1 ? 'commit' : `${drawn} commits`} ` +
          `of ${drawn + earlier} ${drawn === 1 ? 'is' : 'are'} drawn`,
      );
    this.push(`  commit id: "${root}"`);
    this.heads = new Map([[MAIN, root]]);
    this.ids = new Set([root]);
  }

  step(s: Step): void {
    if (this.done !== null) throw new Error('GitGraph: a step after the diagram was made');
    switch (s.kind) {
      case 'created':
        this.ensure(s.branch);
        break;
      case 'commit': {
        const text = `${s.label} ${s.title}`;
        if (s.mergeFrom !== undefined && !this.closed.has(s.mergeFrom)) this.merge(s.mergeFrom, s.branch, text);
        else this.commit(s.branch, text);
        break;
      }
      case 'merged':
        if (!this.closed.has(s.branch)) this.merge(s.branch, s.into, `merge ${s.branch} ${s.commit}`);
        break;
      case 'abandoned':
        if (s.branch !== MAIN && !this.closed.has(s.branch)) {
          this.commit(s.branch, `${s.branch} abandoned`, ' type: REVERSE tag: "abandoned"');
          this.closed.add(s.branch);
        }
        break;
    }
  }

  /**
   * The diagram, ending in a newline, made once (the lines are let go as it is); when printed
   * as drawn, the rest is printed now and the text is empty.
   */
  text(): string {
    if (this.done === null) {
      this.done = [...this.chunks, ...this.lines, ''].join('\n');
      this.chunks.length = 0;
      this.lines = [];
      if (this.print) {
        this.print(this.done);
        this.done = '';
      }
    }
    return this.done;
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= CHUNK_LINES) {
      const chunk = this.lines.join('\n');
      this.lines = [];
      if (this.print) this.print(`${chunk}\n`);
      else this.chunks.push(chunk);
    }
  }

  private nameOf(b: string): string {
    let n = this.names.get(b);
    if (n !== undefined) return n;
    const base = mermaidText(b, 40) || 'branch';
    n = base;
    for (let k = 2; this.taken.has(n); k++) n = `${base} (${k})`;
    this.names.set(b, n);
    this.taken.add(n);
    return n;
  }

  private uniqueId(text: string): string {
    let id = mermaidText(text) || 'commit';
    for (let k = 2; this.ids.has(id); k++) id = `${mermaidText(text, 54)} (${k})`;
    this.ids.add(id);
    return id;
  }

  private ensure(b: string): void {
    if (this.heads.has(b)) return;
    this.visiting.add(b);
    // A parent cycle (possible only in a damaged log) falls back to main rather than recursing.
    const p = this.parentOf(b) ?? MAIN;
    const parent = this.visiting.has(p) ? MAIN : p;
    this.ensure(parent);
    this.visiting.delete(b);
    this.checkout(parent);
    this.push(`  branch "${this.nameOf(b)}"`);
    this.heads.set(b, this.heads.get(this.cur)!);
    this.cur = b;
  }

  private checkout(b: string): void {
    this.ensure(b);
    if (this.cur !== b) this.push(`  checkout "${this.nameOf(b)}"`);
    this.cur = b;
  }

  private commit(b: string, text: string, extra = ''): void {
    this.checkout(b);
    const id = this.uniqueId(text);
    this.push(`  commit id: "${id}"${extra}`);
    this.heads.set(b, id);
  }

  private merge(from: string, into: string, text: string): void {
    if (from === into) return this.commit(into, text);
    this.ensure(from);
    this.ensure(into);
    // Mermaid refuses to merge two branches whose heads are one commit.
    if (this.heads.get(from) === this.heads.get(into))
      this.commit(from, `${this.nameOf(from)}: no commits`, ' type: HIGHLIGHT');
    this.checkout(into);
    const id = this.uniqueId(text);
    this.push(`  merge "${this.nameOf(from)}" id: "${id}"`);
    this.heads.set(into, id);
    this.closed.add(from);
  }
}

/** The JSON of a commit or merge as an element of the model's arrays, indented as the whole model is. */
const element = (x: object): string => `    ${JSON.stringify(x, null, 2).replaceAll('\n', '\n    ')}`;

/** A commit of the model, its fields in the model's order. */
const commitOf = (s: Extract<Step, { kind: 'commit' }>): GitGraphModel['commits'][number] => {
  const c = { id: s.id, label: s.label, title: s.title, branch: s.branch };
  return s.mergeFrom === undefined ? c : { ...c, mergeFrom: s.mergeFrom };
};

/**
 * The model of every step printed as JSON as the steps come (the text JSON.stringify(model,
 * null, 2) would give): commits are printed at once, merges and branches kept for the end.
 */
class PrintedModel {
  private commits = 0;
  private readonly merges: GitGraphModel['merges'] = [];

  constructor(private readonly print: (chunk: string) => void) {}

  step(s: Step): void {
    if (s.kind === 'commit')
      this.print(`${this.commits++ === 0 ? '{\n  "commits": [\n' : ',\n'}${element(commitOf(s))}`);
    else if (s.kind === 'merged') this.merges.push({ branch: s.branch, into: s.into, commit: s.commit });
  }

  finish(branches: GitGraphModel['branches']): void {
    const tail = JSON.stringify({ merges: this.merges, branches }, null, 2).slice(1);
    this.print(`${this.commits === 0 ? '{\n  "commits": [],' : '\n  ],'}${tail}\n`);
  }
}

export class GitGraph {
  /** Every branch known, in order of creation: its parent and status. */
  private readonly branches = new Map<string, { parent: string | null; status: Status }>([
    [MAIN, { parent: null, status: 'active' }],
  ]);
  /** Branches whose creation was a step. */
  private readonly created = new Set<string>();
  /** Every commit of the history, when known beforehand (GitGraph.recent). */
  private total: number | null = null;
  private steps: Step[] = [];
  /** Index in `steps` of the first step kept; steps before it are dropped in bulk. */
  private from = 0;
  private commitsKept = 0;
  private earlier = 0;
  /** Every step printed as it comes, for a graph made by printing(). */
  private live: Drawing | PrintedModel | null = null;

  /** `recent`: keep only the steps since the last `recent` commits, or every step. */
  constructor(private readonly recent: number | 'all' = RECENT_COMMITS) {}

  /**
   * A graph of the last `recent` commits from what is already known of the whole history (each
   * branch's parent and status, the number of commits, as the folded state has them), fed the
   * events from the oldest of those commits on: no older event is needed.
   */
  static recent(known: KnownHistory, recent = RECENT_COMMITS): GitGraph {
    const g = new GitGraph(recent);
    for (const b of known.branches) g.branches.set(b.name, { parent: b.parent, status: b.status });
    g.total = known.commits;
    return g;
  }

  /**
   * A graph of every step that keeps none of them: each is drawn (or, for `json`, written as the
   * model's JSON) and printed in pieces as the events come; finish() prints the rest.
   */
  static printing(format: 'mermaid' | 'json', print: (chunk: string) => void): GitGraph {
    const g = new GitGraph('all');
    g.live = format === 'json' ? new PrintedModel(print) : new Drawing((b) => g.branches.get(b)?.parent, 0, 0, print);
    return g;
  }

  add(e: GccEvent): void {
    const s = this.stepOf(e);
    if (s === null) return;
    if (this.live) return this.live.step(s);
    this.steps.push(s);
    if (s.kind !== 'commit') return;
    this.commitsKept++;
    if (this.recent !== 'all' && this.commitsKept > this.recent) this.dropOldest();
  }

  /** Print what a graph made by printing() has left to print. */
  finish(): void {
    if (this.live instanceof Drawing) this.live.text();
    else this.live?.finish(this.branchList());
  }

  /** The step an event makes, with the branch table brought up to date; null for others. */
  private stepOf(e: GccEvent): Step | null {
    switch (e.type) {
      case 'branch.created':
        if (e.data.name === MAIN || this.created.has(e.data.name)) return null;
        this.created.add(e.data.name);
        if (!this.branches.has(e.data.name))
          this.branches.set(e.data.name, { parent: e.data.parent, status: 'active' });
        return { kind: 'created', branch: e.data.name };
      case 'commit.recorded': {
        const d = e.data;
        return d.merge
          ? { kind: 'commit', branch: e.branch, id: d.id, label: d.label, title: d.title, mergeFrom: d.merge.from }
          : { kind: 'commit', branch: e.branch, id: d.id, label: d.label, title: d.title };
      }
      case 'branch.merged': {
        const b = this.branches.get(e.data.branch);
        if (b) b.status = 'merged';
        return { kind: 'merged', branch: e.data.branch, into: e.data.into, commit: e.data.commit };
      }
      case 'branch.abandoned': {
        const b = this.branches.get(e.data.branch);
        if (b && b.status === 'active') b.status = 'abandoned';
        return { kind: 'abandoned', branch: e.data.branch };
      }
      default:
        return null;
    }
  }

  /** Drop every step before the second oldest commit kept: the window starts at a commit. */
  private dropOldest(): void {
    const end = this.steps.length;
    while (this.from < end && this.steps[this.from]!.kind !== 'commit') this.from++;
    this.from++;
    while (this.from < end && this.steps[this.from]!.kind !== 'commit') this.from++;
    this.commitsKept--;
    this.earlier++;
    // Compacted now and then rather than shifted each time: the array stays within twice the window.
    if (this.from > 1024 && this.from * 2 > this.steps.length) {
      this.steps = this.steps.slice(this.from);
      this.from = 0;
    }
  }

  private *kept(): Iterable<Step> {
    for (let i = this.from; i < this.steps.length; i++) yield this.steps[i]!;
  }

  private branchList(): GitGraphModel['branches'] {
    return [...this.branches].map(([name, b]) => ({ name, parent: b.parent, status: b.status }));
  }

  model(): GitGraphModel {
    if (this.live) throw new Error('GitGraph: a graph printed as it came keeps no model');
    const model: GitGraphModel = { commits: [], merges: [], branches: [] };
    for (const s of this.kept()) {
      if (s.kind === 'commit') model.commits.push(commitOf(s));
      else if (s.kind === 'merged') model.merges.push({ branch: s.branch, into: s.into, commit: s.commit });
    }
    model.branches = this.branchList();
    if (this.left() > 0) model.earlier = this.left();
    return model;
  }

  /** Commits older than the ones kept. */
  private left(): number {
    return this.total === null ? this.earlier : Math.max(0, this.total - this.commitsKept);
  }

  mermaid(): string {
    if (this.live) throw new Error('GitGraph: a graph printed as it came is finished, not drawn again');
    const drawing = new Drawing((b) => this.branches.get(b)?.parent, this.left(), this.commitsKept);
    for (const s of this.kept()) drawing.step(s);
    return drawing.text();
  }
}
