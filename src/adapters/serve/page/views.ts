/**
 * The page's sections drawn from the daemon's data with lit-html: every value goes into a
 * template as text or as an attribute's value, never as markup, so data from the memory (which
 * may hold markup) stays text. Each function redraws its section in one step, so an update
 * never shows a half-drawn section.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import type { CommitItem, LogItem, Overview, SearchHit } from './contract.js';

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page: #${id} is missing from index.html`);
  return el as T;
}

/** A short status line inside a section (loading, empty, failed), replacing the previous one. */
export function note(el: HTMLElement, text: string, kind: 'info' | 'error' = 'info'): void {
  render(text ? html`<p class="note ${kind}">${text}</p>` : nothing, el);
}

/** One list entry as an element of its own, for lists that grow at either end. */
function entry(template: TemplateResult): HTMLLIElement {
  const box = document.createDocumentFragment();
  render(template, box);
  return box.querySelector('li')!;
}

/** A timestamp in the reader's locale, the ISO text kept in `datetime`. */
function time(iso: string): TemplateResult {
  const d = new Date(iso);
  const shown = Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return html`<time datetime=${iso} title=${iso}>${shown}</time>`;
}

/** Text whose «…» spans (how search marks what matched) show as `<mark>`, the guillemets dropped. */
const MARKED = /«([^«»]*)»/;
const marked = (text: string) => text.split(MARKED).map((part, i) => (i % 2 ? html`<mark>${part}</mark>` : part));

const plural = (n: number, one: string): string => `${n} ${n === 1 ? one : `${one}s`}`;

export function renderRoadmap(o: Overview, objectives: HTMLElement, milestones: HTMLElement): void {
  // Shown, not edited: the page changes nothing.
  const objective = (ob: Overview['objectives'][number]) => html`<li class=${ob.done ? 'done' : ''}>
    <input type="checkbox" id="objective-${ob.n}" ?checked=${ob.done} disabled>
    <label for="objective-${ob.n}"><span class="num">${ob.n}.</span> ${ob.text}</label></li>`;
  const milestone = (m: Overview['milestones'][number]) => html`<li><span class="num">M${m.n}</span>
    <strong>${m.title}</strong> <span class="badge ${m.status}">${m.status}</span>
    <span class="meta">on <code>${m.branch}</code> · ${time(m.at)}</span></li>`;
  render(
    o.objectives.length ? o.objectives.map(objective) : html`<li class="note">No objectives yet.</li>`,
    objectives,
  );
  render(
    o.milestones.length ? o.milestones.map(milestone) : html`<li class="note">No milestones yet.</li>`,
    milestones,
  );
}

export function renderBranches(o: Overview, failed: HTMLElement, branches: HTMLElement): void {
  failed.hidden = o.failed.length === 0;
  const failure = (f: Overview['failed'][number]) => html`<li><code class="branch">${f.branch}</code> —
    <span class="reason">${f.reason}</span> <span class="meta">${time(f.at)}</span></li>`;
  render(o.failed.map(failure), failed.querySelector('ol')!);
  const code = (text: string | null) => (text === null ? null : html`<code>${text}</code>`);
  const card = (b: Overview['branches'][number]) => {
    const facts: Array<[string, unknown]> = [
      ['from', code(b.parent)],
      ['state', code(b.state)],
      ['commits', String(b.commits)],
      ['created', time(b.created)],
      ['closed', b.closed && time(b.closed)],
      ['merged into', code(b.mergedInto)],
      ['reason', b.reason],
    ];
    const current = b.name === o.branch ? html`<span class="badge current">current</span>` : nothing;
    return html`<li class="branch-card ${b.status}" data-branch=${b.name}>
      <h3><code class="branch">${b.name}</code> <span class="badge ${b.status}">${b.status}</span>${current}</h3>
      ${b.purpose ? html`<p class="purpose">${b.purpose}</p>` : nothing}
      <dl>${facts.map(([label, value]) => (value === null ? nothing : html`<dt>${label}</dt><dd>${value}</dd>`))}</dl>
    </li>`;
  };
  render(o.branches.map(card), branches);
}

/** A file named without line counts (`--files`) records 0 and 0: it is shown without counts. */
const counted = (f: { added: number; removed: number }): boolean => f.added > 0 || f.removed > 0;

export function renderCommit(c: CommitItem): HTMLLIElement {
  const added = c.files.reduce((n, f) => n + f.added, 0);
  const removed = c.files.reduce((n, f) => n + f.removed, 0);
  const counts = c.files.some(counted) ? ` +${added} −${removed}` : '';
  const file = (f: CommitItem['files'][number]) =>
    html`<li><code>${f.path}</code>${
      counted(f) ? html` <span class="added">+${f.added}</span> <span class="removed">−${f.removed}</span>` : nothing
    }</li>`;
  return entry(html`<li class="entry commit" data-hash=${c.hash}><details>
    <summary><span class="label">${c.label}</span> <span class="title">${c.title}</span></summary>
    ${c.contribution ? html`<p class="contribution">${c.contribution}</p>` : nothing}
    ${c.files.length ? html`<ul class="files">${c.files.map(file)}</ul>` : nothing}</details>
    <p class="meta"><code class="branch">${c.branch}</code> · ${time(c.at)}${
      c.files.length ? ` · ${plural(c.files.length, 'file')}${counts}` : ''
    }${c.hash ? html` · <code class="hash" title=${c.hash}>${c.hash.slice(0, 10)}</code>` : nothing}</p></li>`);
}

export function renderLogEntry(e: LogItem): HTMLLIElement {
  return entry(html`<li class="entry log kind-${e.kind}"><p class="meta"><span class="badge kind">${e.kind}</span>
    <code class="branch">${e.branch}</code> · ${time(e.at)}</p><p class="text">${e.text}</p></li>`);
}

export function renderHit(hit: SearchHit): HTMLLIElement {
  // Search marks what matched with «…»: that is the highlight, and the only one.
  return entry(html`<li class="entry hit"><p class="meta"><span class="badge kind">${hit.kind}</span>
    <code class="branch">${hit.branch}</code> · ${time(hit.at)}${
      hit.ref !== null ? html` · <code class="ref">${hit.ref}</code>` : nothing
    }</p>
    ${hit.title !== null ? html`<p class="title">${marked(hit.title)}</p>` : nothing}
    ${hit.snippet ? html`<p class="snippet">${marked(hit.snippet)}</p>` : nothing}</li>`);
}

export function renderSessions(o: Overview, sessions: HTMLElement): void {
  const session = (s: Overview['sessions'][number]) => html`<li data-session=${s.id}><code>${s.id}</code>
    <span class="meta">(${s.host})</span>
    <span class="badge state state-${s.state.replace(/[^\w-]/g, '_')}">${s.state}</span>
    <span class="meta">on <code>${s.branch}</code> since ${time(s.since)}</span></li>`;
  render(o.sessions.length ? o.sessions.map(session) : html`<li class="note">No sessions.</li>`, sessions);
}

/** Fills a branch filter `<select>` with the branches, keeping the current choice. */
export function fillBranchFilter(select: HTMLSelectElement, o: Overview): void {
  const chosen = select.value;
  const want = ['', ...o.branches.map((b) => b.name)];
  if (want.join('\u0000') === [...select.options].map((opt) => opt.value).join('\u0000')) return;
  select.replaceChildren(...want.map((n) => new Option(n || 'All branches', n)));
  select.value = want.includes(chosen) ? chosen : '';
}
