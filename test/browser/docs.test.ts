import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { allRoutes } from '../../src/app';
import { startTestApp, type TestApp } from '../helpers/app';

/*
 * The /docs page in a real headless browser: Debian's chromium (apt-get install chromium) driven by
 * playwright-core. Run by `npm run test:docs` (not by npm test: it needs the browser). Every request the
 * page makes is recorded, and any to a host other than the server's loopback address is aborted and fails
 * the test. The screenshot is written to a temporary directory, printed at the end.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('the /docs page in headless chromium', function () {
  this.timeout(120_000);
  let app: TestApp;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const foreign: string[] = [];
  const errors: string[] = [];
  let shots: string;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    app = await startTestApp();
    profile = mkdtempSync(join(tmpdir(), 'tars-chromium-'));
    shots = mkdtempSync(join(tmpdir(), 'tars-docs-screenshots-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    const origin = new URL(app.url).origin;
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      requested.push(url);
      if (url.startsWith(`${origin}/`) || url.startsWith('data:')) await route.continue();
      else {
        foreign.push(url);
        await route.abort();
      }
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await context?.close();
    await app?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('when the page is opened, then it renders one operation per route of the route table, and no request leaves the machine', async () => {
    await page.goto(`${app.url}/docs`);
    const routes = allRoutes(app.deps);
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('.opblock').length >= n, routes.length, {
      timeout: 30_000,
    });
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (b) =>
          `${b.querySelector('.opblock-summary-method')?.textContent?.toLowerCase()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    );
    const expected = routes.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    expect([...shown].sort()).to.deep.equal([...expected].sort());
    expect(await page.textContent('.info .title')).to.include('TARS API');
    expect(await page.$$eval('.opblock-tag', (tags) => tags.map((t) => t.getAttribute('data-tag')))).to.include('Directory');
    expect(requested.some((u) => u.endsWith('/v2/openapi.json'))).to.equal(true);
    expect(foreign, 'requests to other hosts').to.deep.equal([]);
    expect(errors, 'console errors (a CSP violation would show here)').to.deep.equal([]);
    await page.screenshot({ path: join(shots, 'docs.png') });
  });

  it('when every operation is opened, then each shows its parameters, body and responses without a resolver error', async function () {
    const n = allRoutes(app.deps).length;
    // Each batch of ten has its own 30 s waits below; the whole walk may take a minute or more on a loaded machine
    // (CI once needed more than 120 s for about 100 operations), so the test's own limit grows with the routes.
    this.timeout(60_000 + n * 6_000);
    // Ten at a time, closed again after: with all of them open at once (about 90) the page stayed busy for
    // minutes. Functions below run in the page (this project's TypeScript has no DOM types, hence globalThis as any).
    const toggle = (from: number) =>
      page.evaluate(
        (start) =>
          (globalThis as any).document
            .querySelectorAll('.opblock .opblock-summary-control')
            .forEach((s: any, i: number) => i >= start && i < start + 10 && s.click()),
        from,
      );
    for (let from = 0; from < n; from += 10) {
      await toggle(from);
      await page.waitForFunction(
        (count) => (globalThis as any).document.querySelectorAll('.opblock.is-open .responses-table').length >= count,
        Math.min(10, n - from),
        { timeout: 30_000, polling: 200 },
      );
      await page.waitForTimeout(300); // references resolve lazily, after the section appears
      expect(
        await page.locator('.errors-wrapper').count(),
        (await page.locator('.errors-wrapper').allTextContents()).join('\n').slice(0, 2000),
      ).to.equal(0);
      expect(await page.textContent('body')).not.to.include('Could not resolve');
      await toggle(from);
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.opblock.is-open').length === 0, undefined, {
        timeout: 30_000,
        polling: 200,
      });
    }
    await page.reload();
    await page.waitForSelector('.opblock');
  });

  it('when an operation is tried out, then the page calls the server and shows its answer; a screenshot is taken', async () => {
    const health = page.locator('.opblock', { has: page.locator('[data-path="/healthz"]') }).first();
    await health.locator('.opblock-summary').click();
    await health.locator('button.try-out__btn').click();
    await health.locator('button.execute').click();
    await health.locator('.live-responses-table tbody .response-col_status').first().waitFor({ timeout: 15_000 });
    expect((await health.locator('.live-responses-table tbody .response-col_status').first().textContent())?.trim()).to.equal('200');
    expect(await health.locator('.live-responses-table .highlight-code').first().textContent()).to.include('"status": "ok"');

    await health.screenshot({ path: join(shots, 'tried-out.png') });

    // A request body whose schema refers into other components (common#/$defs/…): resolved, no resolver error.
    const create = page.locator('.opblock', { has: page.locator('[data-path="/v2/admin/branches"]') }).first();
    await create.locator('.opblock-summary').click();
    await create.locator('.opblock-section-request-body').waitFor();
    await create.locator('.opblock-section-request-body button', { hasText: 'Schema' }).click();
    await create.locator('.opblock-section-request-body .model-box').first().click();
    await page.waitForTimeout(500);
    expect(await create.locator('.opblock-section-request-body').textContent()).to.include('timezone');
    expect(await page.locator('.errors-wrapper').count(), 'Swagger UI resolver errors').to.equal(0);
    await create.screenshot({ path: join(shots, 'request-schema.png') });

    for (const file of ['docs.png', 'tried-out.png', 'request-schema.png'])
      expect(statSync(join(shots, file)).size, file).to.be.greaterThan(10_000);
    expect(foreign, 'requests to other hosts').to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    console.log(`      screenshots: ${shots}/docs.png, tried-out.png, request-schema.png`);
  });
});
