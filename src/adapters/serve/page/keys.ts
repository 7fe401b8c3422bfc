/**
 * Keyboard use beyond Tab: `/` focuses search, `?` opens the key help (Escape closes it, as
 * any modal dialog), and `g` followed by a section's letter moves to that section. The letters
 * come from the navigation links (`data-key`), which also carry them as access keys, so the
 * help, the links and the shortcuts cannot disagree. Keys typed into a field are left alone.
 */

const CHORD_MS = 1500;

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  );
}

/** Moves to a section: scrolls to it and puts focus on its heading, so Tab continues from there. */
function goToSection(id: string): void {
  const section = document.getElementById(id);
  const heading = section?.querySelector<HTMLElement>('h2');
  if (!section || !heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
  section.scrollIntoView({ block: 'start' });
}

export function installKeys(opts: { nav: HTMLElement; help: HTMLDialogElement; search: HTMLInputElement }): void {
  const sections = new Map<string, string>();
  for (const a of opts.nav.querySelectorAll<HTMLAnchorElement>('a[data-key]')) {
    const key = a.dataset.key ?? '';
    const id = a.hash.slice(1);
    sections.set(key, id);
    a.accessKey = key;
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      goToSection(id);
    });
  }

  let chordUntil = 0;
  document.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
    if (opts.help.open) return; // the dialog handles its own keys; Escape closes it
    const now = Date.now();
    if (now < chordUntil) {
      chordUntil = 0;
      const id = sections.get(ev.key.toLowerCase());
      if (id !== undefined) {
        ev.preventDefault();
        goToSection(id);
        return;
      }
    }
    if (ev.key === 'g') {
      chordUntil = now + CHORD_MS;
    } else if (ev.key === '/') {
      ev.preventDefault();
      opts.search.focus();
      opts.search.select();
    } else if (ev.key === '?') {
      ev.preventDefault();
      opts.help.showModal();
    }
  });

  // Escape in the search field gives the keys back to the page.
  opts.search.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && opts.search.value === '') opts.search.blur();
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-opens="help"]')) {
    button.addEventListener('click', () => opts.help.showModal());
  }
  for (const button of opts.help.querySelectorAll<HTMLButtonElement>('[data-closes]')) {
    button.addEventListener('click', () => opts.help.close());
  }
}
