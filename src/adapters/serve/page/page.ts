/**
 * The `gctx serve` page: the memory's overview, commits, log, search and machines, kept live
 * from GET /events. Loaded once; every later change is drawn in place (no reload), so the
 * reader keeps their place, their loaded older pages and their search.
 *
 * `<html data-events>` holds the event count the page shows and `data-ready` is set once the
 * first load is drawn: conditions a test (or a curious reader) can wait on.
 */
import { api, describeError } from './api.js';
import type { CommitItem, LogItem, Overview } from './contract.js';
import { drawWhenSeen, followColourScheme, forget, onColourSchemeChange, withCurrent } from './diagrams.js';
import { byId } from './dom.js';
import { installKeys } from './keys.js';
import { followEvents, type LiveState } from './live.js';
import { PagedList } from './paged-list.js';
import {
  fillBranchFilter,
  renderBranches,
  renderCommit,
  renderHit,
  renderLogEntry,
  renderRoadmap,
  renderSessions,
} from './views.js';

/** Past this many lines the history graph waits to be asked for: drawing it takes seconds. */
const LARGE_GRAPH_LINES = 2000;

const el = {
  project: byId('project'),
  version: byId('version'),
  branch: byId('current-branch'),
  events: byId('events'),
  live: byId('live'),
  pageStatus: byId('page-status'),
  graph: byId('graph-box'),
  graphLarge: byId('graph-large'),
  graphDraw: byId<HTMLButtonElement>('graph-draw'),
  objectives: byId('objectives'),
  milestones: byId('milestones'),
  failed: byId('failed'),
  branches: byId('branch-list'),
  commitsBranch: byId<HTMLSelectElement>('commits-branch'),
  logBranch: byId<HTMLSelectElement>('log-branch'),
  searchForm: byId<HTMLFormElement>('search-form'),
  q: byId<HTMLInputElement>('q'),
  searchStatus: byId('search-status'),
  searchResults: byId<HTMLOListElement>('search-results'),
  searchMore: byId<HTMLButtonElement>('search-more'),
  sessions: byId('sessions'),
  machines: { session: byId('machine-session'), branch: byId('machine-branch') },
  marks: { session: byId('marks-session') },
  nav: byId('sections'),
  help: byId<HTMLDialogElement>('help'),
};

const commits = new PagedList<CommitItem>({
  scroller: byId('commits-scroller'),
  list: byId<HTMLOListElement>('commit-list'),
  status: byId('commits-status'),
  more: byId<HTMLButtonElement>('commits-more'),
  fetchPage: api.commits,
  key: (c) => c.id,
  render: renderCommit,
  empty: 'No commits yet.',
});

const log = new PagedList<LogItem>({
  scroller: byId('log-scroller'),
  list: byId<HTMLOListElement>('log-list'),
  status: byId('log-status'),
  more: byId<HTMLButtonElement>('log-more'),
  fetchPage: api.log,
  key: (e) => e.id,
  render: renderLogEntry,
  empty: 'The log is empty.',
});

let shown: Overview | null = null;
/** The history graph as last fetched (GET /api/graph), redrawn when the overview names another tag. */
let graph: { tag: string; source: string } | null = null;
let graphWanted = '';
let drawLargeGraph = false;
let liveState: LiveState = 'connecting';
let updatedAt: Date | null = null;

function showLive(): void {
  const text = { connecting: 'Connecting…', connected: 'Live', reconnecting: 'Reconnecting…' }[liveState];
  el.live.dataset.state = liveState;
  el.live.textContent =
    liveState === 'connected' && updatedAt ? `${text} · updated ${updatedAt.toLocaleTimeString()}` : text;
}

function drawGraph(): void {
  if (graph === null) return;
  const lines = graph.source.split('\n').length;
  const large = lines > LARGE_GRAPH_LINES && !drawLargeGraph;
  el.graphLarge.hidden = !large;
  if (large) el.graphDraw.textContent = `Draw the graph (${lines} lines; may take a while)`;
  else drawWhenSeen(el.graph, graph.source, 'History graph');
}

/** Fetches the history graph when the overview names a version other than the one drawn. */
async function updateGraph(tag: string): Promise<void> {
  if (graph?.tag === tag || graphWanted === tag) return;
  graphWanted = tag;
  try {
    const g = await api.graph();
    if (graphWanted !== tag) return;
    graph = g;
    drawGraph();
  } catch (e) {
    pageError(describeError(e));
  } finally {
    if (graphWanted === tag) graphWanted = '';
  }
}

function drawDiagrams(o: Overview): void {
  drawGraph();
  // The captions say what is marked, and why nothing is when nothing is.
  el.marks.session.textContent = o.sessions.length > 0 ? "(the open sessions' states marked)" : '(no session open)';
  drawWhenSeen(
    el.machines.session,
    withCurrent(
      o.machines.session,
      'session',
      o.sessions.map((s) => s.state),
    ),
    'Session machine',
  );
  const branchStates = o.branches.map((b) => b.state);
  drawWhenSeen(el.machines.branch, withCurrent(o.machines.branch, 'branch', branchStates), 'Branch machine');
}

function showOverview(o: Overview): void {
  shown = o;
  el.project.textContent = o.project;
  el.version.textContent = o.version ? `gctx ${o.version}` : '';
  el.branch.textContent = o.branch;
  el.events.textContent = String(o.events);
  document.title = `${o.project} · GCC memory`;
  renderRoadmap(o, el.objectives, el.milestones);
  renderBranches(o, el.failed, el.branches);
  renderSessions(o, el.sessions);
  fillBranchFilter(el.commitsBranch, o);
  fillBranchFilter(el.logBranch, o);
  drawDiagrams(o);
  void updateGraph(o.graphTag);
  document.documentElement.dataset.events = String(o.events);
}

function pageError(message: string): void {
  el.pageStatus.hidden = message === '';
  el.pageStatus.textContent = message;
}

async function firstLoad(): Promise<void> {
  try {
    showOverview(await api.overview());
    pageError('');
  } catch (e) {
    pageError(describeError(e));
  }
  await Promise.all([commits.reset(''), log.reset('')]);
  document.documentElement.dataset.ready = 'true';
}

/** Brings everything up to date after the memory changed; `events` is what /events announced. */
async function refresh(events: number | null): Promise<void> {
  if (shown !== null && events !== null && events === shown.events) return;
  let o: Overview;
  try {
    o = await api.overview();
    pageError('');
  } catch (e) {
    pageError(describeError(e));
    return;
  }
  if (shown !== null && o.events === shown.events) return;
  showOverview(o);
  const [newCommits, newLog] = await Promise.all([commits.refresh(), log.refresh()]);
  updatedAt = new Date();
  showLive();
  if (newCommits > 0 || newLog > 0)
    document.documentElement.dataset.updates = String(Number(document.documentElement.dataset.updates ?? 0) + 1);
}

// Search: one query at a time, its pages appended under "More results".
let search = { q: '', page: 0, pages: 0, generation: 0 };

async function runSearch(q: string, page: number): Promise<void> {
  const gen = page === 1 ? ++search.generation : search.generation;
  if (page === 1) search = { q, page: 0, pages: 0, generation: gen };
  el.searchMore.disabled = true;
  if (page === 1) {
    el.searchResults.replaceChildren();
    el.searchStatus.textContent = `Searching for “${q}”…`;
  }
  try {
    const r = await api.search(q, page);
    if (gen !== search.generation) return;
    search.page = page;
    search.pages = r.pages;
    el.searchResults.append(...r.hits.map((hit) => renderHit(hit)));
    el.searchStatus.textContent =
      r.total === 0
        ? `Nothing found for “${q}”.`
        : `${r.total} ${r.total === 1 ? 'result' : 'results'} for “${q}”${r.pages > 1 ? ` · page ${page} of ${r.pages}` : ''}`;
  } catch (e) {
    if (gen === search.generation) el.searchStatus.textContent = describeError(e);
  } finally {
    if (gen === search.generation) {
      el.searchMore.hidden = search.page >= search.pages;
      el.searchMore.disabled = false;
    }
  }
}

el.searchForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const q = el.q.value.trim();
  if (q === '') {
    el.searchResults.replaceChildren();
    el.searchStatus.textContent = '';
    el.searchMore.hidden = true;
    return;
  }
  void runSearch(q, 1);
});
el.searchMore.addEventListener('click', () => void runSearch(search.q, search.page + 1));

el.commitsBranch.addEventListener('change', () => void commits.reset(el.commitsBranch.value));
el.logBranch.addEventListener('change', () => void log.reset(el.logBranch.value));
el.graphDraw.addEventListener('click', () => {
  drawLargeGraph = true;
  if (shown) drawDiagrams(shown);
});
onColourSchemeChange(() => {
  void followColourScheme().then((changed) => {
    if (!changed || !shown) return;
    for (const box of [el.graph, el.machines.session, el.machines.branch]) forget(box);
    drawDiagrams(shown);
  });
});

installKeys({ nav: el.nav, help: el.help, search: el.q });
void firstLoad().then(() => {
  followEvents({
    refresh,
    onState: (state) => {
      liveState = state;
      showLive();
    },
  });
});
showLive();
