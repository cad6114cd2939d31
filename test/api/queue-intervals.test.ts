import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { QUEUE_LOG_SAMPLE, sampleLines, seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { oracleStats } from '../helpers/queue-oracle';
import { expectAddsUp } from '../helpers/report-sums';

const STATS = '/v2/reporting/queues/stats';
const at = (iso: string) => Date.parse(iso) / 1000;
type Row = Record<string, unknown> & { queueId: number; date: string; start?: string | null };

/** reporting.md R20 on the sample (tenant 1 in America/Chicago, 2026-10-31 … 2026-11-02: DST ends on 1 November). */
describe('queue statistics by the interval, the hour of the day and the day of the week (reporting.md R20)', () => {
  let app: TestApp;
  let token: string;
  const sample = sampleLines(QUEUE_LOG_SAMPLE);
  const stats = async (body: Record<string, unknown>) => {
    const res = await app.request('POST', STATS, {
      token,
      body: { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-11-02', ...body },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.results as Row[];
  };

  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-11-22T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    token = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());

  it('when the DST day is read by the hour, then it has 25 rows, 01:00 twice with its own start, each the log over exactly that hour', async () => {
    const rows = (await stats({ startDate: '2026-11-01', endDate: '2026-11-01', distribution: 'hourly' })).filter((r) => r.queueId === 1);
    expect(rows).to.have.length(25);
    const ones = rows.filter((r) => r.date === '2026-11-01 01:00');
    expect(ones.map((r) => r.start)).to.deep.equal(['2026-11-01T01:00:00-05:00', '2026-11-01T01:00:00-06:00']);
    for (const r of rows) {
      const from = at(r.start as string);
      const expected = oracleStats(sample, '400', from, from + 3600);
      expect(r, `${r.date} (${r.start})`).to.include({ ...expected, noAnswerRingTime: r.noAnswerRingTime });
    }
    expect(rows.reduce((n, r) => n + (r.totalInbound as number), 0)).to.be.greaterThan(20);
  });

  it('when every distribution is asked for, then its rows add up to the totals row, counter by counter, for each queue', async () => {
    const totals = await stats({});
    for (const distribution of ['hourly', 'halfHourly', 'quarterHourly', 'hourOfDay', 'dayOfWeek', 'daily', 'weekly', 'monthly']) {
      const rows = await stats({ distribution });
      for (const queueId of [1, 2]) {
        const total = totals.find((t) => t.queueId === queueId) as Row;
        expectAddsUp(
          rows.filter((r) => r.queueId === queueId),
          total,
          `${distribution}, queue ${queueId}`,
        );
      }
    }
  });

  it('when hours of the day and days of the week are asked for, then 24 and 7 rows per queue, dated HH:00 and by weekday, start null', async () => {
    const hours = await stats({ distribution: 'hourOfDay' });
    expect(hours.filter((r) => r.queueId === 1).map((r) => r.date)).to.deep.equal(
      Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`),
    );
    expect(hours.every((r) => r.start === null && r.distribution === 'hourOfDay')).to.equal(true);
    const days = await stats({ distribution: 'dayOfWeek' });
    expect(days.filter((r) => r.queueId === 2).map((r) => r.date)).to.deep.equal([
      'Monday',
      'Tuesday',
      'Wednesday',
      'Thursday',
      'Friday',
      'Saturday',
      'Sunday',
    ]);
    // 2026-10-31 was a Saturday: its calls, and nothing else, are Saturday's
    const saturday = days.find((r) => r.queueId === 2 && r.date === 'Saturday') as Row;
    expect(saturday.totalInbound).to.equal(oracleStats(sample, '401', at('2026-10-31T05:00:00Z'), at('2026-11-01T05:00:00Z')).totalInbound);
  });

  it('when the hosted distributions are asked for, then their rows are exactly as before: no start field', async () => {
    for (const distribution of ['daily', 'weekly', 'monthly', 'totals'])
      for (const r of await stats({ distribution })) expect(r, distribution).not.to.have.property('start');
  });

  it('when an interval range touches more than 31 local days, then 400 says so; an empty range gives no interval rows', async () => {
    const res = await app.request('POST', STATS, {
      token,
      body: { queueId: [1], startDate: '2026-10-01', endDate: '2026-11-01', distribution: 'quarterHourly' },
    });
    expectError(res, 400, ['32 local days', 'at most 31']);
    expect(await stats({ startDate: '2026-11-01 10:00', endDate: '2026-11-01 10:00', distribution: 'hourly' })).to.deep.equal([]);
    expect(await stats({ startDate: '2026-11-01 10:00', endDate: '2026-11-01 10:00' })).to.have.length(2); // totals: a zero row each
    expectError(
      await app.request('POST', STATS, {
        token,
        body: { queueId: [1], startDate: '2026-11-01', endDate: '2026-11-01', distribution: 'Hourly' },
      }),
      400,
      ['distribution'],
    );
  });
});
