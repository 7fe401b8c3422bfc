/**
 * Keyboard use beyond Tab: `/` focuses search, `?` opens the key help (a modal dialog, which
 * Escape closes), and `g` followed by a section's letter moves to that section. The letters
 * come from the navigation links (`data-key`), which also carry them as access keys, so the
 * help, the links and the shortcuts cannot disagree. Keys typed into a field are left alone.
 */

const CHORD_MS = 1500;

/** Moves to a section: scrolls to it and puts focus on its heading, so Tab continues from there. */
function goToSection(id: string): void {
  const heading = document.getElementById(id)?.querySelector<HTMLElement>('h2');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
  heading.parentElement!.scrollIntoView({ block: 'start' });
}

export function installKeys(opts: { nav: HTMLElement; help: HTMLDialogElement; search: HTMLInputElement }): void {
  const sections = new Map<string, string>();
  for (const a of opts.nav.querySelectorAll<HTMLAnchorElement>('a[data-key]')) {
    sections.set(a.dataset.key!, a.hash.slice(1));
    a.accessKey = a.dataset.key!;
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      goToSection(a.hash.slice(1));
    });
  }

  let chordUntil = 0;
  document.addEventListener('keydown', (ev) => {
    const t = ev.target;
    const typing = t instanceof HTMLElement && (t.isContentEditable || t.matches('input, textarea, select'));
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || typing || opts.help.open) return;
    const section = Date.now() < chordUntil ? sections.get(ev.key.toLowerCase()) : undefined;
    chordUntil = 0;
    if (section !== undefined) goToSection(section);
    else if (ev.key === 'g') chordUntil = Date.now() + CHORD_MS;
    else if (ev.key === '/') {
      opts.search.focus();
      opts.search.select();
    } else if (ev.key === '?') opts.help.showModal();
    else return;
    if (ev.key !== 'g' || section !== undefined) ev.preventDefault();
  });

  // Escape in an empty search field gives the keys back to the page.
  opts.search.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && opts.search.value === '') opts.search.blur();
  });
  for (const b of document.querySelectorAll('[data-opens="help"]'))
    b.addEventListener('click', () => opts.help.showModal());
  for (const b of opts.help.querySelectorAll('[data-closes]')) b.addEventListener('click', () => opts.help.close());
}
