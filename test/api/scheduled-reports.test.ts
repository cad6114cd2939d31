import { expect } from 'chai';
import { ReportScheduler } from '../../src/modules/scheduled-reports/scheduler';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildUser, ROLE, tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { startSmtp, type ReceivedMail, type TestSmtp } from '../helpers/smtp';

/*
 * Scheduled saved-filter reports against a real SMTP server on loopback, with the clock in the test's hands.
 * Data: acme.json and the sample PBX logs (tenant 1, America/Chicago, 2026-10-31 … 2026-11-02).
 * TARS_REPORT_HOUR is 6: a day's report is due at 06:00 local time the next day.
 */
const at = (iso: string) => Date.parse(iso);
const csvRows = (mail: ReceivedMail) => {
  const csv = mail.parsed.attachments[0]?.content.toString('utf8') ?? '';
  return csv.trim().split('\r\n').slice(1);
};

describe('scheduled filter reports', function () {
  this.timeout(60_000);
  const clock = new TestClock(at('2026-10-30T12:00:00Z'));
  let smtp: TestSmtp;
  let app: TestApp;
  let reportsToken: string;

  const createFilter = async (body: Record<string, unknown>) => {
    const res = await app.request('POST', '/v2/reporting/saved/', {
      token: reportsToken,
      body: {
        tenantId: 1,
        url: '/v2/reporting/calls',
        module: 'calls',
        scheduled: 1,
        recipients: 'ops@acme.example,boss@acme.example',
        ...body,
      },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body[0] as { id: number; name: string };
  };
  const tick = (a: TestApp = app) => new ReportScheduler(a.deps).tick();
  const filterRow = (id: number) => app.request('GET', `/v2/reporting/saved/${id}`, { token: reportsToken });
  const runsOf = async (id: number) =>
    (await app.request('GET', `/v2/reporting/saved/${id}/runs`, { token: reportsToken, query: { paginated: 0 } })).body.records as Array<
      Record<string, unknown>
    >;
  const drainMail = () => smtp.received.splice(0);

  before(async () => {
    smtp = await startSmtp();
    app = await startTestApp({
      clock,
      env: { TARS_SMTP_URL: smtp.url, TARS_REPORT_HOUR: '6', TARS_REPORT_CATCHUP_DAYS: '7', TARS_REPORT_ATTEMPTS: '3' },
    });
    await seedAcmeWithSampleLogs(app);
    reportsToken = await tokenFor(app, { id: 3 });
  });
  after(async () => {
    await app.close();
    await smtp.close();
  });

  describe('a daily filter', () => {
    let filter: { id: number; name: string };
    before(async () => {
      clock.ms = at('2026-10-30T12:00:00Z');
      filter = await createFilter({ name: 'Inbound calls daily', frequency: 'daily', queryParams: { direction: 'inbound' } });
    });

    it('when the hour has not come, then nothing is sent; at 06:00 local the day that ended goes out, once', async () => {
      clock.ms = at('2026-11-01T11:59:00Z'); // 05:59 CST, after the end of DST
      await tick();
      expect(
        drainMail().map((m) => m.parsed.subject),
        'only Oct 30 (due Oct 31 06:00 CDT)',
      ).to.deep.equal([`TARS report "${filter.name}": 2026-10-30`]);
      clock.ms = at('2026-11-01T12:00:00Z'); // 06:00 CST
      await tick();
      await tick();
      const mails = drainMail();
      expect(mails.map((m) => m.parsed.subject)).to.deep.equal([`TARS report "${filter.name}": 2026-10-31`]);
      const [mail] = mails as [ReceivedMail];
      expect(mail.to).to.deep.equal(['ops@acme.example', 'boss@acme.example']);
      expect(mail.parsed.html).to.include('Inbound calls daily').and.include('2026-10-31 to 2026-10-31 (America/Chicago)');
      expect(mail.parsed.attachments[0]?.filename).to.equal('inbound-calls-daily-2026-10-31.csv');
      const api = await app.request('GET', '/v2/reporting/calls', {
        token: reportsToken,
        query: { tenantId: 1, startDate: '2026-10-31', endDate: '2026-10-31', direction: 'inbound', paginated: 0 },
      });
      expect(api.body.total).to.be.greaterThan(5);
      expect(
        csvRows(mail).map((r) => Number(r.split(',')[0])),
        'the CSV holds exactly the calls report of that day',
      ).to.deep.equal(api.body.records.map((r: { id: number }) => r.id));
      expect((await runsOf(filter.id)).map((r) => [r.periodStart, r.status, r.rows])).to.deep.equal([
        ['2026-10-31', 'sent', api.body.total],
        ['2026-10-30', 'sent', 0],
      ]);
    });

    it('when the server was down for days, then each missed day is sent once when it starts, also across restarts', async () => {
      clock.ms = at('2026-11-05T13:00:00Z');
      const restarted = await startTestApp({ clock, dataDir: app.dataDir, env: { TARS_SMTP_URL: smtp.url, TARS_REPORT_HOUR: '6' } });
      try {
        await tick(restarted);
        await tick(restarted);
      } finally {
        await restarted.close();
      }
      await tick(app);
      expect(drainMail().map((m) => (m.parsed.subject ?? '').split(': ')[1])).to.deep.equal([
        '2026-11-01',
        '2026-11-02',
        '2026-11-03',
        '2026-11-04',
      ]);
    });

    it('when two server processes share the data directory, then each period is still sent once', async () => {
      clock.ms = at('2026-11-08T13:00:00Z');
      const second = await startTestApp({ clock, dataDir: app.dataDir, env: { TARS_SMTP_URL: smtp.url, TARS_REPORT_HOUR: '6' } });
      try {
        await Promise.all([tick(app), tick(second), tick(app), tick(second)]);
      } finally {
        await second.close();
      }
      expect(
        drainMail()
          .map((m) => (m.parsed.subject ?? '').split(': ')[1])
          .sort(),
      ).to.deep.equal(['2026-11-05', '2026-11-06', '2026-11-07']);
    });

    it('when the SMTP server refuses, then the filter shows the error, the run is retried with backoff, and a later success clears it', async () => {
      clock.ms = at('2026-11-09T12:00:00Z');
      smtp.refuse = true;
      await tick();
      let row = (await filterRow(filter.id)).body;
      expect(row.error).to.equal(1);
      expect(row.errorDescription).to.match(
        /^SMTP server refused recipient ops@acme\.example, boss@acme\.example \(550 mailbox \S+ unavailable\)$/,
      );
      const [run] = await runsOf(filter.id);
      expect(run).to.include({ periodStart: '2026-11-08', status: 'retry', attempts: 1 });
      clock.advance(30_000);
      await tick();
      expect((await runsOf(filter.id))[0], 'not before the first backoff (1 min)').to.include({ attempts: 1 });
      smtp.refuse = false;
      clock.advance(60_000);
      await tick();
      expect((await runsOf(filter.id))[0]).to.include({ status: 'sent', attempts: 2 });
      row = (await filterRow(filter.id)).body;
      expect([row.error, row.errorDescription]).to.deep.equal([0, null]);
      expect(drainMail().map((m) => (m.parsed.subject ?? '').split(': ')[1])).to.deep.equal(['2026-11-08']);
    });
  });

  describe('weekly, monthly, failures and owners', () => {
    it('when a weekly filter reaches Monday 06:00 local, then last week (Monday to Sunday) goes out', async () => {
      clock.ms = at('2026-10-30T12:00:00Z');
      const filter = await createFilter({ name: 'Weekly', frequency: 'weekly' });
      clock.ms = at('2026-11-02T12:00:00Z');
      drainMail();
      await tick();
      const subjects = drainMail().map((m) => m.parsed.subject);
      expect(subjects).to.include(`TARS report "Weekly": week of 2026-10-26 to 2026-11-01`);
      expect((await runsOf(filter.id))[0]).to.include({
        frequency: 'weekly',
        periodStart: '2026-10-26',
        periodEnd: '2026-11-01',
        status: 'sent',
      });
    });

    it('when a monthly filter reaches the 1st, then last month goes out', async () => {
      clock.ms = at('2026-11-20T12:00:00Z');
      const filter = await createFilter({ name: 'Monthly', frequency: 'monthly' });
      clock.ms = at('2026-12-01T12:00:00Z');
      drainMail();
      await tick();
      expect(drainMail().map((m) => m.parsed.subject)).to.include('TARS report "Monthly": November 2026');
      expect((await runsOf(filter.id))[0]).to.include({ periodStart: '2026-11-01', periodEnd: '2026-11-30' });
    });

    it('when every attempt fails, then the run is given up and a REPORTFAILED webhook event is written with it', async () => {
      const hook = await app.request('POST', '/v2/webhooks', {
        token: await tokenFor(app, { id: 2 }),
        body: { tenantId: 1, type: 'REPORTFAILED', url: 'https://hooks.example.test/failed' },
      });
      clock.ms = at('2026-12-01T12:00:00Z');
      const filter = await createFilter({ name: 'Doomed', frequency: 'daily' });
      clock.ms = at('2026-12-02T12:00:00Z');
      smtp.refuse = true;
      try {
        for (let i = 0; i < 3; i++) {
          await tick();
          clock.advance(2 * 60 * 60 * 1000);
        }
      } finally {
        smtp.refuse = false;
      }
      const [run] = await runsOf(filter.id);
      expect(run).to.include({ status: 'failed', attempts: 3 });
      const events = await app.deps.database.db
        .selectFrom('webhook_deliveries')
        .select(['event_type', 'payload'])
        .where('webhook_id', '=', hook.body.id)
        .execute();
      const mine = events.map((e) => JSON.parse(e.payload)).filter((p) => p.data.filterId === filter.id);
      expect(mine).to.have.length(1);
      expect(mine[0]).to.deep.include({ type: 'REPORTFAILED', tenantId: 1 });
      expect(mine[0].data).to.include({ filterId: filter.id, periodStart: '2026-12-01', attempts: 3 });
    });

    it('when the owner may no longer read the calls report, then the run fails saying so (a filter reaches no more than its owner)', async () => {
      const db = app.deps.database.db;
      const owner = await buildUser(db, 1, ROLE.reports);
      const ownerToken = await tokenFor(app, owner);
      clock.ms = at('2026-12-01T12:00:00Z');
      const res = await app.request('POST', '/v2/reporting/saved/', {
        token: ownerToken,
        body: {
          tenantId: 1,
          url: '/v2/reporting/calls',
          module: 'calls',
          name: 'Demoted',
          scheduled: 1,
          frequency: 'daily',
          recipients: 'x@acme.example',
        },
      });
      await db.updateTable('users').set({ user_role: ROLE.basic }).where('id', '=', owner.id).execute();
      clock.ms = at('2026-12-02T12:00:00Z');
      await tick();
      const row = (await filterRow(res.body[0].id)).body;
      expect(row.errorDescription).to.equal(`The filter's owner ${owner.email} may no longer read the calls report`);
    });
  });

  describe('run now (POST /v2/reporting/saved/{id}/run)', () => {
    it('when asked for a day, then that day of the filter is e-mailed and recorded as a manual run', async () => {
      const filter = await createFilter({
        name: 'On demand',
        frequency: 'daily',
        scheduled: 0,
        recipients: 'me@acme.example',
        queryParams: { disposition: 'ANSWERED' },
      });
      drainMail();
      const res = await app.request('POST', `/v2/reporting/saved/${filter.id}/run`, { token: reportsToken, body: { for: '2026-11-01' } });
      expect(res.status).to.equal(201);
      expect(res.body, res.text).to.include({ kind: 'manual', periodStart: '2026-11-01', status: 'sent', attempts: 1 });
      const [mail] = drainMail() as [ReceivedMail];
      expect(mail.to).to.deep.equal(['me@acme.example']);
      expect(csvRows(mail)).to.have.length(res.body.rows as number);
      expect(csvRows(mail).every((r) => r.endsWith(',ANSWERED'))).to.equal(true);
    });

    it('when there is no body, then the period that just ended is sent', async () => {
      const filter = await createFilter({ name: 'Yesterday', frequency: 'daily' });
      clock.ms = at('2026-11-02T18:00:00Z');
      const res = await app.request('POST', `/v2/reporting/saved/${filter.id}/run`, { token: reportsToken });
      expect(res.body).to.include({ periodStart: '2026-11-01', status: 'sent' });
    });

    it('when the mail cannot be sent, then the run is recorded as failed with the reason', async () => {
      const filter = await createFilter({ name: 'Refused now', frequency: 'daily' });
      smtp.refuse = true;
      try {
        const res = await app.request('POST', `/v2/reporting/saved/${filter.id}/run`, { token: reportsToken, body: { for: '2026-11-01' } });
        expect(res.body).to.include({ status: 'failed' });
        expect(res.body.error).to.match(/^SMTP server refused recipient/);
      } finally {
        smtp.refuse = false;
      }
    });

    it('when a basic user asks, then 403; another tenant, then 404; a bad date, then 400', async () => {
      const filter = await createFilter({ name: 'Guarded', frequency: 'daily' });
      const basic = await buildUser(app.deps.database.db, 1, ROLE.basic);
      expectError(await app.request('POST', `/v2/reporting/saved/${filter.id}/run`, { token: await tokenFor(app, basic) }), 403);
      expectError(await app.request('POST', `/v2/reporting/saved/${filter.id}/run`, { token: await tokenFor(app, { id: 6 }) }), 404);
      expectError(
        await app.request('POST', `/v2/reporting/saved/${filter.id}/run`, { token: reportsToken, body: { for: 'tomorrow' } }),
        400,
        ['for'],
      );
    });
  });
});
