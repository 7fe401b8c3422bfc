/**
 * Draws the Mermaid sources the daemon sends (the history's gitGraph, the machines' state
 * diagrams) with the bundled Mermaid, loaded on first use so the rest of the page shows
 * before it. The sources carry user-chosen names and titles, so Mermaid runs with
 * `securityLevel: 'strict'` and SVG labels (no HTML in labels).
 */
import type { Mermaid } from 'mermaid';

let loading: Promise<Mermaid> | null = null;
let theme = '';
let seq = 0;

const dark = matchMedia('(prefers-color-scheme: dark)');
const themeNow = (): string => (dark.matches ? 'dark' : 'default');

/** The bundled Mermaid, configured for the reader's colour scheme as it is now. */
async function mermaid(): Promise<Mermaid> {
  loading ??= import('mermaid').then((mod) => mod.default);
  const m = await loading;
  if (theme === themeNow()) return m;
  theme = themeNow();
  m.initialize({
    startOnLoad: false,
    securityLevel: 'strict',
    htmlLabels: false,
    theme: theme as 'default' | 'dark',
    // Mermaid 12 lays out with ELK by default; its ~1.5 MB is not bundled (see
    // scripts/bundle-page.mjs), and dagre draws these diagrams as the docs show them.
    layout: 'dagre',
    fontFamily: 'system-ui, sans-serif',
    suppressErrorRendering: true,
    // A long memory's history is a long source; past these, Mermaid refuses it outright.
    maxTextSize: 2_000_000,
    maxEdges: 20_000,
    gitGraph: { mainBranchName: 'main', rotateCommitLabel: false },
  });
  return m;
}

/** Calls `redraw` when the reader's colour scheme changes: every diagram is then drawn anew in it. */
export function onColourSchemeChange(redraw: () => void): void {
  dark.addEventListener('change', redraw);
}

/**
 * Mermaid's SVG text as an element, parsed in a document that runs nothing. Under
 * `securityLevel: 'strict'` Mermaid has already passed it through DOMPurify, and the page's
 * CSP runs no inline script or handler.
 */
function parseSvg(svgText: string): SVGSVGElement {
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${svgText}`, 'text/html');
  const svg = doc.body.querySelector('svg');
  if (!svg) throw new Error('Mermaid returned no SVG');
  for (const el of svg.querySelectorAll('text, tspan')) showPlain(el);
  return document.adoptNode(svg);
}

/**
 * Mermaid sizes its SVG to shrink into its container without limit: a long history or a wide
 * machine then shrinks to illegible text. It may shrink to 60% of its own size (labels stay
 * about 10 px); past that the box around it scrolls.
 */
function legibleSize(svg: SVGSVGElement): void {
  const { width } = svg.viewBox.baseVal;
  if (!(width > 0)) return;
  svg.setAttribute('width', '100%');
  svg.removeAttribute('height');
  svg.style.maxWidth = `${Math.ceil(width)}px`;
  svg.style.minWidth = `${Math.ceil(width * 0.6)}px`;
}

/**
 * Mermaid writes `<`, `>` and `=` in some labels (gitGraph's branch names) as `&lt;`, `&gt;`
 * and `&equals;`, which an SVG text node then shows literally. Here they are text nodes, so
 * they are put back as the characters they stand for: a title like `Option<T>` reads as
 * written, and nothing is parsed.
 */
function showPlain(el: Element): void {
  for (const node of el.childNodes) {
    if (node.nodeType === Node.TEXT_NODE && node.nodeValue?.includes('&')) {
      node.nodeValue = node.nodeValue
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&equals;/g, '=');
    }
  }
}

const num = (el: Element | null, name: string): number => Number(el?.getAttribute(name) ?? 0);

/**
 * Labels that never collide, for a gitGraph drawn bottom to top: every commit label moves to
 * one lane left of all branch lines (each commit has its own row, so labels never meet each
 * other or a line), and the branch names go one per row above the lines.
 */
function labelLanes(svg: SVGSVGElement): void {
  const lines = [...svg.querySelectorAll('line.branch')];
  if (lines.length === 0) return;
  const xs = lines.map((l) => num(l, 'x1'));
  const top = Math.min(...lines.flatMap((l) => [num(l, 'y1'), num(l, 'y2')]));
  let left = Math.min(...xs) - 20;
  for (const g of svg.querySelectorAll('.commit-labels > g')) {
    const bkg = g.querySelector('rect.commit-label-bkg');
    if (!bkg) continue;
    const dx = Math.min(...xs) - 16 - (num(bkg, 'x') + num(bkg, 'width'));
    g.setAttribute('transform', `translate(${dx}, 0)`);
    left = Math.min(left, num(bkg, 'x') + dx - 8);
  }
  const rects = [...svg.querySelectorAll('rect.branchLabelBkg')];
  const names = [...svg.querySelectorAll('g.branchLabel')];
  let high = top;
  rects.forEach((rect, i) => {
    const y = top - 8 - (rects.length - i) * 28;
    const dy = y - num(rect, 'y');
    rect.setAttribute('transform', `translate(0, ${dy})`);
    names[i]?.setAttribute('transform', `translate(0, ${dy})`);
    high = Math.min(high, y - 4);
  });
  const bottom = Math.max(...lines.flatMap((l) => [num(l, 'y1'), num(l, 'y2')])) + 8;
  const [vx, , vw] = (svg.getAttribute('viewBox') ?? '0 0 0 0').split(/\s+/).map(Number) as [number, number, number];
  const x = Math.min(vx, left);
  svg.setAttribute('viewBox', `${x} ${high} ${vw + (vx - x)} ${bottom - high}`);
}

/** The rendered theme and source per container, so an unchanged diagram is not drawn again. */
const drawn = new WeakMap<Element, string>();

/**
 * Renders `source` into `box`, replacing what was there only once the new drawing is ready
 * (no blank flash, and the box keeps its scroll position). A source Mermaid rejects is shown
 * as text with the reason.
 */
async function draw(box: HTMLElement, source: string, label: string): Promise<void> {
  const key = `${themeNow()}\n${source}`;
  if (drawn.get(box) === key) return;
  drawn.set(box, key);
  const { scrollLeft, scrollTop } = box;
  try {
    const m = await mermaid();
    // The history runs bottom to top, newest first, one row per commit (see labelLanes).
    const { svg } = await m.render(`gcc-diagram-${++seq}`, source.replace(/^gitGraph\n/, 'gitGraph BT:\n'));
    if (drawn.get(box) !== key) return; // a newer source arrived while this one rendered
    const el = parseSvg(svg);
    if (el.getAttribute('aria-roledescription') === 'gitGraph') labelLanes(el);
    legibleSize(el);
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', label);
    box.replaceChildren(el);
  } catch (e) {
    if (drawn.get(box) !== key) return;
    const why = document.createElement('p');
    why.className = 'note error';
    why.textContent = `${label} could not be drawn: ${e instanceof Error ? e.message : String(e)}`;
    const text = document.createElement('pre');
    text.className = 'source';
    text.textContent = source;
    box.replaceChildren(why, text);
  }
  box.scrollLeft = scrollLeft;
  box.scrollTop = scrollTop;
  box.dataset.drawn = String(seq);
}

/** Boxes that came near the viewport, and for the others the newest draw waiting for that. */
const seen = new WeakSet<Element>();
const waiting = new WeakMap<Element, () => void>();
const nearView = new IntersectionObserver(
  (entries) => {
    for (const { target } of entries.filter((e) => e.isIntersecting)) {
      nearView.unobserve(target);
      seen.add(target);
      waiting.get(target)?.();
    }
  },
  { rootMargin: '400px 0px' },
);

/**
 * Like draw, but a box that has never been near the viewport is drawn only once it comes
 * near: each state diagram costs the main thread most of a second, which a reader who never
 * scrolls to the machines should not pay on every load.
 */
export function drawWhenSeen(box: HTMLElement, source: string, label: string): void {
  const run = () => void draw(box, source, label);
  if (seen.has(box)) return run();
  waiting.set(box, run);
  nearView.observe(box);
}

/**
 * A state diagram's source with the given states marked as current: Mermaid `classDef`/`class`
 * lines appended, for states the source declares (`state "…" as <alias>`). A state is a
 * dotted path (`opening.store`, with or without the machine's id first); the alias is the
 * path's ids joined by `_`, as gctx writes it. Unknown or malformed states are left out.
 */
export function withCurrent(source: string, machineId: string, states: readonly string[]): string {
  const declared = new Set([...source.matchAll(/^\s*state "[^"]*" as (\w+)\s*$/gm)].map((m) => m[1]));
  const aliases = new Set<string>();
  for (const s of states) {
    if (!/^[\w.]+$/.test(s)) continue;
    const path = s.startsWith(`${machineId}.`) ? s : `${machineId}.${s}`;
    const alias = path.replace(/\./g, '_');
    if (declared.has(alias)) aliases.add(alias);
  }
  if (aliases.size === 0) return source;
  const lines = [
    '  classDef gccCurrent fill:#f59e0b,stroke:#b45309,stroke-width:3px,color:#111',
    ...[...aliases].map((a) => `  class ${a} gccCurrent`),
  ];
  return `${source.trimEnd()}\n${lines.join('\n')}\n`;
}
