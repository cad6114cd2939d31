import { join } from 'node:path';
import { expect } from 'chai';
import { percent } from '../../src/modules/queue-reports/report-frame';
import { amiTranscript } from '../helpers/ami-transcript';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { ASTERISK_RUN, QUEUE_LOG_SAMPLE, sampleLines, seedAcmeWithSampleLogs, startAsteriskRunApp } from '../helpers/pbx-logs';
import { oracleServiceLevel } from '../helpers/queue-oracle';
import { expectAddsUp } from '../helpers/report-sums';

const PATH = '/v2/reporting/queues/service-level';
const at = (iso: string) => Date.parse(iso) / 1000;
interface Level {
  seconds: number;
  answeredWithin: number;
  abandonedWithin: number;
  serviceLevel: number | null;
  serviceLevel2: number | null;
  serviceLevelOffered: number | null;
}
type Row = Record<string, unknown> & {
  queueId: number;
  date: string;
  answered: number;
  abandoned: number;
  offered: number;
  shortAbandons: number;
  levels: Level[];
};

describe('POST /v2/reporting/queues/service-level on the sample (reporting.md R19)', () => {
  let app: TestApp;
  let token: string;
  const sample = sampleLines(QUEUE_LOG_SAMPLE);
  const report = async (body: Record<string, unknown>) => {
    const res = await app.request('POST', PATH, {
      token,
      body: { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-11-02', ...body },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as { queueIds: number[]; results: Row[] };
  };

  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-11-22T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    token = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());

  it("when asked with more thresholds, then each queue's own comes first, then the others ascending, each counted as the log says", async () => {
    expect((await app.request('PATCH', '/v2/queues/1', { token, body: { serviceLevelSeconds: 20 } })).status).to.equal(200);
    try {
      const { queueIds, results } = await report({ queueId: [2, 1], serviceLevelThresholds: [60, 20, 10], shortAbandonSeconds: 15 });
      expect(queueIds).to.deep.equal([2, 1]);
      expect(results.map((r) => [r.queueId, r.serviceLevelSeconds, r.levels.map((l) => l.seconds)])).to.deep.equal([
        [1, 20, [20, 10, 60]], // its own 20 first, not repeated
        [2, 30, [30, 10, 20, 60]],
      ]);
      for (const row of results) {
        const logName = row.queueId === 1 ? '400' : '401';
        for (const level of row.levels) {
          const o = oracleServiceLevel(sample, logName, at('2026-10-31T05:00:00Z'), at('2026-11-03T06:00:00Z'), level.seconds, 15);
          expect(row).to.include({ offered: o.offered, answered: o.answered, abandoned: o.abandoned, shortAbandons: o.shortAbandons });
          expect(level).to.deep.equal({
            seconds: level.seconds,
            answeredWithin: o.answeredWithin,
            abandonedWithin: o.abandonedWithin,
            serviceLevel: percent(o.answeredWithin, o.answered),
            serviceLevel2: percent(o.answeredWithin + o.abandonedWithin, o.answered + o.abandoned),
            serviceLevelOffered: percent(o.answeredWithin, o.offered - o.shortAbandons),
          });
        }
        expect(row.answered).to.be.greaterThan(10);
        expect(row.levels[0]?.answeredWithin).to.be.lessThan(row.answered); // the thresholds do tell calls apart
      }
    } finally {
      await app.request('PATCH', '/v2/queues/1', { token, body: { serviceLevelSeconds: 30 } });
    }
  });

  it('when every distribution is asked for, then each row has a start and the rows add up to the totals, level by level', async () => {
    const [total1, total2] = (await report({ serviceLevelThresholds: [10, 45] })).results;
    expect(total1?.start).to.equal('2026-10-31T00:00:00-05:00');
    for (const distribution of ['hourly', 'quarterHourly', 'hourOfDay', 'dayOfWeek', 'daily', 'weekly']) {
      const { results } = await report({ distribution, serviceLevelThresholds: [10, 45] });
      for (const total of [total1, total2] as Row[]) {
        const rows = results.filter((r) => r.queueId === total.queueId);
        expectAddsUp(rows, total, `${distribution}, queue ${total.queueId}`, {
          skip: ['serviceLevelSeconds', 'serviceLevel', 'serviceLevel2', 'serviceLevelOffered'],
          nested: { levels: 'seconds' },
        });
        expect(rows.every((r) => 'start' in r)).to.equal(true);
      }
    }
    const daily = (await report({ distribution: 'daily' })).results;
    expect(daily.map((r) => r.start).slice(0, 3)).to.deep.equal([
      '2026-10-31T00:00:00-05:00',
      '2026-11-01T00:00:00-05:00',
      '2026-11-02T00:00:00-06:00',
    ]);
  });

  it('when a period has no answered call, then its percentages are null, not 0 or a division by zero', async () => {
    const { results } = await report({ startDate: '2026-01-05', endDate: '2026-01-05', distribution: 'daily' });
    expect(results).to.have.length(2);
    expect(results[0]?.levels[0]).to.deep.equal({
      seconds: 30,
      answeredWithin: 0,
      abandonedWithin: 0,
      serviceLevel: null,
      serviceLevel2: null,
      serviceLevelOffered: null,
    });
  });

  it('when the thresholds are empty, too many, repeated or out of range, or shortAbandonSeconds is, then 400 naming the field', async () => {
    const post = (extra: Record<string, unknown>) =>
      app.request('POST', PATH, { token, body: { queueId: [1], startDate: '2026-10-31', endDate: '2026-11-02', ...extra } });
    for (const bad of [[], [1, 2, 3, 4, 5, 6, 7, 8, 9], [20, 20], [0], [3601], [1.5], ['30']])
      expectError(await post({ serviceLevelThresholds: bad }), 400, ['serviceLevelThresholds']);
    for (const bad of [-1, 601, 2.5]) expectError(await post({ shortAbandonSeconds: bad }), 400, ['shortAbandonSeconds']);
    expect((await post({ serviceLevelThresholds: [1, 2, 3, 4, 5, 6, 7, 3600], shortAbandonSeconds: 0 })).status).to.equal(201);
  });

  it("when another tenant's or an unknown queue is named, then 404; a basic user gets 403", async () => {
    const globex = await tokenFor(app, { id: 6 });
    expectError(
      await app.request('POST', PATH, { token: globex, body: { queueId: [1], startDate: '2026-10-31', endDate: '2026-11-02' } }),
      404,
    );
    expectError(
      await app.request('POST', PATH, { token, body: { queueId: [1, 999], startDate: '2026-10-31', endDate: '2026-11-02' } }),
      404,
    );
    const basic = await tokenFor(app, { id: 4 });
    expectError(
      await app.request('POST', PATH, { token: basic, body: { queueId: [1], startDate: '2026-10-31', endDate: '2026-11-02' } }),
      403,
    );
  });
});

describe('percentages of the supervisor reports', () => {
  it('when a share is rounded, then to one decimal, halves away from zero, without binary fractions going astray', () => {
    expect([percent(1, 8), percent(1, 3), percent(2, 3), percent(1, 16), percent(14, 96), percent(0, 5), percent(7, 7)]).to.deep.equal([
      12.5, 33.3, 66.7, 6.3, 14.6, 0, 100,
    ]);
    expect(percent(3, 0)).to.equal(null);
    expect(percent(1, -2)).to.equal(null);
  });
});

/** R19 against Asterisk: its last QueueParams of the recorded run (test/fixtures/asterisk/README.md). */
describe('service level of a real Asterisk 22 run, against the ServicelevelPerf Asterisk reported (reporting.md R18, R19)', () => {
  let app: TestApp;
  let token: string;
  const params = (amiTranscript().checkpoints.at(-1)?.answer ?? []).filter((m) => m.Event === 'QueueParams');
  const log = sampleLines(join(ASTERISK_RUN, 'queue_log'));
  const count = (queue: string, event: string) => log.filter((l) => l.split('|')[2] === queue && l.split('|')[4] === event).length;

  before(async () => {
    ({ app, token } = await startAsteriskRunApp());
  });
  after(() => app.close());

  for (const [queue, queueId] of [
    ['sales', 1],
    ['support', 2],
    ['billing', 3],
  ] as const) {
    it(`when ${queue} is judged at its servicelevel, then abandoned is Asterisk's exactly and both percentages are within R19's tolerance`, async () => {
      const p = params.find((m) => m.Queue === queue) ?? {};
      const servicelevel = Number(p.ServiceLevel);
      expect(servicelevel).to.be.greaterThan(0);
      expect((await app.request('PATCH', `/v2/queues/${queueId}`, { token, body: { serviceLevelSeconds: servicelevel } })).status).to.equal(
        200,
      );
      const res = await app.request('POST', PATH, { token, body: { queueId: [queueId], startDate: '2026-11-23', endDate: '2026-11-23' } });
      expect(res.status).to.equal(201);
      const row = res.body.results[0] as Row;
      const level = row.levels[0] as Level;
      expect(level.seconds).to.equal(servicelevel);
      expect(row.abandoned).to.equal(Number(p.Abandoned));
      const d = Math.max(count(queue, 'BLINDTRANSFER') + count(queue, 'ATTENDEDTRANSFER'), 3, 0.05 * row.answered);
      const perf = Number(p.ServicelevelPerf);
      const perf2 = Number(p.ServicelevelPerf2);
      expect(level.serviceLevel as number, `ServicelevelPerf ${perf}`).to.be.closeTo(perf, (100 * d) / row.answered);
      expect(level.serviceLevel2 as number, `ServicelevelPerf2 ${perf2}`).to.be.closeTo(perf2, (100 * d) / (row.answered + row.abandoned));
      expect(perf).to.be.greaterThan(0);
    });
  }
});
