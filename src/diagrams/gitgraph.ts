/**
 * The memory's history as a Mermaid gitGraph: branches from 'branch.created', commits from
 * 'commit.recorded' (labelled `C003 title`), merges from MERGE's synthesis commit (or from
 * 'branch.merged' when no synthesis commit is in the events given), abandoned branches closed
 * with a reverse commit tagged "abandoned".
 *
 * Mermaid refuses some histories GCC allows (a merge whose two heads are the same commit, a
 * repeated commit id), so the renderer tracks heads the way Mermaid's gitGraph does and adds
 * a placeholder commit or a suffix where Mermaid would otherwise fail to draw. Free text is
 * sanitized: no quote, backslash, newline or `;` can leave the string it is written in.
 */
import { MAIN, type GccEvent } from '../events/types.js';

export interface GitGraphModel {
  branches: Array<{ name: string; parent: string | null; status: 'active' | 'merged' | 'abandoned' }>;
  commits: Array<{ id: string; label: string; title: string; branch: string; mergeFrom?: string }>;
  merges: Array<{ branch: string; into: string; commit: string }>;
}

/** Text safe inside a Mermaid double-quoted string, on one line, at most `max` characters. */
export function mermaidText(s: string, max = 60): string {
  const flat = s
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/;/g, ',')
    .replace(/%%/g, '%')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(flat); // by code point, so no surrogate pair is cut in half
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
}

/** Events in time order; events with the same time keep the order they were given in. */
function ordered(events: readonly GccEvent[]): GccEvent[] {
  return events.map((e, i) => ({ e, i })).sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.i - b.i)).map((x) => x.e);
}

export function gitGraphMermaid(events: readonly GccEvent[]): string {
  const lines = ['gitGraph', '  commit id: "init"'];
  const names = new Map<string, string>([[MAIN, MAIN]]);
  const parents = new Map<string, string>();
  const heads = new Map<string, string>([[MAIN, 'init']]);
  const ids = new Set<string>(['init']);
  const closed = new Set<string>();
  let cur = MAIN;

  const nameOf = (b: string): string => {
    let n = names.get(b);
    if (n !== undefined) return n;
    const base = mermaidText(b, 40) || 'branch';
    n = base;
    for (let k = 2; [...names.values()].includes(n); k++) n = `${base} (${k})`;
    names.set(b, n);
    return n;
  };
  const uniqueId = (text: string): string => {
    let id = mermaidText(text) || 'commit';
    for (let k = 2; ids.has(id); k++) id = `${mermaidText(text, 54)} (${k})`;
    ids.add(id);
    return id;
  };
  const visiting = new Set<string>();
  const ensure = (b: string): void => {
    if (heads.has(b)) return;
    visiting.add(b);
    // A parent cycle (possible only in a damaged log) falls back to main rather than recursing.
    const p = parents.get(b) ?? MAIN;
    const parent = visiting.has(p) ? MAIN : p;
    ensure(parent);
    visiting.delete(b);
    checkout(parent);
    lines.push(`  branch "${nameOf(b)}"`);
    heads.set(b, heads.get(cur) ?? 'init');
    cur = b;
  };
  function checkout(b: string): void {
    ensure(b);
    if (cur !== b) lines.push(`  checkout "${nameOf(b)}"`);
    cur = b;
  }
  const commit = (b: string, text: string, extra = ''): void => {
    checkout(b);
    const id = uniqueId(text);
    lines.push(`  commit id: "${id}"${extra}`);
    heads.set(b, id);
  };
  const merge = (from: string, into: string, text: string): void => {
    if (from === into) return commit(into, text);
    ensure(from);
    ensure(into);
    // Mermaid refuses to merge two branches whose heads are one commit.
    if (heads.get(from) === heads.get(into)) commit(from, `${nameOf(from)}: no commits`, ' type: HIGHLIGHT');
    checkout(into);
    const id = uniqueId(text);
    lines.push(`  merge "${nameOf(from)}" id: "${id}"`);
    heads.set(into, id);
    closed.add(from);
  };

  for (const e of ordered(events)) {
    switch (e.type) {
      case 'branch.created':
        if (!parents.has(e.data.name) && e.data.name !== MAIN) {
          parents.set(e.data.name, e.data.parent);
          ensure(e.data.name);
        }
        break;
      case 'commit.recorded': {
        const text = `${e.data.label} ${e.data.title}`;
        if (e.data.merge && !closed.has(e.data.merge.from)) merge(e.data.merge.from, e.branch, text);
        else commit(e.branch, text);
        break;
      }
      case 'branch.merged':
        if (!closed.has(e.data.branch)) merge(e.data.branch, e.data.into, `merge ${e.data.branch} ${e.data.commit}`);
        break;
      case 'branch.abandoned':
        if (e.data.branch !== MAIN && !closed.has(e.data.branch)) {
          commit(e.data.branch, `${e.data.branch} abandoned`, ' type: REVERSE tag: "abandoned"');
          closed.add(e.data.branch);
        }
        break;
      default:
        break;
    }
  }
  return `${lines.join('\n')}\n`;
}

export function gitGraphModel(events: readonly GccEvent[]): GitGraphModel {
  const model: GitGraphModel = { branches: [{ name: MAIN, parent: null, status: 'active' }], commits: [], merges: [] };
  const branch = (name: string) => model.branches.find((b) => b.name === name);
  for (const e of ordered(events)) {
    if (e.type === 'branch.created' && !branch(e.data.name)) {
      model.branches.push({ name: e.data.name, parent: e.data.parent, status: 'active' });
    } else if (e.type === 'commit.recorded') {
      const c = { id: e.data.id, label: e.data.label, title: e.data.title, branch: e.branch };
      model.commits.push(e.data.merge ? { ...c, mergeFrom: e.data.merge.from } : c);
    } else if (e.type === 'branch.merged') {
      model.merges.push({ branch: e.data.branch, into: e.data.into, commit: e.data.commit });
      const b = branch(e.data.branch);
      if (b) b.status = 'merged';
    } else if (e.type === 'branch.abandoned') {
      const b = branch(e.data.branch);
      if (b && b.status === 'active') b.status = 'abandoned';
    }
  }
  return model;
}
