/**
 * The page's only way to make elements. Text always goes in as text nodes (`append` makes a
 * string one), so data from the memory (which may hold markup) can never become markup;
 * attributes are set one by one, and nothing here accepts HTML.
 */

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

const present = (children: Child[]) =>
  children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false);

/** An element with attributes (false/null/undefined leave one out, true sets it empty) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== false && value !== null && value !== undefined)
      el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...present(children));
  return el;
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...present(children));
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page: #${id} is missing from index.html`);
  return el as T;
}

/** A `<time>` showing a timestamp in the reader's locale, the ISO text kept in `datetime`. */
export function time(iso: string): HTMLTimeElement {
  const d = new Date(iso);
  const shown = Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { datetime: iso, title: iso }, shown);
}

/** Text whose «…» spans (how search marks what matched) shown as `<mark>`, the guillemets dropped, as nodes. */
export function fromMarks(text: string): Node {
  const frag = document.createDocumentFragment();
  text.split(/«([^«»]*)»/).forEach((part, i) => frag.append(i % 2 === 1 ? h('mark', {}, part) : part));
  return frag;
}

/** A short status line inside a section (loading, empty, failed), replacing the previous one. */
export function note(el: Element, text: string, kind: 'info' | 'error' = 'info'): void {
  fill(el, text ? h('p', { class: `note ${kind}` }, text) : null);
}
