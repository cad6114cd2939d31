import { expect } from 'chai';
import type { Db } from '../../src/db/database';
import { ReportScheduler } from '../../src/modules/scheduled-reports/scheduler';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

/*
 * A report run acts in the tenant of its own row: the filter it reads, the error it sets, the runs it lists,
 * the tenant name and timezone it prints are all read in that tenant's scope. Rows that pair a run of one
 * tenant with a filter of another cannot be made through the API; they are written here to show that no
 * query takes the filter's id alone.
 */
describe('scheduled reports stay in the tenant of their run', function () {
  this.timeout(30_000);
  const clock = new TestClock(Date.parse('2026-11-22T12:00:00Z'));
  let smtp: TestSmtp;
  let app: TestApp;
  let db: Db;
  let a: { id: number; name: string };
  let b: { id: number; name: string };
  let filterA: number;
  let filterB: number;

  const insertFilter = async (tenantId: number, userId: number, name: string) =>
    (
      await db
        .insertInto('saved_filters')
        .values({
          tenant_id: tenantId,
          user_id: userId,
          api_url: '/v2/reporting/calls',
          module: 'calls',
          name,
          description: null,
          scheduled: 1,
          recipients: `${name}@example.test`,
          frequency: 'daily',
          error_description: null,
          query_params: null,
          post_params: null,
          created_at: '2026-11-01T00:00:00.000Z',
          deleted_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const insertRun = async (filterId: number, tenantId: number, day = '2026-11-20', status: 'pending' | 'sent' = 'pending') =>
    db
      .insertInto('report_runs')
      .values({
        filter_id: filterId,
        tenant_id: tenantId,
        kind: 'scheduled',
        frequency: 'daily',
        period_start: day,
        period_end: day,
        status,
        attempts: 1,
        next_attempt_at: clock.now(),
        lease_until: null,
        started_at: null,
        finished_at: null,
        rows: null,
        error: null,
        created_at: '2026-11-21T06:00:00.000Z',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  const filterErrorOf = async (id: number) =>
    db.selectFrom('saved_filters').select(['error', 'error_description']).where('id', '=', id).executeTakeFirstOrThrow();

  before(async () => {
    smtp = await startSmtp();
    app = await startTestApp({ clock, env: { TARS_SMTP_URL: smtp.url } });
    db = app.deps.database.db;
    a = await buildTenant(db, { name: 'Tenant A' });
    b = await buildTenant(db, { name: 'Tenant B' });
    await buildBranch(db, a.id, { timezone: 'Europe/Berlin', isDefault: 1 });
    await buildBranch(db, b.id, { timezone: 'America/Chicago', isDefault: 1 });
    filterA = await insertFilter(a.id, (await buildUser(db, a.id, ROLE.account)).id, 'report-a');
    filterB = await insertFilter(b.id, (await buildUser(db, b.id, ROLE.account)).id, 'report-b');
  });
  after(async () => {
    await app.close();
    await smtp.close();
  });

  it("when a run of tenant A names tenant B's filter, then it is cancelled: B's filter is neither sent nor marked", async () => {
    const run = await insertRun(filterB, a.id);
    const ended = await new ReportScheduler(app.deps).execute(run);
    expect(ended.status).to.equal('cancelled');
    expect(smtp.received.splice(0).map((m) => m.to)).to.deep.equal([]);
    expect(await filterErrorOf(filterB)).to.deep.equal({ error: 0, error_description: null });
    const stored = await db.selectFrom('report_runs').select(['status', 'error']).where('id', '=', run.id).executeTakeFirstOrThrow();
    expect(stored).to.deep.equal({ status: 'cancelled', error: 'the filter was deleted or its schedule changed' });
  });

  it("when a run of tenant A runs A's filter, then the mail names A and A's timezone and A's filter shows no error", async () => {
    const ended = await new ReportScheduler(app.deps).execute(await insertRun(filterA, a.id));
    expect(ended.status).to.equal('sent');
    const [mail, ...more] = smtp.received.splice(0);
    expect(more).to.have.length(0);
    expect(mail?.to).to.deep.equal(['report-a@example.test']);
    expect(mail?.parsed.html).to.include('Tenant A').and.include('2026-11-20 to 2026-11-20 (Europe/Berlin)');
    expect(await filterErrorOf(filterA)).to.deep.equal({ error: 0, error_description: null });
  });

  it("when a filter's runs are listed, then a run row of another tenant under the same filter id is not among them", async () => {
    const own = await insertRun(filterA, a.id, '2026-11-18', 'sent');
    const foreign = await insertRun(filterA, b.id, '2026-11-19', 'sent');
    const adminA = await tokenFor(app, await buildUser(db, a.id, ROLE.account));
    const res = await app.request('GET', `/v2/reporting/saved/${filterA}/runs`, { token: adminA, query: { paginated: 0 } });
    expect(res.status, res.text).to.equal(200);
    const ids = (res.body.records as Array<{ id: number }>).map((r) => r.id);
    expect(ids).to.include(own.id).and.not.include(foreign.id);
    expect(res.body.total).to.equal(ids.length);
    expectError(
      await app.request('GET', `/v2/reporting/saved/${filterA}/runs`, {
        token: await tokenFor(app, await buildUser(db, b.id, ROLE.account)),
      }),
      404,
    );
  });
});
