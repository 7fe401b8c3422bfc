/**
 * A real headless browser for the serve page's tests: Debian's `chromium` (or CHROMIUM_PATH)
 * driven by playwright-core, with helpers that record what a page did (dialogs, errors,
 * requests, navigations) so a test can assert on it afterwards. playwright-core downloads no
 * browser; without a binary, `hasChromium` is false and the tests skip, saying why.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM_PATH);
export const NO_CHROMIUM = `no Chromium at ${CHROMIUM_PATH}: install Debian's \`chromium\` package or set CHROMIUM_PATH`;

/** Launches headless Chromium. Playwright gives it a fresh temporary profile, removed on close. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What happened in a page while a test drove it. */
export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Messages of alert/confirm/prompt dialogs (each dismissed at once). */
  dialogs: string[];
  /** Uncaught exceptions and console errors. */
  errors: string[];
  /** Every URL the page requested. */
  requests: string[];
  /** Main-frame navigations after the first load. */
  navigations: string[];
  close: () => Promise<void>;
}

export async function openPage(
  browser: Browser,
  opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<Watched> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
    colorScheme: opts.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const w: Watched = {
    context,
    page,
    dialogs: [],
    errors: [],
    requests: [],
    navigations: [],
    close: () => context.close(),
  };
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('pageerror', (e) => w.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') w.errors.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => w.requests.push(r.url()));
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) w.navigations.push(f.url());
  });
  return w;
}

/**
 * Waits until a JavaScript expression is truthy in the page, and returns its value. Checked
 * in the page every 20 ms. Playwright's own waitForFunction cannot be used: it evaluates the
 * predicate with eval(), which the page's Content-Security-Policy forbids.
 */
export async function waitUntil(page: Page, expression: string, timeoutMs = 120_000): Promise<unknown> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const until = Date.now() + ${timeoutMs};
    const check = () => {
      let value;
      try { value = (${expression}); } catch (e) { reject(e); return; }
      if (value) resolve(value);
      else if (Date.now() > until) reject(new Error('timed out waiting for: ' + ${JSON.stringify(expression)}));
      else setTimeout(check, 20);
    };
    check();
  })`);
}

/** Presses Tab until `selector` has focus, or fails after `max` presses. */
export async function tabTo(page: Page, selector: string, max = 80): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press('Tab');
    if (await page.locator(selector).evaluate((el) => el === el.ownerDocument.activeElement)) return i;
  }
  throw new Error(`${selector} not reached in ${max} Tab presses`);
}

/** The id (or tag) of the focused element. */
export function focused(page: Page): Promise<string> {
  return page.evaluate(
    '(() => { const a = document.activeElement; return a ? (a.id || a.tagName.toLowerCase()) : ""; })()',
  );
}

/** A value kept on `window`: it survives in-place updates and is lost by any reload. */
export async function markWindow(page: Page, value: string): Promise<void> {
  await page.evaluate(`window.__gccMarker = ${JSON.stringify(value)}`);
}

export function windowMark(page: Page): Promise<unknown> {
  return page.evaluate('window.__gccMarker');
}
