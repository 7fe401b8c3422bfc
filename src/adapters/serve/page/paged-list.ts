/**
 * A newest-first list read page by page through the daemon's cursors (commits, log): the first
 * page on load or when the branch filter changes, older pages on "Load older", and on a live
 * update only the entries newer than the newest shown, put on top and marked new. Older pages
 * already loaded stay, and so does the reader's place in the list.
 */
import type { Page } from './contract.js';
import { describeError } from './api.js';
import { h, note } from './dom.js';

interface PagedListParts<T> {
  /** The scrolling box around the list. */
  scroller: HTMLElement;
  list: HTMLOListElement;
  status: HTMLElement;
  more: HTMLButtonElement;
  fetchPage: (branch: string, before: string | null) => Promise<Page<T>>;
  /** What identifies an entry across fetches. */
  key: (item: T) => string;
  render: (item: T) => HTMLLIElement;
  /** Shown when the list is empty. */
  empty: string;
}

/** How long an entry that arrived live keeps its "new" mark. */
const FRESH_MS = 120_000;

export class PagedList<T> {
  private readonly shown = new Set<string>();
  private next: string | null = null;
  private branch = '';
  /** Bumped by every reset, so a response for an earlier filter is dropped. */
  private generation = 0;

  constructor(private readonly p: PagedListParts<T>) {
    p.more.addEventListener('click', () => void this.older());
  }

  /** Shows the first page for `branch` ('' = all), replacing everything. */
  async reset(branch: string): Promise<void> {
    this.branch = branch;
    const gen = ++this.generation;
    this.p.list.setAttribute('aria-busy', 'true');
    try {
      const page = await this.p.fetchPage(branch, null);
      if (gen !== this.generation) return;
      this.replace(page);
    } catch (e) {
      if (gen === this.generation) note(this.p.status, describeError(e), 'error');
    } finally {
      if (gen === this.generation) this.p.list.removeAttribute('aria-busy');
    }
  }

  /** Appends the next older page. */
  async older(): Promise<void> {
    if (this.next === null) return;
    const gen = this.generation;
    this.p.more.disabled = true;
    try {
      const page = await this.p.fetchPage(this.branch, this.next);
      if (gen !== this.generation) return;
      const fresh = page.items.filter((item) => !this.shown.has(this.p.key(item)));
      for (const item of fresh) this.shown.add(this.p.key(item));
      this.p.list.append(...fresh.map((item) => this.p.render(item)));
      this.setNext(page.next);
      note(this.p.status, '');
    } catch (e) {
      if (gen === this.generation) note(this.p.status, describeError(e), 'error');
    } finally {
      this.p.more.disabled = this.next === null;
    }
  }

  /** Puts entries newer than the newest shown on top; returns how many arrived. */
  async refresh(): Promise<number> {
    const gen = this.generation;
    let page: Page<T>;
    try {
      page = await this.p.fetchPage(this.branch, null);
    } catch (e) {
      if (gen === this.generation) note(this.p.status, describeError(e), 'error');
      return 0;
    }
    if (gen !== this.generation) return 0;
    const newer: T[] = [];
    for (const item of page.items) {
      if (this.shown.has(this.p.key(item))) break;
      newer.push(item);
    }
    if (newer.length === 0) return 0;
    if (newer.length === page.items.length && this.shown.size > 0) {
      // More arrived than one page holds: the shown entries no longer join up with the new
      // ones, so start again from the newest rather than show a list with a hole in it.
      this.replace(page, true);
      return newer.length;
    }
    const box = this.p.scroller;
    const before = box.scrollHeight;
    const keepPlace = box.scrollTop > 0;
    for (const item of newer) this.shown.add(this.p.key(item));
    this.p.list.prepend(...newer.map((item) => this.mark(this.p.render(item))));
    if (keepPlace) box.scrollTop += box.scrollHeight - before;
    note(this.p.status, '');
    return newer.length;
  }

  private replace(page: Page<T>, fresh = false): void {
    this.shown.clear();
    for (const item of page.items) this.shown.add(this.p.key(item));
    this.p.list.replaceChildren(
      ...page.items.map((item) => (fresh ? this.mark(this.p.render(item)) : this.p.render(item))),
    );
    this.setNext(page.next);
    note(this.p.status, page.items.length === 0 ? this.p.empty : '');
  }

  private setNext(next: string | null): void {
    this.next = next;
    this.p.more.hidden = next === null;
    this.p.more.disabled = next === null;
  }

  private mark(li: HTMLLIElement): HTMLLIElement {
    li.classList.add('fresh');
    li.prepend(h('span', { class: 'badge new', title: 'arrived while the page was open' }, 'new'));
    setTimeout(() => {
      li.classList.remove('fresh');
      li.querySelector(':scope > .badge.new')?.remove();
    }, FRESH_MS);
    return li;
  }
}
