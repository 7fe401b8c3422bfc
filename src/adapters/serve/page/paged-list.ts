/**
 * A newest-first list read page by page through the daemon's cursors (commits, log): the first
 * page on load or when the branch filter changes, older pages on "Load older", and on a live
 * update only the entries newer than the newest shown, put on top and marked new. Older pages
 * already loaded stay, and so does the reader's place in the list.
 */
import type { Page } from './contract.js';
import { byId, note } from './views.js';

/** How long an entry that arrived live keeps its "new" mark. */
const FRESH_MS = 120_000;

export class PagedList<T extends { id: string }> {
  private readonly shown = new Set<string>();
  private readonly scroller: HTMLElement;
  private readonly list: HTMLElement;
  private readonly status: HTMLElement;
  private readonly more: HTMLButtonElement;
  private next: string | null = null;
  private branch = '';
  /** Bumped by every reset, so a response for an earlier filter is dropped. */
  private generation = 0;

  /** `name`: the section's (`#<name>-scroller`, `-status`, `-more`); its list is `#commit-list` or `#log-list`. */
  constructor(
    name: 'commits' | 'log',
    private readonly fetchPage: (branch: string, before: string | null) => Promise<Page<T>>,
    private readonly render: (item: T) => HTMLLIElement,
    private readonly empty: string,
  ) {
    this.scroller = byId(`${name}-scroller`);
    this.list = byId(name === 'commits' ? 'commit-list' : 'log-list');
    this.status = byId(`${name}-status`);
    this.more = byId<HTMLButtonElement>(`${name}-more`);
    this.more.addEventListener('click', () => void this.older());
  }

  /** `page` of the current filter, or null (the error shown) when it failed or the filter changed meanwhile. */
  private async load(before: string | null): Promise<Page<T> | null> {
    const gen = this.generation;
    try {
      const page = await this.fetchPage(this.branch, before);
      return gen === this.generation ? page : null;
    } catch (e) {
      if (gen === this.generation) note(this.status, e instanceof Error ? e.message : String(e), 'error');
      return null;
    }
  }

  /** Shows the first page for `branch` ('' = all), replacing everything. */
  async reset(branch: string): Promise<void> {
    this.branch = branch;
    this.generation++;
    this.list.setAttribute('aria-busy', 'true');
    const page = await this.load(null);
    if (page) this.replace(page);
    this.list.removeAttribute('aria-busy');
  }

  /** Appends the next older page. */
  async older(): Promise<void> {
    if (this.next === null) return;
    this.more.disabled = true;
    const page = await this.load(this.next);
    if (page) {
      const fresh = page.items.filter((item) => !this.shown.has(item.id));
      for (const item of fresh) this.shown.add(item.id);
      this.list.append(...fresh.map(this.render));
      this.setNext(page.next);
      note(this.status, '');
    }
    this.more.disabled = this.next === null;
  }

  /** Puts entries newer than the newest shown on top; returns how many arrived. */
  async refresh(): Promise<number> {
    const page = await this.load(null);
    if (!page) return 0;
    const newer = page.items.findIndex((item) => this.shown.has(item.id));
    if (newer === 0 || page.items.length === 0) return 0;
    if (newer === -1 && this.shown.size > 0) {
      // More arrived than one page holds: the shown entries no longer join up with the new
      // ones, so start again from the newest rather than show a list with a hole in it.
      this.replace(page, true);
      return page.items.length;
    }
    const items = newer === -1 ? page.items : page.items.slice(0, newer);
    const keepPlace = this.scroller.scrollTop > 0;
    const before = this.scroller.scrollHeight;
    for (const item of items) this.shown.add(item.id);
    this.list.prepend(...items.map((item) => this.mark(this.render(item))));
    if (keepPlace) this.scroller.scrollTop += this.scroller.scrollHeight - before;
    note(this.status, '');
    return items.length;
  }

  private replace(page: Page<T>, fresh = false): void {
    this.shown.clear();
    for (const item of page.items) this.shown.add(item.id);
    this.list.replaceChildren(...page.items.map((item) => (fresh ? this.mark(this.render(item)) : this.render(item))));
    this.setNext(page.next);
    note(this.status, page.items.length === 0 ? this.empty : '');
  }

  private setNext(next: string | null): void {
    this.next = next;
    this.more.hidden = next === null;
    this.more.disabled = next === null;
  }

  private mark(li: HTMLLIElement): HTMLLIElement {
    const badge = Object.assign(document.createElement('span'), { className: 'badge new', textContent: 'new' });
    badge.title = 'arrived while the page was open';
    li.classList.add('fresh');
    li.prepend(badge);
    setTimeout(() => {
      li.classList.remove('fresh');
      badge.remove();
    }, FRESH_MS);
    return li;
  }
}
