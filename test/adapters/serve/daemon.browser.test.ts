/**
 * The page in a real headless Chromium against the REAL daemon (the built gctx, as a child
 * process): opened at the address `gctx serve status --json` prints, it finds the branches and
 * commits, draws the history, and shows a commit made by another process (`gctx commit`)
 * without a reload. Waits are for conditions; timeouts are only a safety net.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { gctx } from '../../support/cli.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { hasChromium, launchBrowser, markWindow, NO_CHROMIUM, openPage, waitUntil, windowMark, type Watched } from './browser.js';
import { SAFETY_MS, type Served, startServe } from './served.js';

async function seed(dir: string): Promise<void> {
  const m = await Memory.open(dir, { create: true });
  try {
    await m.execute({ type: 'roadmap', action: 'add', target: 'Look at the memory in a browser' });
    for (let i = 1; i <= 4; i++) await m.execute({ type: 'commit', contribution: `Main work ${i}.`, title: `main step ${i}` });
    await m.execute({ type: 'branch', name: 'feature-x', purpose: 'Try the feature' });
    await m.execute({ type: 'commit', contribution: 'Feature work.', title: 'feature step 1' });
    await m.execute({ type: 'switch', name: 'main' });
  } finally {
    m.close();
  }
}

const suite = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn(`test/adapters/serve/daemon.browser.test.ts skipped: ${NO_CHROMIUM}`);

suite(hasChromium ? 'the page against gctx serve, in Chromium' : `the page against gctx serve (skipped: ${NO_CHROMIUM})`, () => {
  let dir: string;
  let d: Served;
  let browser: Browser;
  let w: Watched;
  let page: Page;
  let address: string;

  beforeAll(async () => {
    dir = tempProject('gcc-serve-page-');
    await seed(dir);
    d = await startServe(dir);
    browser = await launchBrowser();
    w = await openPage(browser);
    page = w.page;
    page.setDefaultTimeout(SAFETY_MS);
  });
  afterAll(async () => {
    await w?.close();
    await browser?.close();
    await d?.stop();
    cleanup();
  });

  it('opens at the address `gctx serve status --json` prints', async () => {
    const status = gctx(dir, ['serve', 'status', '--json']);
    expect(status.code).toBe(0);
    address = (JSON.parse(status.stdout) as { page: string }).page;
    await page.goto(address);
    await waitUntil(page, 'document.documentElement.dataset.ready === "true"');
    expect(page.url()).toBe(d.state.url);
    await waitUntil(page, 'document.getElementById("live").dataset.state === "connected"');
    expect(await page.locator('#project').innerText()).toBe(dir.split('/').pop());
  });

  it('finds the branches and the commits, and draws the history', async () => {
    const cards = await page.locator('#branch-list > li').evaluateAll((els) => els.map((e) => e.getAttribute('data-branch')));
    expect(cards).toEqual(['main', 'feature-x']);
    expect(await page.locator('[data-branch="feature-x"] dd code').first().innerText()).toBe('main');
    const titles = await page.locator('#commit-list > li .title').allInnerTexts();
    expect(titles).toEqual(['feature step 1', 'main step 4', 'main step 3', 'main step 2', 'main step 1']);
    await page.locator('#graph-box svg').waitFor();
    expect(await page.locator('#graph-box svg').textContent()).toContain('feature step 1');
    expect(await page.locator('#objectives').innerText()).toContain('Look at the memory in a browser');
  });

  it('shows a commit another process makes, without a reload', async () => {
    await markWindow(page, 'still here');
    const navigations = w.navigations.length;
    const committed = gctx(dir, ['commit', 'Made in a terminal while the page was open.', '--title', 'live from another process']);
    expect(committed.code).toBe(0);
    const first = page.locator('#commit-list > li').first();
    await first.filter({ hasText: 'live from another process' }).waitFor();
    expect(await first.locator('.badge.new').count()).toBe(1);
    await page.locator('#graph-box svg text', { hasText: 'live from another process' }).first().waitFor();
    expect(await windowMark(page)).toBe('still here');
    expect(w.navigations.length).toBe(navigations);
  });

  it('loaded nothing from anywhere else and logged no errors', () => {
    expect(w.requests.filter((u) => !u.startsWith(d.state.url))).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(w.dialogs).toEqual([]);
  });
});
