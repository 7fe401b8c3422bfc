/**
 * The page's data (page/contract.ts), read from the open memory: the overview from the folded
 * state, commits and log read back newest first with event-id cursors (engine/reader.ts), search
 * through CONTEXT's search level, the history graph from the generator `gctx graph` uses. Every
 * function only reads; the caller has refreshed the memory first.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { branchOrder, currentBranch, displayLabel } from '../../decider/state.js';
import { entryLine } from '../../context/lines.js';
import { staleText } from '../../context/stale.js';
import { GitGraph, knownHistory, RECENT_COMMITS } from '../../diagrams/gitgraph.js';
import { machineMermaid } from '../../diagrams/mermaid.js';
import type { Memory } from '../../engine/memory.js';
import type { GccEvent } from '../../events/types.js';
import { gccError } from '../../errors.js';
import { VERSION } from '../../runtime/version.js';
import type {
  BranchInfo,
  CommitItem,
  GraphSource,
  LogItem,
  LogKind,
  Overview,
  Page,
  SearchHit,
  SearchResult,
  SessionInfo,
} from './page/contract.js';

const PAGE_LIMIT = 25;
const MAX_LIMIT = 100;
/** Sessions the overview lists, newest first. */
const MAX_SESSIONS = 50;
const SEARCH_PAGE = 10;

/** Drawn once: the machines' definitions do not change while the daemon runs. */
let machines: Overview['machines'] | null = null;

/**
 * What the history graph depends on (branches, their states and commit counts, and which
 * logs those come from): cheap to compute from the state, so the graph itself, which reads the
 * newest logs, is rebuilt only when it changes, not with every logged tool call.
 */
export function graphTag(m: Memory): string {
  const h = createHash('sha256').update(m.epoch);
  for (const b of Object.values(m.state.branches))
    h.update(`\u0000${b.name}\u0000${b.life}\u0000${b.commits}\u0000${b.mergedInto ?? ''}`);
  return `g-${h.digest('hex').slice(0, 20)}`;
}

export class GraphCache {
  private last: GraphSource | null = null;

  get(m: Memory): GraphSource {
    const tag = graphTag(m);
    if (this.last?.tag !== tag) {
      const events = m.recentHistoryEvents(RECENT_COMMITS);
      const graph = GitGraph.recent(knownHistory(m.state));
      for (const e of events) graph.add(e);
      this.last = { tag, source: graph.mermaid() };
    }
    return this.last;
  }
}

function branchInfo(b: Memory['state']['branches'][string]): BranchInfo {
  return {
    name: b.name,
    parent: b.parent,
    status: b.life === 'merged' || b.life === 'abandoned' ? b.life : 'active',
    state: b.life,
    purpose: b.purpose,
    commits: b.commits,
    created: b.created,
    closed: b.closed,
    reason: b.reason,
    mergedInto: b.mergedInto,
  };
}

export function overview(m: Memory): Overview {
  const s = m.state;
  machines ??= {
    branch: machineMermaid('branch'),
    session: machineMermaid('session'),
  };
  const sessions: SessionInfo[] = Object.entries(s.sessions)
    .filter(([, x]) => x.life !== 'ended')
    .map(([id, x]) => ({ id, host: x.host, state: x.life, branch: currentBranch(s, id), since: x.since }))
    .sort((a, b) => (a.since < b.since ? 1 : a.since > b.since ? -1 : 0))
    .slice(0, MAX_SESSIONS);
  return {
    project: basename(m.root),
    version: VERSION,
    events: s.events,
    lastId: s.lastId,
    branch: currentBranch(s),
    objectives: s.objectives.map((o, i) => ({ n: i + 1, text: o.text, done: o.done })),
    milestones: [...s.milestones]
      .reverse()
      .map((x) => ({ n: x.n, title: x.title, branch: x.branch, status: x.status, at: x.at })),
    branches: Object.values(s.branches).sort(branchOrder).map(branchInfo),
    failed: [...s.failed].reverse().map((f) => ({ branch: f.branch, reason: f.reason, at: f.at })),
    graphTag: graphTag(m),
    machines,
    sessions,
  };
}

interface PageQuery {
  branch: string | undefined;
  before: string | undefined;
  limit: number;
}

/** `branch`, `before` and `limit` from a query string; E_INVALID_ARGUMENT for nonsense. */
export function pageQuery(m: Memory, params: URLSearchParams): PageQuery {
  const branch = params.get('branch') || undefined;
  if (branch !== undefined && !m.state.branches[branch])
    throw gccError('E_BRANCH_NOT_FOUND', `no branch named ${JSON.stringify(branch)}`, 'pick one from the overview');
  const before = params.get('before') || undefined;
  if (before !== undefined && !/^[0-9a-f]{1,64}$/.test(before))
    throw gccError('E_INVALID_ARGUMENT', 'before must be an event id', 'pass the `next` of the previous page');
  const raw = params.get('limit');
  const limit = raw === null || raw === '' ? PAGE_LIMIT : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw gccError('E_INVALID_ARGUMENT', `limit must be a whole number from 1 to ${MAX_LIMIT}`, `limit=${PAGE_LIMIT}`);
  return { branch, before, limit };
}

/** One newest-first page, one more read than shown to know whether an older page exists. */
function pageOf<T>(
  m: Memory,
  q: PageQuery,
  filter: ((e: GccEvent) => boolean) | undefined,
  item: (e: GccEvent) => T,
): Page<T> {
  const events = m.newestEvents({
    ...(q.branch ? { branch: q.branch } : {}),
    ...(q.before ? { before: q.before } : {}),
    limit: q.limit + 1,
    ...(filter ? { filter } : {}),
  });
  const shown = events.slice(0, q.limit);
  return { items: shown.map(item), next: events.length > q.limit ? shown[shown.length - 1]!.id : null };
}

export function commitsPage(m: Memory, q: PageQuery): Page<CommitItem> {
  const page = pageOf(
    m,
    q,
    (e) => e.type === 'commit.recorded',
    (e): CommitItem => {
      const c = e as Extract<GccEvent, { type: 'commit.recorded' }>;
      const d = c.data;
      return {
        id: c.id,
        label: displayLabel(m.state.branches[c.branch], d.label, d.id),
        hash: d.id,
        branch: c.branch,
        at: c.at,
        title: d.title,
        contribution: d.contribution,
        files: d.files,
        ...(d.next ? { next: d.next } : {}),
      };
    },
  );
  const stale =
    m
      .source()
      .stale?.(page.items.map((c) => c.files))
      .map(staleText) ?? [];
  return { ...page, items: page.items.map((c, i) => (stale[i] ? { ...c, stale: stale[i] } : c)) };
}

const KINDS: Record<GccEvent['type'], LogKind> = {
  'memory.initialized': 'memory',
  'memory.repaired': 'memory',
  'objective.added': 'roadmap',
  'objective.checked': 'roadmap',
  'objective.unchecked': 'roadmap',
  'objective.removed': 'roadmap',
  'objective.edited': 'roadmap',
  'notes.patched': 'roadmap',
  'config.set': 'config',
  'branch.created': 'branch',
  'branch.switched': 'session',
  'commit.recorded': 'commit',
  'branch.merged': 'merge',
  'branch.abandoned': 'abandon',
  'ota.logged': 'ota',
  'tool.recorded': 'tool',
  'session.started': 'session',
  'session.compacted': 'session',
  'session.ended': 'session',
  'prompt.recorded': 'session',
};

/** The log view's line for the event, without its leading time (the page shows `at`). */
function logText(e: GccEvent): string {
  const line = entryLine(e);
  const stamp = `${e.at.slice(5, 10)} ${e.at.slice(11, 16)} `;
  return line.startsWith(stamp) ? line.slice(stamp.length) : line;
}

export function logPage(m: Memory, q: PageQuery): Page<LogItem> {
  return pageOf(m, q, undefined, (e) => ({
    id: e.id,
    at: e.at,
    branch: e.branch,
    kind: KINDS[e.type] ?? 'memory',
    text: logText(e),
  }));
}

interface SearchData {
  total: number;
  pages: number;
  hits: Array<{
    id: string;
    branch: string;
    kind: string;
    at: string;
    ref?: string;
    title?: string;
    score: number;
    snippet: string;
  }>;
}

export function searchPage(m: Memory, params: URLSearchParams): SearchResult {
  const text = (params.get('q') ?? '').trim();
  const raw = params.get('page');
  const page = raw === null || raw === '' ? 1 : Number(raw);
  if (!Number.isInteger(page) || page < 1)
    throw gccError('E_INVALID_ARGUMENT', 'page must be a whole number from 1', 'page=1');
  // A budget no page of hits reaches: the page shows every hit of the page it asked for.
  const a = m.context({ level: 'search', text, page, limit: SEARCH_PAGE }, { budget: 1_000_000 });
  const d = a.data as SearchData;
  const hits: SearchHit[] = d.hits.map((h) => ({
    id: h.id,
    at: h.at,
    branch: h.branch,
    kind: h.kind,
    ref: h.ref ?? null,
    title: h.title ?? null,
    snippet: h.snippet,
    score: h.score,
  }));
  return { hits, total: d.total, pages: d.total === 0 ? 0 : d.pages };
}
