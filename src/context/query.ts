/**
 * CONTEXT: memory at several granularities, each answer inside a token budget.
 * Pure over (state, events): the engine passes what it holds, this module only reads.
 */
import { yamlLib } from '../runtime/lazy-deps.js';
import { currentBranch } from '../decider/decision.js';
import { type EventOf, type GccEvent, MAIN } from '../events/types.js';
import { gccError } from '../errors.js';
import { renderProse } from '../log/prose.js';
import { renderCommit } from '../projections/render-commit.js';
import { renderMain } from '../projections/render-main.js';
import { metadataObject } from '../projections/render-metadata.js';
import type { MemoryState } from '../projections/state.js';
import { clip, estimateTokens, fitBudget } from './budget.js';

export type ContextQuery =
  | { level: 'status' }
  | { level: 'branch'; name?: string; page?: number; k?: number }
  | { level: 'commit'; id: string }
  | { level: 'log'; n?: number; page?: number; branch?: string }
  | { level: 'metadata'; segment?: string }
  | { level: 'full' }
  | { level: 'search'; text: string; limit?: number };

export interface ContextAnswer {
  text: string;
  data: unknown;
  truncated: boolean;
  tokens: number;
}

export interface ContextSource {
  state: MemoryState;
  eventsOf(branch: string): readonly GccEvent[];
  allEvents(): readonly GccEvent[];
}

export const DEFAULT_BUDGET = 2000;

type Commit = EventOf<'commit.recorded'>;

function commitsOf(src: ContextSource, branch: string): Commit[] {
  return src.eventsOf(branch).filter((e): e is Commit => e.type === 'commit.recorded');
}

function page(n: number | undefined): number {
  return n && Number.isInteger(n) && n > 0 ? n : 1;
}

function status(src: ContextSource, session?: string): { text: string; data: unknown } {
  const s = src.state;
  const here = currentBranch(s, session);
  const lines = [`On memory branch ${here}. ${s.events} events; ${s.milestoneCount} milestones.`, '', 'Objectives:'];
  if (!s.objectives.length) lines.push('  (none yet)');
  s.objectives.forEach((o, i) => lines.push(`  ${i + 1}. [${o.done ? 'x' : ' '}] ${o.text}`));
  lines.push('', 'Branches:');
  const branches = Object.values(s.branches).sort((a, b) => (a.name === MAIN ? -1 : b.name === MAIN ? 1 : a.name < b.name ? -1 : 1));
  for (const b of branches) {
    const last = b.recent[b.recent.length - 1];
    lines.push(`  ${b.name === here ? '*' : ' '} ${b.name} [${b.status}] ${b.commits} commits${last ? `, last ${last.label}: ${clip(last.title, 80)}` : ''}`);
    if (b.name !== MAIN) lines.push(`      purpose: ${clip(b.purpose, 120)}`);
  }
  const p = s.branches[here]!.pending;
  if (p.turns) lines.push('', `Uncommitted on ${here}: ${p.turns} steps, ${p.edits} edits, files: ${Object.keys(p.files).slice(0, 10).join(', ') || '-'}`);
  return {
    text: lines.join('\n'),
    data: { branch: here, objectives: s.objectives, branches: branches.map((b) => ({ name: b.name, status: b.status, commits: b.commits, purpose: b.purpose, last: b.recent[b.recent.length - 1] ?? null })), pending: p },
  };
}

function branchView(src: ContextSource, q: Extract<ContextQuery, { level: 'branch' }>, session?: string) {
  const name = q.name ?? currentBranch(src.state, session);
  const b = src.state.branches[name];
  if (!b) throw gccError('E_BRANCH_NOT_FOUND', `no branch named ${JSON.stringify(name)}`, 'list branches with `gctx status`');
  const k = q.k && q.k > 0 ? Math.min(q.k, 100) : 10;
  const all = commitsOf(src, name);
  const p = page(q.page);
  const end = all.length - (p - 1) * k;
  const shown = all.slice(Math.max(0, end - k), Math.max(0, end)).reverse();
  const pages = Math.max(1, Math.ceil(all.length / k));
  const head = [`Branch ${name} [${b.status}]${b.parent ? ` from ${b.parent}` : ''}, created ${b.created}`, `Purpose: ${b.purpose}`];
  for (const h of b.hypotheses) head.push(`Hypothesis: ${h}`);
  if (b.reason) head.push(`Abandoned because: ${b.reason}`);
  if (b.mergedInto) head.push(`Merged into ${b.mergedInto}`);
  head.push('', `Commits ${shown.length ? `(page ${p} of ${pages}, newest first; ${all.length} in all)` : '(none on this page)'}:`, '');
  return {
    text: head.join('\n') + shown.map((c) => renderCommit(c)).join(''),
    data: { branch: b, page: p, pages, commits: shown.map((c) => ({ ...c.data, at: c.at })) },
  };
}

function findCommit(src: ContextSource, id: string, session?: string): Commit {
  const want = id.trim();
  const m = /^(?:(.+)[@:])?(C\d+)$/i.exec(want);
  if (m) {
    const branches = m[1] ? [m[1]] : [currentBranch(src.state, session), ...Object.keys(src.state.branches)];
    for (const b of branches) {
      const hit = commitsOf(src, b).find((c) => c.data.label.toUpperCase() === m[2]!.toUpperCase());
      if (hit) return hit;
    }
  } else if (/^[0-9a-f]{4,}$/i.test(want)) {
    const hits = src.allEvents().filter((e): e is Commit => e.type === 'commit.recorded' && e.data.id.startsWith(want.toLowerCase()));
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) throw gccError('E_COMMIT_NOT_FOUND', `${want} matches ${hits.length} commits`, 'give more characters of the id');
  }
  throw gccError('E_COMMIT_NOT_FOUND', `no commit ${JSON.stringify(want)}`, 'use a commit id (7 hex) or a label like C003 or feat/x@C003; `gctx context --branch` lists them');
}

function logView(src: ContextSource, q: Extract<ContextQuery, { level: 'log' }>, session?: string) {
  const branch = q.branch ?? currentBranch(src.state, session);
  const n = q.n && q.n > 0 ? Math.min(q.n, 500) : 20;
  const events = src.eventsOf(branch);
  const p = page(q.page);
  const end = events.length - (p - 1) * n;
  const shown = events.slice(Math.max(0, end - n), Math.max(0, end));
  const pages = Math.max(1, Math.ceil(events.length / n));
  return {
    text: `Log of ${branch}: entries ${Math.max(0, end - n) + 1}–${Math.max(0, end)} of ${events.length} (page ${p} of ${pages}, oldest first)\n\n${shown.map(renderProse).join('\n\n')}`,
    data: { branch, page: p, pages, events: shown },
  };
}

function haystack(e: GccEvent): string {
  switch (e.type) {
    case 'commit.recorded':
      return `${e.data.title}\n${e.data.contribution}\n${e.data.merge ? `${e.data.merge.tried}\n${e.data.merge.learned}` : ''}`;
    case 'ota.logged':
      return `${e.data.observation}\n${e.data.thought}\n${e.data.action}`;
    case 'tool.recorded':
      return `${e.data.tool} ${e.data.input}\n${e.data.result}`;
    case 'branch.created':
      return `${e.data.name}\n${e.data.purpose}\n${e.data.hypotheses.join('\n')}`;
    case 'branch.abandoned':
      return `${e.data.branch}\n${e.data.reason}`;
    case 'objective.added':
    case 'objective.edited':
      return e.data.text;
    default:
      return '';
  }
}

function search(src: ContextSource, q: Extract<ContextQuery, { level: 'search' }>) {
  const needle = q.text.trim().toLowerCase();
  if (!needle) throw gccError('E_INVALID_ARGUMENT', 'search needs some text', 'gctx search "retry logic"');
  const limit = q.limit && q.limit > 0 ? q.limit : 20;
  const hits: { event: GccEvent; snippet: string }[] = [];
  const all = src.allEvents();
  for (let i = all.length - 1; i >= 0 && hits.length < limit; i--) {
    const e = all[i]!;
    const hay = haystack(e);
    const at = hay.toLowerCase().indexOf(needle);
    if (at === -1) continue;
    hits.push({ event: e, snippet: clip(hay.slice(Math.max(0, at - 60), at + needle.length + 100), 200) });
  }
  const lines = hits.map(({ event: e, snippet }) => {
    const what = e.type === 'commit.recorded' ? `${e.data.label} ${e.data.id}` : `${e.type} #${e.seq}`;
    return `${e.branch} ${what} (${e.at}): ${snippet}`;
  });
  return {
    text: hits.length ? `${hits.length} match${hits.length === 1 ? '' : 'es'} for ${JSON.stringify(q.text)}, newest first:\n${lines.join('\n')}` : `No match for ${JSON.stringify(q.text)}.`,
    data: { hits: hits.map((h) => ({ branch: h.event.branch, type: h.event.type, seq: h.event.seq, id: h.event.id, at: h.event.at, snippet: h.snippet })) },
  };
}

export function contextQuery(src: ContextSource, q: ContextQuery, opts: { session?: string | undefined; budget?: number | undefined } = {}): ContextAnswer {
  const budget = opts.budget && opts.budget > 0 ? opts.budget : DEFAULT_BUDGET;
  let out: { text: string; data: unknown };
  let more = 'ask for a narrower view or raise the budget';
  switch (q.level) {
    case 'status':
      out = status(src, opts.session);
      break;
    case 'branch':
      out = branchView(src, q, opts.session);
      more = 'ask for the next page, or fewer commits (k)';
      break;
    case 'commit': {
      const c = findCommit(src, q.id, opts.session);
      out = { text: renderCommit(c), data: { ...c.data, at: c.at, branch: c.branch } };
      break;
    }
    case 'log':
      out = logView(src, q, opts.session);
      more = 'ask for the next page or fewer entries (n)';
      break;
    case 'metadata': {
      const meta = metadataObject(src.state);
      if (q.segment !== undefined && !(q.segment in meta)) {
        throw gccError('E_INVALID_ARGUMENT', `no metadata segment ${JSON.stringify(q.segment)}`, `use one of: ${Object.keys(meta).join(', ')}`);
      }
      const value = q.segment === undefined ? meta : { [q.segment]: meta[q.segment] };
      out = { text: yamlLib().stringify(value, { lineWidth: 0 }), data: value };
      break;
    }
    case 'full':
      out = { text: renderMain(src.state), data: { objectives: src.state.objectives, milestones: src.state.milestones, notes: src.state.notes } };
      break;
    case 'search':
      out = search(src, q);
      more = 'search for a more specific phrase';
      break;
    default:
      throw gccError('E_INVALID_ARGUMENT', `unknown context level ${JSON.stringify((q as { level?: unknown }).level)}`, 'use status, branch, commit, log, metadata, full or search');
  }
  const fit = fitBudget(out.text, budget, more);
  return { text: fit.text, data: out.data, truncated: fit.truncated, tokens: estimateTokens(fit.text) };
}
