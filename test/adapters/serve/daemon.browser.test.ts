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
import {
  hasChromium,
  launchBrowser,
  markWindow,
  NO_CHROMIUM,
  openPage,
  waitUntil,
  windowMark,
  type Watched,
} from './browser.js';
import { raw, SAFETY_MS, type Served, startServe } from './served.js';

async function seed(dir: string): Promise<void> {
  const m = await Memory.open(dir, { create: true });
  try {
    await m.execute({ type: 'roadmap', action: 'add', target: 'Look at the memory in a browser' });
    for (let i = 1; i <= 4; i++)
      await m.execute({ type: 'commit', contribution: `Main work ${i}.`, title: `main step ${i}` });
    await m.execute({ type: 'branch', name: 'feature-x', purpose: 'Try the feature' });
    await m.execute({ type: 'commit', contribution: 'Feature work.', title: 'feature step 1' });
    await m.execute({ type: 'switch', name: 'main' });
    await m.execute({ type: 'branch', name: 'a-branch-with-a-long-name', purpose: 'Labels that would overlap' });
    await m.execute({
      type: 'commit',
      contribution: 'Long-named work about the wombat.',
      title: 'a commit whose title is long enough to reach the next one',
    });
    await m.execute({ type: 'switch', name: 'main' });
  } finally {
    m.close();
  }
}

const suite = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn(`test/adapters/serve/daemon.browser.test.ts skipped: ${NO_CHROMIUM}`);

suite(
  hasChromium ? 'the page against gctx serve, in Chromium' : `the page against gctx serve (skipped: ${NO_CHROMIUM})`,
  () => {
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
      const cards = await page
        .locator('#branch-list > li')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-branch')));
      expect(cards).toEqual(['main', 'feature-x', 'a-branch-with-a-long-name']);
      expect(await page.locator('[data-branch="feature-x"] dd code').first().innerText()).toBe('main');
      const titles = await page.locator('#commit-list > li .title').allInnerTexts();
      expect(titles).toEqual([
        'a commit whose title is long enough to reach the next one',
        'feature step 1',
        'main step 4',
        'main step 3',
        'main step 2',
        'main step 1',
      ]);
      await page.locator('#graph-box svg').waitFor();
      expect(await page.locator('#graph-box svg').textContent()).toContain('feature step 1');
      expect(await page.locator('#objectives').innerText()).toContain('Look at the memory in a browser');
    });

    it('shows a commit another process makes, without a reload', async () => {
      await markWindow(page, 'still here');
      const navigations = w.navigations.length;
      const committed = gctx(dir, [
        'commit',
        'Made in a terminal while the page was open.',
        '--title',
        'live from another process',
      ]);
      expect(committed.code).toBe(0);
      const first = page.locator('#commit-list > li').first();
      await first.filter({ hasText: 'live from another process' }).waitFor();
      expect(await first.locator('.badge.new').count()).toBe(1);
      await page.locator('#graph-box svg text', { hasText: 'live from another process' }).first().waitFor();
      expect(await windowMark(page)).toBe('still here');
      expect(w.navigations.length).toBe(navigations);
    });

    it('draws the history with no label over another label or over a branch line', async () => {
      // Run in the page (plain JavaScript: the tests have no DOM types).
      const overlaps = (await page.evaluate(`(() => {
      const svg = document.querySelector('#graph-box svg');
      const box = (e) => e.getBoundingClientRect();
      const labels = [...svg.querySelectorAll('rect.commit-label-bkg, rect.branchLabelBkg')].map((e) => ({ what: (e.nextElementSibling ?? e.parentElement)?.textContent, r: box(e) }));
      const marks = [...svg.querySelectorAll('line.branch, path.arrow, circle.commit')].map((e) => ({ what: e.getAttribute('class'), r: box(e) }));
      const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const found = [];
      labels.forEach((a, i) => {
        for (const b of labels.slice(i + 1)) if (meet(a.r, b.r)) found.push(a.what + ' / ' + b.what);
        for (const b of marks) if (meet(a.r, b.r)) found.push(a.what + ' / ' + b.what);
      });
      return { found, labels: labels.length };
    })()`)) as { found: string[]; labels: number };
      expect(overlaps.labels).toBeGreaterThan(8);
      expect(overlaps.found).toEqual([]);
    });

    it('keeps every branch and commit label at WCAG AA contrast, light and dark', async () => {
      for (const colorScheme of ['light', 'dark'] as const) {
        const other = await openPage(browser, { colorScheme });
        try {
          await other.page.goto(address);
          await other.page.locator('#graph-box svg').waitFor();
          const ratios = (await other.page.evaluate(`(() => {
          const svg = document.querySelector('#graph-box svg');
          const lum = (c) => {
            const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
            return 0.2126 * r + 0.7152 * g + 0.0722 * b;
          };
          const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
          const fill = (e) => getComputedStyle(e).fill;
          const out = [];
          [...svg.querySelectorAll('rect.branchLabelBkg')].forEach((rect, i) => {
            const text = svg.querySelectorAll('g.branchLabel')[i].querySelector('tspan');
            out.push([text.textContent, ratio(fill(text), fill(rect))]);
          });
          [...svg.querySelectorAll('rect.commit-label-bkg')].forEach((rect) => {
            const text = rect.parentElement.querySelector('text');
            out.push([text.textContent, getComputedStyle(rect).opacity === '1' ? ratio(fill(text), fill(rect)) : 0]);
          });
          return out;
        })()`)) as Array<[string, number]>;
          expect(ratios.length).toBeGreaterThan(8);
          for (const [label, r] of ratios) expect(r, `${colorScheme}: ${label}`).toBeGreaterThanOrEqual(4.5);
        } finally {
          await other.close();
        }
      }
    });

    it('marks what a search matched once, without the guillemets', async () => {
      await page.locator('#q').fill('wombat');
      await page.locator('#q').press('Enter');
      await page.locator('#search-results > li').first().waitFor();
      expect(await page.locator('#search-results .snippet mark').allInnerTexts()).toEqual(['wombat']);
      expect(await page.locator('#search-results').innerText()).not.toMatch(/[«»]/);
    });

    it('shows files given without line counts without counts', async () => {
      expect(gctx(dir, ['commit', 'Named its files.', '--title', 'with files', '--files', 'src/named.ts']).code).toBe(
        0,
      );
      const first = page.locator('#commit-list > li').first();
      await first.filter({ hasText: 'with files' }).waitFor();
      const meta = await first.locator('.meta').innerText();
      expect(meta).toContain('1 file');
      expect(meta).not.toMatch(/\+0|−0/);
      await first.locator('summary').click();
      expect(await first.locator('.files li').innerText()).toBe('src/named.ts');
    });

    it("marks the open MCP session's state and the branches' states; an ended session is gone", async () => {
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
      const init = await raw(d.state, {
        method: 'POST',
        path: '/mcp',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page-test', version: '1' } },
        }),
      });
      const sid = init.headers['mcp-session-id'] as string;
      const call = await raw(d.state, {
        method: 'POST',
        path: '/mcp',
        headers: { ...headers, 'Mcp-Session-Id': sid },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'context', arguments: {} },
        }),
      });
      expect(call.status).toBe(200);
      const listed = page.locator(`#sessions [data-session="mcp-http-${sid}"]`);
      await listed.waitFor();
      expect(await listed.innerText()).toContain('(mcp)');
      await page.locator('#machines').scrollIntoViewIfNeeded();
      await page.locator('#machine-session svg .gccCurrent', { hasText: 'ready' }).waitFor();
      expect(await page.locator('#marks-session').innerText()).toContain('marked');
      await page.locator('#machine-branch svg .gccCurrent').first().waitFor();
      const branchStates = await page.locator('#machine-branch svg .gccCurrent').allTextContents();
      expect(branchStates.map((t) => t.trim())).toEqual(['active']);
      expect((await raw(d.state, { method: 'DELETE', path: '/mcp', headers: { 'Mcp-Session-Id': sid } })).status).toBe(
        200,
      );
      await listed.waitFor({ state: 'detached' });
      expect(await page.locator('#sessions').innerText()).not.toContain('()');
    });

    it('loaded nothing from anywhere else and logged no errors', () => {
      expect(w.requests.filter((u) => !u.startsWith(d.state.url))).toEqual([]);
      expect(w.errors).toEqual([]);
      expect(w.dialogs).toEqual([]);
    });
  },
);
