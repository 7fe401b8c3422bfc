/**
 * The serve page in a real headless Chromium against a fake daemon (fake-daemon.ts) that
 * serves the built page (dist/page, from `npm run build`) and the HTTP contract. One page is
 * driven through the steps in order, as a reader would: open, read, page, filter, search, use
 * the keyboard, then watch another process's commits arrive without a reload. Every wait is
 * for a condition; the timeouts are only a safety net.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../mcp/client.js';
import {
  focused,
  hasChromium,
  launchBrowser,
  markWindow,
  NO_CHROMIUM,
  openPage,
  tabTo,
  waitUntil,
  windowMark,
  type Watched,
} from './browser.js';
import { MemoryModel, startFakeDaemon, type FakeDaemon } from './fake-daemon.js';

const XSS_BRANCH = '<img src=x onerror=alert(1)>';
const XSS_TITLE = '<script>alert("commit")</script> escaped & shown';
const SAFETY_MS = 120_000;

function memory(): MemoryModel {
  const m = new MemoryModel('demo <b>project</b>');
  m.overview.objectives.push(
    { n: 1, text: 'Serve the memory locally', done: true },
    { n: 2, text: 'Draw the history', done: false },
  );
  m.branch('feature-x', 'main', 'Try the feature');
  for (let i = 1; i <= 14; i++)
    m.commit('main', `main step ${i}`, `Main work number ${i}.`, [{ path: `src/m${i}.ts`, added: i, removed: 1 }]);
  for (let i = 1; i <= 12; i++)
    m.commit('feature-x', `feature step ${i}`, `Feature work ${i}; searchable quokka ${i}.`);
  m.branch('spike', 'main', 'A faster parser');
  m.commit('spike', 'spike attempt');
  m.abandon('spike', 'Too slow: the benchmark showed 3x');
  m.branch(XSS_BRANCH, 'main', 'Hostile names render as text');
  m.commit(XSS_BRANCH, XSS_TITLE, '<b>not bold</b> <img src=y onerror=alert(2)>');
  m.branch('merged-one', 'main', 'Small fix');
  m.commit('merged-one', 'small fix');
  m.merge('merged-one', 'main');
  for (let i = 1; i <= 3; i++) m.commit('main', `after merge ${i}`);
  m.tool('main', 'npm test passed');
  m.overview.milestones.push({ n: 1, title: 'First light', branch: 'main', status: 'committed', at: m.commits[0]!.at });
  m.overview.sessions.push(
    { id: 's-1', host: 'pi', state: 'ready', branch: 'main', since: m.commits[0]!.at },
    { id: 's-2', host: 'claude-code', state: 'opening', branch: 'feature-x', since: m.commits[1]!.at },
  );
  return m;
}

/** Polls a condition in the test process (the daemon's side), with a safety-net timeout. */
async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + SAFETY_MS;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const count = (page: Page, selector: string) => page.locator(selector).count();
const text = (page: Page, selector: string) => page.locator(selector).first().innerText();

const suite = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn(`test/adapters/serve/page.test.ts skipped: ${NO_CHROMIUM}`);

suite(hasChromium ? 'the serve page in Chromium' : `the serve page in Chromium (skipped: ${NO_CHROMIUM})`, () => {
  let browser: Browser;
  let daemon: FakeDaemon;
  let w: Watched;
  let page: Page;

  beforeAll(async () => {
    daemon = await startFakeDaemon(join(REPO, 'dist/page'), memory());
    browser = await launchBrowser();
    w = await openPage(browser);
    page = w.page;
    page.setDefaultTimeout(SAFETY_MS);
  });
  afterAll(async () => {
    await w?.close();
    await browser?.close();
    await daemon?.close();
  });

  it('opens through the token address, which the daemon trades for a cookie and drops', async () => {
    await page.goto(daemon.openUrl);
    await waitUntil(page, 'document.documentElement.dataset.ready === "true"');
    expect(page.url()).toBe(`${daemon.origin}/`);
    expect(await text(page, '#project')).toBe('demo <b>project</b>');
    expect(await text(page, '#current-branch')).toBe('main');
    expect(await text(page, '#events')).toBe(String(daemon.model.overview.events));
    await waitUntil(page, 'document.getElementById("live").dataset.state === "connected"');
  });

  it('finds the branches, the failed approach, the roadmap, commits and log, newest first', async () => {
    const cards = await page
      .locator('#branch-list > li')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-branch')));
    expect(cards).toEqual(daemon.model.overview.branches.map((b) => b.name));
    expect(await text(page, '[data-branch="spike"] .badge')).toBe('abandoned');
    expect(await text(page, '[data-branch="feature-x"] dd code')).toBe('main');
    expect(await page.locator('#failed').isVisible()).toBe(true);
    expect(await text(page, '#failed li')).toContain('Too slow: the benchmark showed 3x');
    expect(
      await page
        .locator('#objectives input')
        .evaluateAll((els) => els.map((e) => e.getAttribute('checked') !== null && e.hasAttribute('disabled'))),
    ).toEqual([true, false]);
    const newest = daemon.model.commits.at(-1)!;
    expect(await text(page, '#commit-list > li .title')).toBe(newest.title);
    expect(await count(page, '#commit-list > li')).toBe(25);
    expect(await text(page, '#log-list > li .text')).toBe('npm test passed');
  });

  it("draws the history graph and the machines, the sessions' current states marked", async () => {
    await page.locator('#graph-box svg').waitFor();
    expect(await page.locator('#graph-box svg').textContent()).toContain('after merge 3');
    // The machines are drawn once they come near the viewport.
    await page.locator('#machines').scrollIntoViewIfNeeded();
    for (const m of ['session', 'branch']) await page.locator(`#machine-${m} svg`).waitFor();
    const marked = await page
      .locator('#machine-session svg .gccCurrent')
      .evaluateAll((els) => els.map((e) => e.textContent?.trim()));
    expect(marked.sort()).toEqual(['opening', 'ready']);
    expect(await text(page, '#sessions')).toContain('opening');
  });

  it('pages to older commits and filters by branch', async () => {
    await page.locator('#commits-more').click();
    await waitUntil(page, `document.querySelectorAll('#commit-list > li').length === ${daemon.model.commits.length}`);
    expect(await page.locator('#commits-more').isHidden()).toBe(true);
    expect(await text(page, '#commit-list > li:last-child .title')).toBe('main step 1');

    await page.locator('#log-branch').selectOption('spike');
    await waitUntil(
      page,
      `[...document.querySelectorAll('#log-list > li .branch')].every((e) => e.textContent === 'spike')`,
    );
    expect(await count(page, '#log-list > li')).toBe(3);
    await page.locator('#log-branch').selectOption('');
    await waitUntil(page, `document.querySelectorAll('#log-list > li').length === 25`);
  });

  it('searches: / focuses the field, Enter searches, snippets mark the words, more pages load', async () => {
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('/');
    expect(await focused(page)).toBe('q');
    await page.keyboard.type('quokka');
    await page.keyboard.press('Enter');
    await page.locator('#search-results > li').first().waitFor();
    expect(await text(page, '#search-status')).toContain('12 results');
    expect(await text(page, '#search-results mark')).toBe('quokka');
    expect(await page.locator('#search-results').innerText()).not.toMatch(/[«»]/);
    expect(await count(page, '#search-results > li')).toBe(5);
    await page.locator('#search-more').click();
    await waitUntil(page, `document.querySelectorAll('#search-results > li').length === 10`);
  });

  it('is usable from the keyboard: ? help and Escape, g then a letter, Tab on through the controls', async () => {
    await page.keyboard.press('Escape'); // leaves the search field once it is empty…
    await page.locator('#q').fill('');
    await page.keyboard.press('Escape'); // …which it now is
    expect(await focused(page)).not.toBe('q');
    await page.keyboard.press('?');
    await waitUntil(page, 'document.getElementById("help").open');
    expect(await page.locator('#help').innerText()).toContain('Machines');
    await page.keyboard.press('Escape');
    await waitUntil(page, '!document.getElementById("help").open');

    await page.keyboard.press('g');
    await page.keyboard.press('c');
    expect(await focused(page)).toBe('commits-h');
    expect(await tabTo(page, '#commits-branch')).toBe(1);
    // Tab goes on through the commits and the log to the search field, focus always drawn.
    await tabTo(page, '#log-branch');
    await tabTo(page, '#q');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
  });

  it('renders hostile names and titles as text: no markup, no script, no dialog', async () => {
    const card = page.locator('#branch-list > li').filter({ hasText: XSS_BRANCH });
    expect(await card.count()).toBe(1);
    const commit = page.locator('#commit-list > li').filter({ hasText: XSS_TITLE });
    await commit.locator('summary').click();
    expect(await commit.locator('.contribution').innerText()).toContain('<b>not bold</b> <img src=y onerror=alert(2)>');
    expect(await count(page, 'main img, main script, main b')).toBe(0);
    // In the graph too the names are text: Mermaid's own escapes are shown as the characters.
    const graphText = await page
      .locator('#graph-box svg')
      .evaluate((svg) => [...svg.querySelectorAll('text')].map((t) => t.textContent).join('\n'));
    expect(graphText).toContain(XSS_BRANCH);
    expect(graphText).toContain(`C001 <script>alert('commit')</script> escaped & shown`);
    expect(w.dialogs).toEqual([]);
  });

  it("shows another process's commit without a reload, keeping loaded older pages", async () => {
    await markWindow(page, 'still here');
    const navigations = w.navigations.length;
    const shown = await count(page, '#commit-list > li');
    const live = daemon.model.commit('feature-x', 'live commit from another process');
    daemon.announce();
    const first = page.locator('#commit-list > li').first();
    await first.filter({ hasText: live.title }).waitFor();
    expect(await first.locator('.badge.new').count()).toBe(1);
    expect(await count(page, '#commit-list > li')).toBe(shown + 1);
    expect(await text(page, '#events')).toBe(String(daemon.model.overview.events));
    expect(await windowMark(page)).toBe('still here');
    expect(w.navigations.length).toBe(navigations);
  });

  it('reconnects when the stream drops and catches up', async () => {
    const opened = daemon.streamsOpened();
    daemon.dropStreams();
    await until('the page to reopen /events', () => daemon.streamsOpened() > opened);
    const live = daemon.model.commit('main', 'committed while the stream was down');
    daemon.announce();
    await page.locator('#commit-list > li').first().filter({ hasText: live.title }).waitFor();
    await waitUntil(page, 'document.getElementById("live").dataset.state === "connected"');
    expect(await windowMark(page)).toBe('still here');
  });

  it('starts again from the newest page when more than a page arrives at once', async () => {
    for (let i = 1; i <= 30; i++) daemon.model.commit('main', `burst ${i}`);
    for (let i = 0; i < 3; i++) daemon.announce();
    await page.locator('#commit-list > li').first().filter({ hasText: 'burst 30' }).waitFor();
    expect(await count(page, '#commit-list > li')).toBe(25);
    expect(await count(page, '#commit-list > li .badge.new')).toBe(25);
    expect(await text(page, '#commit-list > li:last-child .title')).toBe('burst 6');
    expect(await page.locator('#commits-more').isVisible()).toBe(true);
    expect(await windowMark(page)).toBe('still here');
  });

  it('loaded nothing from anywhere else, refused nothing, and logged no errors', () => {
    expect(w.requests.filter((u) => !u.startsWith(`${daemon.origin}/`))).toEqual([]);
    expect(daemon.refused).toEqual([]);
    // Chromium logs the streams the daemon cut off in the reconnection step; nothing else.
    expect(w.errors.filter((e) => !e.includes('ERR_INCOMPLETE_CHUNKED_ENCODING'))).toEqual([]);
  });

  it('fits 400 px in dark mode without sideways scrolling; the first Tab is the skip link', async () => {
    const narrow = await openPage(browser, { width: 400, height: 800, colorScheme: 'dark' });
    try {
      narrow.page.setDefaultTimeout(SAFETY_MS);
      await narrow.page.goto(daemon.openUrl);
      await waitUntil(narrow.page, 'document.documentElement.dataset.ready === "true"');
      // On a fresh page the first Tab lands on the skip link, which leads to the content.
      await narrow.page.keyboard.press('Tab');
      expect(await narrow.page.evaluate('document.activeElement.className')).toBe('skip');
      await narrow.page.keyboard.press('Enter');
      expect(await focused(narrow.page)).toBe('main');
      await narrow.page.locator('#graph-box svg').waitFor();
      expect(await narrow.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(400);
      const bg = await narrow.page.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(bg).toBe('rgb(13, 17, 23)');
      expect(narrow.errors).toEqual([]);
    } finally {
      await narrow.close();
    }
  });
});
