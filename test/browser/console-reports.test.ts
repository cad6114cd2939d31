import { readFileSync } from 'node:fs';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { readSheet } from 'read-excel-file/node';
import { openBrowser, seriousAxeViolations, type OpenBrowser } from '../helpers/browser';
import { LAB_ZONE, ROLE_IDS, startConsoleSite, type ConsoleSite, type SiteUser } from '../helpers/console-site';
import { download } from '../helpers/sheets';
import { until } from '../helpers/until';

/*
 * The console's report screens (issue 31) in chromium against the real program, on the recorded Asterisk run
 * ingested as today's calls: the figures on screen are the API's for the same request, to the unit; the
 * downloads are the API's own files; the API's validation messages stand next to the field they name.
 */
const SHOTS = process.env.TARS_SCREENSHOTS_DIR
  ? resolve(process.env.TARS_SCREENSHOTS_DIR)
  : mkdtempSync(join(tmpdir(), 'tars-console-shots-'));

/** "1:02:05" or "4:07" → seconds. */
const seconds = (text: string) => text.split(':').reduce((s, part) => s * 60 + Number(part), 0);
/** "1,234" (the browser's grouping) → 1234. */
const count = (text: string) => Number(text.replace(/[^\d]/g, ''));
const dayIn = (zone: string, at: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(at));

interface StatsRow {
  queueName: string;
  date: string;
  totalInbound: number;
  inboundAnswered: number;
  answeredUnder30: number;
  abandons: number;
  abandonsUnder10: number;
  exitTimeout: number;
  exitKeypress: number;
  talkTime: number;
  waitTime: number;
  maxWaitTime: number;
}

/** The report table as figures: each row's queue, period and numbers, read back from what the screen shows. */
async function tableOnScreen(page: Page) {
  const rows = page.locator('.report-table tbody tr');
  const out: (string | number)[][] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    const [period = '', ...cells] = await row.locator('td').allInnerTexts();
    out.push([await row.locator('th').innerText(), period, ...cells.slice(0, 7).map(count), ...cells.slice(7).map(seconds)]);
  }
  return out;
}

const tableOfApi = (rows: readonly StatsRow[]) =>
  rows.map((r) => [
    r.queueName,
    r.date,
    r.totalInbound,
    r.inboundAnswered,
    r.answeredUnder30,
    r.abandons,
    r.abandonsUnder10,
    r.exitTimeout,
    r.exitKeypress,
    r.talkTime,
    r.waitTime,
    r.maxWaitTime,
  ]);

describe('the console in chromium: queue statistics (issue 31)', function () {
  this.timeout(300_000);
  let site: ConsoleSite;
  let browser: OpenBrowser;
  let page: Page;
  let supervisor: SiteUser;
  let queueIds: number[];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    site = await startConsoleSite();
    // A reports admin: the queue reports, but not the directory's queue list (GET /v2/queues).
    supervisor = await site.makeUser(ROLE_IDS.reports, { email: 'reports@asterisk-lab.test' });
    const live = await site.call('GET', '/v2/reporting/queues/live', { token: supervisor.token, query: { tenantId: 1 } });
    queueIds = (live.body.queues as { queueId: number }[]).map((q) => q.queueId);
    browser = await openBrowser({ origins: [site.url] });
    page = browser.page;
    await page.goto(`${site.url}/sign-in?next=${encodeURIComponent('/reports/queues')}`);
    await page.getByLabel('E-mail').fill(supervisor.email);
    await page.getByLabel('Password', { exact: true }).fill(supervisor.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Queue statistics' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });

  const api = (body: object) => site.call<{ results: StatsRow[] }>('POST', '/v2/reporting/queues/stats', { token: supervisor.token, body });
  const show = async (opts: { from: string; to: string; rows: 'By day' | 'By hour' | 'Whole range' }) => {
    await page.getByLabel('Range', { exact: true }).selectOption('custom');
    await page.getByLabel('From').fill(opts.from);
    await page.getByLabel('To (included)').fill(opts.to);
    await page.getByLabel(opts.rows).check();
    await page.getByRole('button', { name: 'Show' }).click();
  };
  const tableShows = async (expected: (string | number)[][]) => {
    await until(async () => JSON.stringify(await tableOnScreen(page)) === JSON.stringify(expected), {
      what: 'the table to show the API answer',
      ms: 10_000,
    }).catch(async () => expect(await tableOnScreen(page)).to.deep.equal(expected));
  };

  it('when the screen opens, then it shows today in the tenant zone for every queue, each figure the API gives', async () => {
    const today = dayIn(LAB_ZONE, Date.now());
    const answer = await api({ queueId: queueIds, startDate: today, endDate: today, distribution: 'daily' });
    expect(answer.status).to.equal(201);
    await tableShows(tableOfApi(answer.body.results));
    await page.getByRole('heading', { name: new RegExp(`${queueIds.length} queues, ${today} \\(${LAB_ZONE}`) }).waitFor();
    expect(await page.getByText(`Days (in ${LAB_ZONE}`).count()).to.equal(1);
  });

  it('when a day is shown by hour, then the table is the API hourly rows and the chart draws their sums', async () => {
    const day = dayIn(LAB_ZONE, Date.now() - 10 * 60_000); // the day of the run's last call
    await show({ from: day, to: day, rows: 'By hour' });
    const answer = await api({ queueId: queueIds, startDate: day, endDate: day, distribution: 'hourly' });
    const rows = answer.body.results;
    expect(rows.reduce((n, r) => n + r.totalInbound, 0)).to.be.greaterThan(0);
    await tableShows(tableOfApi(rows));
    expect(rows[0]?.date).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:00$/);
    // uPlot's legend lists the series; the canvas is drawn (the table is what screen readers read).
    const legend = await page.locator('.chart .u-legend').innerText();
    for (const series of ['Offered', 'Answered', 'Abandoned']) expect(legend).to.contain(series);
    expect(await page.locator('.chart canvas').count()).to.equal(1);
    expect(await page.locator('.chart [aria-hidden="true"] canvas').count()).to.equal(1);
    await page.screenshot({ path: join(SHOTS, 'console-queue-stats.png') });
  });

  it('when the report is downloaded as CSV and XLSX, then the files are the API own exports of the same request', async () => {
    const day = dayIn(LAB_ZONE, Date.now() - 10 * 60_000);
    await show({ from: day, to: day, rows: 'By day' });
    const body = { queueId: queueIds, startDate: day, endDate: day, distribution: 'daily' };
    await tableShows(tableOfApi((await api(body)).body.results));
    for (const format of ['csv', 'xlsx'] as const) {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: `Download ${format.toUpperCase()}` }).click(),
      ]);
      const onScreen = readFileSync(await file.path());
      const ofApi = await download(site.url, `/v2/reporting/queues/stats?format=${format}`, supervisor.token, { body });
      expect(ofApi.status).to.equal(201);
      expect(file.suggestedFilename()).to.match(new RegExp(`\\.${format}$`));
      if (format === 'csv') expect(onScreen.toString('utf8')).to.equal(ofApi.bytes.toString('utf8'));
      else expect(await readSheet(onScreen)).to.deep.equal(await readSheet(ofApi.bytes));
      await page
        .getByRole('status')
        .filter({ hasText: `Saved as ${file.suggestedFilename()}` })
        .waitFor();
    }
  });

  it('when the range ends before it starts, then the API message stands under the field it names and the last report stays', async () => {
    const before = await tableOnScreen(page);
    await show({ from: '2026-03-10', to: '2026-03-01', rows: 'By day' });
    const refused = await api({ queueId: queueIds, startDate: '2026-03-10', endDate: '2026-03-01', distribution: 'daily' });
    expect(refused.status).to.equal(400);
    const problem = (refused.body as unknown as { validationErrors?: string[]; message: string }).validationErrors?.[0] ?? '';
    expect(problem).to.match(/^endDate|^startDate/);
    const field = problem.startsWith('endDate') ? 'To (included)' : 'From';
    await page.locator('.field-error', { hasText: problem }).waitFor();
    expect(await page.getByLabel(field).getAttribute('aria-invalid')).to.equal('true');
    expect(await tableOnScreen(page)).to.deep.equal(before);
  });

  it('when no queue is ticked, then the API refusal is shown at the queues', async () => {
    for (const box of await page.locator('input[name=queue]').all()) await box.uncheck();
    await page.getByRole('button', { name: 'Show' }).click();
    const refused = await api({ queueId: [], startDate: '2026-03-01', endDate: '2026-03-01' });
    const problem = (refused.body as unknown as { validationErrors: string[] }).validationErrors[0] as string;
    expect(problem).to.match(/^queueId/);
    await page.locator('#stats-queue-error', { hasText: problem }).waitFor();
    for (const box of await page.locator('input[name=queue]').all()) await box.check();
  });

  for (const theme of ['light', 'dark'] as const)
    for (const size of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ])
      it(`when the report is checked by axe-core in ${theme} mode at ${size.width} px, then it has no serious or critical violation`, async () => {
        await page.setViewportSize(size);
        await site.call('PATCH', '/v2/users/user-settings/dark-mode', {
          token: supervisor.token,
          body: { darkMode: theme === 'dark' ? 1 : 0 },
        });
        await page.reload();
        await page.getByRole('heading', { name: 'Queue statistics' }).waitFor();
        const day = dayIn(LAB_ZONE, Date.now() - 10 * 60_000);
        await show({ from: day, to: day, rows: 'By hour' });
        await page.locator('.chart canvas').waitFor();
        expect(await page.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)).to.equal(theme);
        expect(await seriousAxeViolations(page)).to.deep.equal([]);
        // Nothing of the page runs wider than a phone's screen but the table's own scrolling region.
        const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
        expect(overflow).to.be.at.most(size.width);
        if (size.width < 500 && theme === 'dark') await page.screenshot({ path: join(SHOTS, `console-queue-stats-phone-${theme}.png`) });
        expect(browser.pageErrors()).to.deep.equal([]);
      });
});
