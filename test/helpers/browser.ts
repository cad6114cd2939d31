import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/*
 * Debian's chromium (apt-get install chromium) driven by playwright-core, for the browser tests (npm run
 * test:browser). Every request a page makes is recorded; one to any origin but the allowed ones is aborted and
 * listed in `foreign` (the tests expect none). Console errors and page errors are collected in `errors`.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserOptions {
  /** Origins the pages may reach (the server's); data: URLs are always allowed. */
  readonly origins: readonly string[];
  readonly viewport?: { width: number; height: number };
  readonly colorScheme?: 'light' | 'dark';
  /** Below 1 makes smaller screenshots of the same layout (the docs' pictures). */
  readonly deviceScaleFactor?: number;
}

export interface OpenBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly requested: string[];
  readonly foreign: string[];
  /** Console errors and uncaught page errors (a CSP or Trusted Types violation shows here). */
  readonly errors: string[];
  /** `errors` without the browser's own "Failed to load resource" lines (an API error answer is not a page error). */
  pageErrors(): string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function openBrowser(opts: BrowserOptions): Promise<OpenBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'tars-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: opts.viewport ?? { width: 1280, height: 900 },
    colorScheme: opts.colorScheme ?? 'light',
    deviceScaleFactor: opts.deviceScaleFactor ?? 1,
    ignoreHTTPSErrors: false,
  });
  const requested: string[] = [];
  const foreign: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    requested.push(url);
    if (url.startsWith('data:') || opts.origins.some((o) => url.startsWith(`${o}/`) || url === o)) await route.continue();
    else {
      foreign.push(url);
      await route.abort();
    }
  });
  const watch = (page: Page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    return page;
  };
  context.on('page', watch);
  const page = watch(context.pages()[0] ?? (await context.newPage()));
  return {
    context,
    page,
    requested,
    foreign,
    errors,
    pageErrors: () => errors.filter((e) => !e.startsWith('Failed to load resource')),
    newPage: async () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core (from npm, put into the page through the DevTools protocol: the page's CSP allows no inline
 * script, rightly) on the page as it is; returns the serious and critical violations.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const result = (await page.evaluate(() =>
    (globalThis as any).axe.run((globalThis as any).document, {
      resultTypes: ['violations'],
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }),
  )) as { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
}
