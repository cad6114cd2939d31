import { expect } from 'chai';
import { ALL_TENANTS, tenantsScope } from '../../src/access/scope';
import { membershipTimes, nonQueueTalk, pauseTimes } from '../../src/modules/queue-reports/availability.repository';
import { dayRows, edgeOutbound, edgeStats, hourStats } from '../../src/modules/queue-reports/queue-stats.repository';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { QUEUE_LOG_SAMPLE, sampleLines, seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { oracleStats } from '../helpers/queue-oracle';

const STATS = '/v2/reporting/queues/stats';
const AVAIL = '/v2/reporting/queues/agent-availability';
const at = (iso: string) => Date.parse(iso) / 1000;
// acme.json: 1 platform admin, 2 account admin (tenant 1), 3 reports admin, 4 basic user, 6 account admin of tenant 2,
// 7 partner admin (partner 1), 8 queue manager
const USERS = { root: 1, admin: 2, reports: 3, basic: 4, globex: 6, partner: 7, queues: 8 } as const;

describe('POST /v2/reporting/queues/stats and /agent-availability', () => {
  let app: TestApp;
  const token: Partial<Record<keyof typeof USERS, string>> = {};
  const post = (who: keyof typeof USERS, path: string, body: unknown) => app.request('POST', path, { token: token[who], body });
  const sample = sampleLines(QUEUE_LOG_SAMPLE);

  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-11-22T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    for (const [name, id] of Object.entries(USERS)) token[name as keyof typeof USERS] = await tokenFor(app, { id });
  });
  after(() => app.close());

  const body = (queueId: number | number[], extra = {}) => ({ queueId, startDate: '2026-10-31', endDate: '2026-11-02', ...extra });

  it('when a basic user asks, then 403; a queue manager and a reports admin get 201', async () => {
    expectError(await post('basic', STATS, body([1])), 403);
    expectError(await post('basic', AVAIL, body(1)), 403);
    for (const who of ['queues', 'reports'] as const) {
      expect((await post(who, STATS, body([1]))).status).to.equal(201);
      expect((await post(who, AVAIL, body(1))).status).to.equal(201);
    }
  });

  it("when another tenant's queue or an unknown queue is named, then 404 on both reports", async () => {
    expectError(await post('globex', STATS, body([1])), 404);
    expectError(await post('globex', AVAIL, body(1)), 404);
    expectError(await post('admin', STATS, body([1, 3])), 404);
    expectError(await post('admin', STATS, body([999])), 404);
    expectError(await post('partner', STATS, body([3])), 404); // partner 1 reaches tenants 1 and 3, not Globex
    expect((await post('partner', STATS, body([1, 2]))).status).to.equal(201);
  });

  it('when dates are reversed, unreal or more than 366 days apart, then 400 naming the field', async () => {
    expectError(await post('admin', STATS, body([1], { startDate: '2026-11-03', endDate: '2026-11-02' })), 400, ['startDate']);
    expectError(await post('admin', STATS, body([1], { startDate: '2026-02-30' })), 400, ['startDate']);
    expectError(await post('admin', AVAIL, body(1, { startDate: '2025-01-01', endDate: '2026-01-02' })), 400, ['366']);
    expectError(await post('admin', STATS, body([])), 400, ['queueId']);
  });

  it('when the range has times of day, then each figure equals a direct reading of the log over exactly that range', async () => {
    const startDate = '2026-11-01 10:30:15';
    const endDate = '2026-11-02T14:45:00-06:00';
    const res = await post('admin', STATS, { queueId: [1], startDate, endDate });
    expect(res.status).to.equal(201);
    const [row] = res.body.results;
    const expected = oracleStats(sample, '400', at('2026-11-01T16:30:15Z'), at('2026-11-02T20:45:00Z')); // CST again after 02:00 that day
    expect(row).to.include({ ...expected, noAnswerRingTime: row.noAnswerRingTime, date: '2026-11-01' });
    expect(row.noAnswerRingTime).to.be.closeTo(expected.noAnswerRingTime, 0.001);
    expect(row.totalInbound).to.be.greaterThan(20);
  });

  it('when daily rows cover the DST day, then each local day holds exactly the calls that entered in it', async () => {
    const res = await post('admin', STATS, body([2], { distribution: 'daily' }));
    const days = [
      ['2026-10-31T05:00:00Z', '2026-11-01T05:00:00Z'],
      ['2026-11-01T05:00:00Z', '2026-11-02T06:00:00Z'],
      ['2026-11-02T06:00:00Z', '2026-11-03T06:00:00Z'],
    ];
    expect(res.body.results.map((r: { totalInbound: number }) => r.totalInbound)).to.deep.equal(
      days.map(([f, t]) => oracleStats(sample, '401', at(f as string), at(t as string)).totalInbound),
    );
  });

  it('when the range is empty (equal times), then totals is one zero row and daily has no rows', async () => {
    const empty = { queueId: [1, 2], startDate: '2026-11-01 12:00:00', endDate: '2026-11-01 12:00:00' };
    const totals = await post('admin', STATS, empty);
    expect(totals.body.results.map((r: { date: string; totalInbound: number }) => [r.date, r.totalInbound])).to.deep.equal([
      ['2026-11-01', 0],
      ['2026-11-01', 0],
    ]);
    expect((await post('admin', STATS, { ...empty, distribution: 'daily' })).body.results).to.deep.equal([]);
  });

  it('when a pause is still open, then it runs to the earlier of the range end and now', async () => {
    const whole = await post('admin', AVAIL, { queueId: 1, startDate: '2026-11-02', endDate: '2026-11-02' });
    const cut = await post('admin', AVAIL, { queueId: 1, startDate: '2026-11-02', endDate: '2026-11-02 17:52:28' }); // 600 s after PAUSE|Break at 17:42:28
    const bob = (res: typeof whole) => res.body.find((a: { peerName: string }) => a.peerName === 'PJSIP/102');
    const end = at('2026-11-03T06:00:00Z');
    const pauseStart = 1793662948;
    expect(bob(whole).totalUnavailableTime - bob(cut).totalUnavailableTime).to.equal(end - pauseStart - 600);
    expect(bob(whole).totalAvailableTime).to.equal(bob(cut).totalAvailableTime);
  });

  it("when a report repository is given queue 1 with a scope without its tenant, then it reads none of queue 1's rows", async () => {
    const { db } = app.deps.database;
    const [from, to] = [at('2026-10-01T00:00:00Z'), at('2026-12-01T00:00:00Z')];
    const hours = [{ span: 0, queueId: 1, fromHour: from / 3600, toHour: to / 3600 }];
    const edges = [{ span: 0, queueId: 1, from, to }];
    const clip = { start: from, end: to, openEnd: to };
    const read = async (scope: typeof ALL_TENANTS) => ({
      hours: (await hourStats(db, scope, hours)).length,
      edges: (await edgeStats(db, scope, edges)).length,
      outbound: (await edgeOutbound(db, scope, edges)).length,
      days: (await dayRows(db, scope, [1], from, to)).get(1)?.length,
      members: (await membershipTimes(db, scope, 1, clip)).length,
      pauses: (await pauseTimes(db, scope, 1, clip)).length,
      talk: (await nonQueueTalk(db, scope, 1, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], from, to)).length,
    });
    const all = await read(ALL_TENANTS);
    expect(
      Object.values(all).every((n) => (n ?? 0) > 0),
      JSON.stringify(all),
    ).to.equal(true);
    expect(await read(tenantsScope([2]))).to.deep.equal({ hours: 0, edges: 0, outbound: 0, days: 0, members: 0, pauses: 0, talk: 0 });
  });
});
