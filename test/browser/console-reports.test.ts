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
import type { SchemaTypes } from '../../src/validation/schema-types';
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

type StatsRow = SchemaTypes['queue-stats']['results'][number];

/** A table's rows as the screen shows them: the row header's text, then each cell's (the table named by its caption). */
async function cellsOf(page: Page, caption: RegExp): Promise<string[][]> {
  const rows = page.locator('table', { has: page.locator('caption', { hasText: caption }) }).locator('tbody tr');
  const out: string[][] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    if ((await row.locator('td.empty').count()) > 0) continue;
    out.push([await row.locator('th').innerText(), ...(await row.locator('td').allInnerTexts())]);
  }
  return out;
}

/** The statistics table as figures: each row's queue, period and numbers, read back from what the screen shows. */
async function tableOnScreen(page: Page) {
  return (await cellsOf(page, /^Statistics by queue/)).map(([queue = '', period = '', ...cells]) => [
    queue,
    period,
    ...cells.slice(0, 7).map(count),
    ...cells.slice(7).map(seconds),
  ]);
}

/** "58.4 %" → 58.4, "–" → null. */
const percentOf = (text: string) => (text.trim() === '–' ? null : Number(text.replace(/[^\d.]/g, '')));

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
  let support: number;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    site = await startConsoleSite();
    // A reports admin: the queue reports, but not the directory's queue list (GET /v2/queues).
    supervisor = await site.makeUser(ROLE_IDS.reports, { email: 'reports@asterisk-lab.test' });
    const live = await site.call('GET', '/v2/reporting/queues/live', { token: supervisor.token, query: { tenantId: 1 } });
    queueIds = (live.body.queues as { queueId: number }[]).map((q) => q.queueId);
    support = (live.body.queues as { queueId: number; name: string }[]).find((q) => q.name === 'Support')?.queueId as number;
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
  const show = async (opts: { from: string; to: string; rows?: 'By day' | 'By hour' | 'Whole range' }) => {
    await page.getByLabel('Range', { exact: true }).selectOption('custom');
    await page.getByLabel('From').fill(opts.from);
    await page.getByLabel('To (included)').fill(opts.to);
    if (opts.rows) await page.getByLabel(opts.rows).check();
    await page.getByRole('button', { name: 'Show' }).click();
  };
  /** Waits until what `read` takes from the screen equals `expected` (then, or at 10 s, compares them). */
  const shows = async (read: () => Promise<unknown>, expected: unknown) => {
    await until(async () => JSON.stringify(await read()) === JSON.stringify(expected), {
      what: 'the screen to show the API answer',
      ms: 10_000,
    }).catch(async () => expect(await read()).to.deep.equal(expected));
  };
  const tableShows = (expected: (string | number)[][]) => shows(() => tableOnScreen(page), expected);
  /** A screen opened afresh (the session cookie stays): each test starts from the screen as a user opens it. */
  const open = async (path: string, heading: string) => {
    await page.goto(`${site.url}${path}`);
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    // The screen opens on today's report: wait for it, or a click on Show while it loads would be ignored.
    await page.locator('.report h2').waitFor();
  };
  const lastCallDay = () => dayIn(LAB_ZONE, Date.now() - 10 * 60_000);

  it('when the screen opens, then it shows today in the tenant zone for every queue, each figure the API gives', async () => {
    await open('/reports/queues', 'Queue statistics');
    const today = dayIn(LAB_ZONE, Date.now());
    const answer = await api({ queueId: queueIds, startDate: today, endDate: today, distribution: 'daily' });
    expect(answer.status).to.equal(201);
    await tableShows(tableOfApi(answer.body.results));
    await page.getByRole('heading', { name: new RegExp(`${queueIds.length} queues, ${today} \\(${LAB_ZONE}`) }).waitFor();
    expect(await page.getByText(`Days (in ${LAB_ZONE}`).count()).to.equal(1);
  });

  it('when a day is shown by hour, then the table is the API hourly rows and the chart draws their sums', async () => {
    await open('/reports/queues', 'Queue statistics');
    const day = lastCallDay(); // the day of the run's last call
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

  it('when a report has more rows than a table page, then the table shows them a page at a time, together the API rows', async () => {
    await open('/reports/queues', 'Queue statistics');
    const to = lastCallDay();
    const from = dayIn(LAB_ZONE, Date.parse(`${to}T12:00:00Z`) - 6 * 86_400_000);
    await show({ from, to, rows: 'By hour' });
    const answer = await api({ queueId: queueIds, startDate: from, endDate: to, distribution: 'hourly' });
    const expected = tableOfApi(answer.body.results);
    expect(expected.length).to.be.greaterThan(366);
    await tableShows(expected.slice(0, 366));
    const pager = page.getByRole('navigation', { name: /^Rows of Statistics by queue/ });
    expect(await pager.innerText()).to.contain(`Rows 1–366 of ${expected.length}`);
    expect(await pager.getByRole('button', { name: 'Previous rows' }).isDisabled()).to.equal(true);
    await pager.getByRole('button', { name: 'Next rows' }).click();
    await tableShows(expected.slice(366, 732));
    expect(await pager.innerText()).to.contain(`Rows 367–${Math.min(732, expected.length)} of ${expected.length}`);
  });

  it('when the report is downloaded as CSV and XLSX, then the files are the API own exports of the same request', async () => {
    await open('/reports/queues', 'Queue statistics');
    const day = lastCallDay();
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

  it('when service level is shown with two more thresholds, then each queue has a row per threshold with the API figures', async () => {
    await open('/reports/queues', 'Queue statistics');
    // Reached by the menu, as a user does: its Reports group opened first.
    await page.getByRole('button', { name: 'Reports' }).click();
    await page.getByRole('link', { name: 'Service level' }).click();
    await page.getByRole('heading', { name: 'Service level', exact: true }).waitFor();
    const day = lastCallDay();
    await page.getByLabel('Seconds (up to 8, commas between)').fill('60, 120');
    await show({ from: day, to: day, rows: 'Whole range' });
    const answer = await site.call('POST', '/v2/reporting/queues/service-level', {
      token: supervisor.token,
      body: { queueId: queueIds, startDate: day, endDate: day, distribution: 'totals', serviceLevelThresholds: [60, 120] },
    });
    expect(answer.status).to.equal(201);
    type Row = SchemaTypes['queue-service-level']['results'][number];
    const expected = (answer.body.results as Row[]).flatMap((r) =>
      r.levels.map((l) => [
        r.queueName,
        r.date,
        r.offered,
        r.answered,
        r.abandoned,
        r.shortAbandons,
        l.seconds,
        l.answeredWithin,
        l.abandonedWithin,
        l.serviceLevel,
        l.serviceLevel2,
        l.serviceLevelOffered,
      ]),
    );
    expect(expected).to.have.length(queueIds.length * 3);
    expect(expected.some((r) => typeof r[9] === 'number' && r[9] > 0)).to.equal(true);
    await shows(
      async () =>
        (await cellsOf(page, /^Service level by queue/)).map(([queue = '', period = '', ...c]) => [
          queue,
          period,
          ...c.slice(0, 4).map(count),
          Number.parseInt(c[4] ?? '', 10),
          ...c.slice(5, 7).map(count),
          ...c.slice(7).map(percentOf),
        ]),
      expected,
    );
  });

  it('when lost callers are shown, then the summary and each page of the list are the API answer, anonymous callers named so', async () => {
    await open('/reports/lost-calls', 'Lost callers');
    const day = lastCallDay();
    await show({ from: day, to: day });
    const ask = (pageNo: number) =>
      site.call('POST', '/v2/reporting/queues/lost-calls', {
        token: supervisor.token,
        body: { queueId: queueIds, startDate: day, endDate: day, recoveryWindowHours: 24, page: pageNo, recordsPerPage: 50 },
      });
    const first = await ask(1);
    expect(first.status).to.equal(201);
    expect(first.body.total).to.be.greaterThan(0);
    type Summary = SchemaTypes['queue-lost-calls']['summary'][number];
    await shows(
      async () =>
        (await cellsOf(page, /^Lost callers by queue/)).map(([q = '', ...c]) => [
          q,
          ...c.slice(0, 6).map(count),
          c[6] === '–' ? null : seconds(c[6] ?? ''),
        ]),
      (first.body.summary as Summary[]).map((x) => [
        x.queueName,
        x.lost,
        x.short,
        x.recovered,
        x.recoveredCalledBack,
        x.recoveredCalledIn,
        x.unrecovered,
        x.avgRecoverySeconds,
      ]),
    );
    type Lost = SchemaTypes['queue-lost-calls']['records'][number];
    const words: Record<string, string> = { abandon: 'Hung up', timeout: 'Timed out', keypress: 'Left by key press', empty: 'No agents' };
    const listOf = (records: Lost[]) =>
      records.map((r) => [
        r.queueName,
        r.callerIdNum || 'Anonymous',
        `${words[r.outcome]}${r.short ? ' (short)' : ''}`,
        r.waitTime,
        r.position,
        r.recovery === null
          ? 'Not yet'
          : `${r.recovery.how === 'calledBack' ? `Called back by ${r.recovery.peerName}` : 'Called in again'} ${r.recovery.afterSeconds}`,
      ]);
    const listOnScreen = async () =>
      (await cellsOf(page, /^Lost callers, /)).map(([, queue = '', caller = '', outcome = '', wait = '', position = '', recovery = '']) => [
        queue,
        caller,
        outcome,
        seconds(wait),
        position === '–' ? null : count(position),
        recovery === 'Not yet' ? recovery : recovery.replace(/ after (\S+)$/, (_m, d: string) => ` ${seconds(d)}`),
      ]);
    await shows(listOnScreen, listOf(first.body.records as Lost[]));
    if (first.body.maxPage > 1) {
      await page.getByRole('button', { name: 'Next page' }).click();
      await shows(listOnScreen, listOf((await ask(2)).body.records as Lost[]));
      await page.getByText(`Page 2 of ${first.body.maxPage}, ${first.body.total} records`, { exact: true }).waitFor();
    }
  });

  it('when agents are shown for the whole range, then each agent row per queue and across queues is the API answer', async () => {
    await open('/reports/agents', 'Agents');
    const day = lastCallDay();
    await show({ from: day, to: day, rows: 'Whole range' });
    const answer = await site.call('POST', '/v2/reporting/queues/agents', {
      token: supervisor.token,
      body: { queueId: queueIds, startDate: day, endDate: day, distribution: 'totals' },
    });
    expect(answer.status).to.equal(201);
    type Agent = SchemaTypes['queue-agents']['results'][number];
    const rows = answer.body.results as Agent[];
    expect(rows.some((r) => r.queueName === null && r.answered > 0)).to.equal(true);
    await shows(
      async () =>
        (await cellsOf(page, /^Agents by queue/)).map(([agent = '', queue = '', period = '', ...c]) => [
          agent,
          queue,
          period,
          ...c.slice(0, 5).map(count),
          seconds(c[5] ?? ''),
          c[6] === '–' ? null : seconds(c[6] ?? ''),
          ...c.slice(7, 10).map(seconds),
          percentOf(c[10] ?? ''),
          count(c[11] ?? ''),
        ]),
      rows.map((r) => [
        r.name || r.peerName,
        r.queueName ?? 'All chosen queues',
        r.date,
        r.answered,
        r.agentHangups,
        r.callerHangups,
        r.transfers,
        r.ringNoAnswer,
        r.talkTime,
        r.avgTalkTime,
        r.loginTime,
        r.availableTime,
        r.pausedTime,
        r.occupancy,
        r.outbound,
      ]),
    );
  });

  it('when agent sessions are shown, then the table lists every login and pause the API gives and the timeline draws them', async () => {
    await open('/reports/agent-sessions', 'Agent sessions');
    const day = lastCallDay();
    await show({ from: day, to: day });
    const answer = await site.call('POST', '/v2/reporting/queues/agent-sessions', {
      token: supervisor.token,
      body: { queueId: queueIds, startDate: day, endDate: day },
    });
    expect(answer.status).to.equal(201);
    type Line = SchemaTypes['queue-agent-sessions'][number];
    const lines = answer.body as Line[];
    const expected = lines.flatMap((l) => [
      ...l.sessions.map((s) => [l.name || l.peerName, l.queueName, 'Logged in', s.seconds, '']),
      ...l.pauses.map((p) => [l.name || l.peerName, l.queueName, 'Paused', p.seconds, p.reason || 'Paused']),
    ]);
    expect(expected.some((r) => r[2] === 'Paused')).to.equal(true);
    await shows(
      async () =>
        (await cellsOf(page, /^Logins and pauses/)).map(([agent = '', queue = '', kind = '', , , length = '', reason = '']) => [
          agent,
          queue,
          kind,
          seconds(length),
          reason,
        ]),
      expected,
    );
    expect(await page.locator('.timeline-session').count()).to.equal(lines.reduce((n, l) => n + l.sessions.length, 0));
    expect(await page.locator('.timeline-pause').count()).to.equal(lines.reduce((n, l) => n + l.pauses.length, 0));
    await page.screenshot({ path: join(SHOTS, 'console-agent-sessions.png') });
  });

  it('when agent availability of one queue is shown, then each member row is the API answer, off-duty time by reason', async () => {
    await open('/reports/agent-availability', 'Agent availability');
    const day = lastCallDay();
    await page.getByLabel('Support').check();
    await show({ from: day, to: day });
    const answer = await site.call('POST', '/v2/reporting/queues/agent-availability', {
      token: supervisor.token,
      body: { queueId: support, startDate: day, endDate: day },
    });
    expect(answer.status).to.equal(201);
    type Agent = SchemaTypes['agent-availability'][number];
    const agents = answer.body as Agent[];
    expect(agents.length).to.be.greaterThan(1);
    const reasons = [...new Set(agents.flatMap((a) => a.offDutyTimes.map((o) => o.offDutyReason)))];
    expect(reasons.length).to.be.greaterThan(0);
    await page.locator('.report h2', { hasText: 'Support' }).waitFor();
    await shows(
      async () => (await cellsOf(page, /^Agent availability/)).map(([agent = '', ...c]) => [agent, ...c.map(seconds)]),
      agents.map((a) => [
        a.name || a.peerName,
        a.totalAvailableTime,
        a.totalUnavailableTime,
        a.queueTalkTime,
        a.nonQueueTalkTime,
        a.dndTimes,
        ...reasons.map((r) => a.offDutyTimes.find((o) => o.offDutyReason === r)?.offDutyTime ?? 0),
      ]),
    );
  });

  it('when a report is saved and scheduled from the screen and run now, then its XLSX e-mail reaches the SMTP sink and its run is listed', async () => {
    await open('/reports/service-level', 'Service level');
    const day = lastCallDay();
    await show({ from: day, to: day, rows: 'By day' });
    await page.locator('.report h2', { hasText: day }).waitFor();
    await page.getByText('Save as filter or schedule').click();
    const name = 'Service level for the floor lead';
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('E-mail it on a schedule').check();
    await page.getByLabel('Recipients').fill('not an address');
    await page.getByRole('button', { name: 'Save' }).click();
    // The API's own message, under the field it names; nothing saved.
    await page.locator('.field-error', { hasText: 'recipients must be e-mail addresses separated by commas' }).waitFor();
    const none = await site.call('GET', '/v2/reporting/saved', { token: supervisor.token, query: { tenantId: 1 } });
    expect((none.body.records as { name: string }[]).some((f) => f.name === name)).to.equal(false);
    await page.getByLabel('Recipients').fill('floor-lead@asterisk-lab.test, ops@asterisk-lab.test');
    await page.getByLabel('Every').selectOption('weekly');
    await page.getByLabel('Attachment').selectOption('xlsx');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Saved as “${name}”` })
      .waitFor();

    const saved = await site.call('GET', '/v2/reporting/saved', { token: supervisor.token, query: { tenantId: 1 } });
    const filter = (
      saved.body.records as {
        id: number;
        name: string;
        module: string;
        scheduled: number;
        frequency: string;
        recipients: string;
        apiUrl: string;
        postParams: Record<string, unknown>;
      }[]
    ).find((f) => f.name === name);
    expect(filter).to.include({
      module: 'queue-service-level',
      scheduled: 1,
      frequency: 'weekly',
      apiUrl: '/v2/reporting/queues/service-level',
    });
    expect(filter?.postParams).to.deep.include({ queueId: queueIds, distribution: 'daily', format: 'xlsx' });

    await page.getByRole('link', { name: 'Saved reports' }).click();
    await page.getByRole('heading', { name: 'Saved reports' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(name) });
    expect(await row.locator('td').nth(1).innerText()).to.equal('Every week, to floor-lead@asterisk-lab.test, ops@asterisk-lab.test');
    expect(await row.locator('td').nth(2).innerText()).to.equal('XLSX');
    await row.getByRole('button', { name: `Run now ${name}` }).click();
    const mail = await site.smtp.next();
    expect(mail.to).to.include.members(['floor-lead@asterisk-lab.test', 'ops@asterisk-lab.test']);
    const attachment = mail.parsed.attachments[0];
    expect(attachment?.filename).to.match(/\.xlsx$/);
    expect((await readSheet(attachment?.content as Buffer))[0]?.[0]).to.be.a('string');
    await row
      .getByRole('status')
      .filter({ hasText: /^ ?Sent: / })
      .waitFor();
    await page
      .getByRole('table', { name: new RegExp(`Runs of ${name}`) })
      .getByRole('row')
      .nth(1)
      .filter({ hasText: 'manual' })
      .waitFor();
    const runs = await site.call('GET', `/v2/reporting/saved/${filter?.id}/runs`, { token: supervisor.token });
    expect(runs.body.records[0]).to.include({ kind: 'manual', status: 'sent' });
    expect(await seriousAxeViolations(page)).to.deep.equal([]);
    await page.screenshot({ path: join(SHOTS, 'console-saved-reports.png') });
  });

  it('when the recovery window is out of the API range, then its message stands under that field', async () => {
    await open('/reports/lost-calls', 'Lost callers');
    await page.getByLabel('Window (hours)').fill('500');
    await page.getByRole('button', { name: 'Show' }).click();
    const refused = await site.call('POST', '/v2/reporting/queues/lost-calls', {
      token: supervisor.token,
      body: { queueId: queueIds, startDate: '2026-03-01', endDate: '2026-03-01', recoveryWindowHours: 500 },
    });
    expect(refused.status).to.equal(400);
    const problem = (refused.body as { validationErrors: string[] }).validationErrors[0] as string;
    expect(problem).to.match(/^recoveryWindowHours/);
    await page.locator('.field-error', { hasText: problem }).waitFor();
    expect(await page.getByLabel('Window (hours)').getAttribute('aria-invalid')).to.equal('true');
  });

  it('when the range ends before it starts, then the API message stands under the field it names and the last report stays', async () => {
    await open('/reports/queues', 'Queue statistics');
    const today = dayIn(LAB_ZONE, Date.now());
    await tableShows(tableOfApi((await api({ queueId: queueIds, startDate: today, endDate: today, distribution: 'daily' })).body.results));
    const before = await tableOnScreen(page);
    expect(before).to.have.length(queueIds.length);
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
    await open('/reports/queues', 'Queue statistics');
    for (const box of await page.locator('input[name=queue]').all()) await box.uncheck();
    await page.getByRole('button', { name: 'Show' }).click();
    const refused = await api({ queueId: [], startDate: '2026-03-01', endDate: '2026-03-01' });
    const problem = (refused.body as unknown as { validationErrors: string[] }).validationErrors[0] as string;
    expect(problem).to.match(/^queueId/);
    await page.locator('#stats-queue-error', { hasText: problem }).waitFor();
  });

  for (const theme of ['light', 'dark'] as const)
    for (const size of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ])
      it(`when each report screen is checked by axe-core in ${theme} mode at ${size.width} px, then none has a serious or critical violation`, async () => {
        await page.setViewportSize(size);
        await site.call('PATCH', '/v2/users/user-settings/dark-mode', {
          token: supervisor.token,
          body: { darkMode: theme === 'dark' ? 1 : 0 },
        });
        const day = lastCallDay();
        const failures: string[] = [];
        for (const [path, heading, rows] of [
          ['/reports/queues', 'Queue statistics', 'By hour'],
          ['/reports/service-level', 'Service level', 'By hour'],
          ['/reports/lost-calls', 'Lost callers', undefined],
          ['/reports/agents', 'Agents', 'By hour'],
          ['/reports/agent-sessions', 'Agent sessions', undefined],
          ['/reports/agent-availability', 'Agent availability', undefined],
        ] as const) {
          await open(path, heading);
          await show({ from: day, to: day, rows });
          await page.locator('.report-table tbody tr:not(:has(td.empty))').first().waitFor();
          if (rows && path !== '/reports/agents') await page.locator('.chart canvas').waitFor();
          expect(await page.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)).to.equal(theme);
          for (const v of await seriousAxeViolations(page))
            failures.push(`${heading}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(', ')}`);
          // Nothing of the page runs wider than the screen but the tables' own scrolling regions.
          expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth), heading).to.be.at.most(size.width);
          if (size.width < 500 && theme === 'dark' && path === '/reports/queues')
            await page.screenshot({ path: join(SHOTS, 'console-queue-stats-phone-dark.png') });
        }
        expect(failures).to.deep.equal([]);
        expect(browser.pageErrors()).to.deep.equal([]);
      });
});
