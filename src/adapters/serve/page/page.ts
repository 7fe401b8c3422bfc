/**
 * The `gctx serve` page: the memory's overview, commits, log, search and machines, kept live
 * from GET /events. Loaded once; every later change is drawn in place (no reload), so the
 * reader keeps their place, their loaded older pages and their search. Requests are relative
 * and same-origin: the cookie the daemon set when the page was opened authorizes them.
 *
 * `<html data-events>` holds the event count the page shows and `data-ready` is set once the
 * first load is drawn: conditions a test (or a curious reader) can wait on.
 */
import type { CommitItem, GraphSource, LogItem, Overview, Page, SearchResult } from './contract.js';
import { drawWhenSeen, onColourSchemeChange, withCurrent } from './diagrams.js';
import { installKeys } from './keys.js';
import { followEvents, type LiveState } from './live.js';
import { PagedList } from './paged-list.js';
import {
  byId,
  fillBranchFilter,
  renderBranches,
  renderCommit,
  renderHit,
  renderLogEntry,
  renderRoadmap,
  renderSessions,
} from './views.js';

/** GET `path` as JSON. */
async function get<T>(path: string, params: Record<string, string | number | null> = {}): Promise<T> {
  const url = new URL(path, location.href);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== '') url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (res.ok) return (await res.json()) as T;
  const why =
    res.status === 401 || res.status === 403 ? 'not authorized: open the address `gctx serve status` prints' : '';
  throw new Error(`${url.pathname}: ${why || `${res.status} ${res.statusText}`}`);
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const el = {
  live: byId('live'),
  pageStatus: byId('page-status'),
  graph: byId('graph-box'),
  commitsBranch: byId<HTMLSelectElement>('commits-branch'),
  logBranch: byId<HTMLSelectElement>('log-branch'),
  q: byId<HTMLInputElement>('q'),
  searchStatus: byId('search-status'),
  searchResults: byId<HTMLOListElement>('search-results'),
  searchMore: byId<HTMLButtonElement>('search-more'),
  machines: { session: byId('machine-session'), branch: byId('machine-branch') },
};

const list = <T extends { id: string }>(name: 'commits' | 'log', render: (item: T) => HTMLLIElement, empty: string) =>
  new PagedList<T>(
    name,
    (branch, before) => get<Page<T>>(`/api/${name}`, { branch, before, limit: 25 }),
    render,
    empty,
  );
const commits = list<CommitItem>('commits', renderCommit, 'No commits yet.');
const log = list<LogItem>('log', renderLogEntry, 'The log is empty.');

let shown: Overview | null = null;
/** The history graph as last fetched (GET /api/graph), redrawn when the overview names another tag. */
let graph: GraphSource | null = null;
let graphWanted = '';
let liveState: LiveState = 'connecting';
let updatedAt: Date | null = null;

function showLive(): void {
  const text = { connecting: 'Connecting…', connected: 'Live', reconnecting: 'Reconnecting…' }[liveState];
  el.live.dataset.state = liveState;
  el.live.textContent =
    liveState === 'connected' && updatedAt ? `${text} · updated ${updatedAt.toLocaleTimeString()}` : text;
}

function pageError(text: string): void {
  el.pageStatus.hidden = text === '';
  el.pageStatus.textContent = text;
}

function drawDiagrams(o: Overview): void {
  // The graph holds the last commits only (gctx graph's window): it is always drawn.
  if (graph !== null) drawWhenSeen(el.graph, graph.source, 'History graph');
  byId('marks-session').textContent =
    o.sessions.length > 0 ? "(the open sessions' states marked)" : '(no session open)';
  const sessions = withCurrent(
    o.machines.session,
    'session',
    o.sessions.map((s) => s.state),
  );
  drawWhenSeen(el.machines.session, sessions, 'Session machine');
  const branches = withCurrent(
    o.machines.branch,
    'branch',
    o.branches.map((b) => b.state),
  );
  drawWhenSeen(el.machines.branch, branches, 'Branch machine');
}

/** Fetches the history graph when the overview names a version other than the one drawn. */
async function updateGraph(o: Overview): Promise<void> {
  if (graph?.tag === o.graphTag || graphWanted === o.graphTag) return;
  graphWanted = o.graphTag;
  try {
    const g = await get<GraphSource>('/api/graph');
    if (graphWanted !== o.graphTag) return;
    graph = g;
    drawDiagrams(shown ?? o);
  } catch (e) {
    pageError(message(e));
  } finally {
    if (graphWanted === o.graphTag) graphWanted = '';
  }
}

function showOverview(o: Overview): void {
  shown = o;
  byId('project').textContent = o.project;
  byId('version').textContent = o.version ? `gctx ${o.version}` : '';
  byId('current-branch').textContent = o.branch;
  byId('events').textContent = String(o.events);
  document.title = `${o.project} · GCC memory`;
  renderRoadmap(o, byId('objectives'), byId('milestones'));
  renderBranches(o, byId('failed'), byId('branch-list'));
  renderSessions(o, byId('sessions'));
  fillBranchFilter(el.commitsBranch, o);
  fillBranchFilter(el.logBranch, o);
  drawDiagrams(o);
  void updateGraph(o);
  document.documentElement.dataset.events = String(o.events);
}

/** The overview, when it differs from the one shown; null (the error shown) when it cannot be read. */
async function newOverview(): Promise<Overview | null> {
  try {
    const o = await get<Overview>('/api/overview');
    pageError('');
    return o.events === shown?.events ? null : o;
  } catch (e) {
    pageError(message(e));
    return null;
  }
}

/** Brings everything up to date after the memory changed. */
async function refresh(): Promise<void> {
  const o = await newOverview();
  if (o === null) return;
  showOverview(o);
  const [newCommits, newLog] = await Promise.all([commits.refresh(), log.refresh()]);
  updatedAt = new Date();
  showLive();
  const root = document.documentElement.dataset;
  if (newCommits > 0 || newLog > 0) root.updates = String(Number(root.updates ?? 0) + 1);
}

// Search: one query at a time, its pages appended under "More results".
let search = { q: '', page: 0, pages: 0, generation: 0 };

async function runSearch(q: string, page: number): Promise<void> {
  const gen = page === 1 ? ++search.generation : search.generation;
  if (page === 1) {
    search = { q, page: 0, pages: 0, generation: gen };
    el.searchResults.replaceChildren();
    el.searchStatus.textContent = q === '' ? '' : `Searching for “${q}”…`;
  }
  el.searchMore.hidden = true;
  if (q === '') return;
  try {
    const r = await get<SearchResult>('/api/search', { q, page });
    if (gen !== search.generation) return;
    search.page = page;
    search.pages = r.pages;
    el.searchResults.append(...r.hits.map(renderHit));
    const of = r.pages > 1 ? ` · page ${page} of ${r.pages}` : '';
    const found = `${r.total} result${r.total === 1 ? '' : 's'} for “${q}”${of}`;
    el.searchStatus.textContent = r.total === 0 ? `Nothing found for “${q}”.` : found;
    el.searchMore.hidden = search.page >= search.pages;
  } catch (e) {
    if (gen === search.generation) el.searchStatus.textContent = message(e);
  }
}

byId<HTMLFormElement>('search-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  void runSearch(el.q.value.trim(), 1);
});
el.searchMore.addEventListener('click', () => void runSearch(search.q, search.page + 1));
el.commitsBranch.addEventListener('change', () => void commits.reset(el.commitsBranch.value));
el.logBranch.addEventListener('change', () => void log.reset(el.logBranch.value));
onColourSchemeChange(() => shown && drawDiagrams(shown));
installKeys({ nav: byId('sections'), help: byId<HTMLDialogElement>('help'), search: el.q });

void (async () => {
  const o = await newOverview();
  if (o) showOverview(o);
  await Promise.all([commits.reset(''), log.reset('')]);
  document.documentElement.dataset.ready = 'true';
  followEvents(refresh, (state) => {
    liveState = state;
    showLive();
  });
})();
showLive();
