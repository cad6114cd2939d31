import { expect } from 'chai';
import { ReportScheduler } from '../../src/modules/scheduled-reports/scheduler';
import { TestClock } from '../helpers/app';
import { buildTenant, buildUser, ROLE } from '../helpers/factories';
import { migratePostgres, startPgInstance, type PgInstance } from '../helpers/pg-instances';
import { sharedPostgres } from '../helpers/postgres';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { until } from '../helpers/until';

/*
 * Scheduled reports once per due time across instances (issue 32, design §5.1): three instances on one PostgreSQL
 * database, each with its own pool and its own mailer to one real SMTP server on loopback, run their scheduler's
 * tick at the same moment (as their crons would at the minute). A period is claimed by inserting its row (a unique
 * index) and a run by a conditional UPDATE, so each report is mailed once; after all were down, the periods that
 * fell due meanwhile go out once each. TARS_REPORT_HOUR is 6 and the tenant's zone UTC: a day's report is due at
 * 06:00 UTC the next day.
 */

const at = (iso: string) => Date.parse(iso);

describe('scheduled reports across three instances on one PostgreSQL database', function () {
  this.timeout(180_000);
  let smtp: TestSmtp;
  let instances: PgInstance[] = [];

  beforeEach(async () => {
    smtp = await startSmtp();
  });
  afterEach(async () => {
    await Promise.all(instances.map((i) => i.close()));
    instances = [];
    await smtp.close();
  });

  /** A fresh database, three instances sharing `clock`, and a daily filter made at the clock's time. */
  async function setUp(clock: TestClock): Promise<{ filterId: number; name: string }> {
    const url = await (await sharedPostgres()).createDatabase();
    await migratePostgres(url);
    const env = { TARS_SMTP_URL: smtp.url, TARS_REPORT_HOUR: '6', TARS_REPORT_CATCHUP_DAYS: '7', TARS_REPORT_ATTEMPTS: '3' };
    instances = await Promise.all([1, 2, 3].map(() => startPgInstance(url, { clock, env })));
    const db = instances[0]!.database.db;
    const tenant = await buildTenant(db);
    const user = await buildUser(db, tenant.id, ROLE.reports);
    const signedIn = await instances[1]!.request('POST', '/v2/authentication/', { body: { email: user.email, password: user.password } });
    const name = `Daily calls ${tenant.id}`;
    const created = await instances[2]!.request('POST', '/v2/reporting/saved/', {
      token: signedIn.body.accessToken,
      body: {
        tenantId: tenant.id,
        name,
        url: '/v2/reporting/calls',
        module: 'calls',
        scheduled: 1,
        frequency: 'daily',
        recipients: 'ops@example.test',
      },
    });
    expect(created.status, created.text).to.equal(201);
    return { filterId: created.body[0].id as number, name };
  }

  /** Every instance's scheduler ticks at once, as their crons fire at the same minute. */
  const tickAll = () => Promise.all(instances.map((i) => new ReportScheduler(i.deps).tick()));

  const runsOf = (filterId: number) =>
    instances[0]!.database.db
      .selectFrom('report_runs')
      .select(['period_start', 'attempts'])
      .where('filter_id', '=', filterId)
      .orderBy('period_start')
      .execute();

  it('when three schedulers fire at the same due time, then the report is mailed once', async () => {
    const clock = new TestClock(at('2026-10-30T12:00:00Z'));
    const { filterId, name } = await setUp(clock);
    clock.ms = at('2026-10-31T06:00:30Z');
    await tickAll();
    await until(() => smtp.received.length >= 1, { what: 'the report' });
    await tickAll(); // a minute later, every cron fires again
    expect(smtp.received.map((m) => m.parsed.subject)).to.deep.equal([`TARS report "${name}": 2026-10-30`]);
    expect(await runsOf(filterId)).to.deep.equal([{ period_start: '2026-10-30', attempts: 1 }]);
  });

  it('when all instances were down over three due times, then on their return each missed report is mailed once', async () => {
    const clock = new TestClock(at('2026-10-30T12:00:00Z'));
    const { filterId, name } = await setUp(clock);
    clock.ms = at('2026-11-02T09:00:00Z'); // due: Oct 30, Oct 31 and Nov 1
    await tickAll();
    await until(() => smtp.received.length >= 3, { what: 'three reports' });
    await tickAll();
    expect(smtp.received.map((m) => m.parsed.subject).sort()).to.deep.equal(
      ['2026-10-30', '2026-10-31', '2026-11-01'].map((d) => `TARS report "${name}": ${d}`),
    );
    expect(await runsOf(filterId)).to.deep.equal(['2026-10-30', '2026-10-31', '2026-11-01'].map((d) => ({ period_start: d, attempts: 1 })));
  });
});
