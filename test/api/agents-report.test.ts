import { join } from 'node:path';
import { expect } from 'chai';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { amiTranscript } from '../helpers/ami-transcript';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { ASTERISK_RUN, QUEUE_LOG_SAMPLE, sampleLines, seedAcmeWithSampleLogs, startAsteriskRunApp } from '../helpers/pbx-logs';
import { expectAddsUp } from '../helpers/report-sums';
import { rawSqlite } from '../helpers/engine';

const PATH = '/v2/reporting/queues/agents';
const NOW = Date.parse('2026-11-22T12:00:00Z');
type Row = Record<string, unknown> & {
  peerName: string;
  queueId: number | null;
  date: string;
  answered: number;
  loginTime: number;
  availableTime: number;
  pausedTime: number;
  talkTime: number;
  pauseTimes: { offDutyReason: string; offDutyTime: number }[];
};
const NOT_SUMS = ['extId', 'extNum', 'name', 'queueName', 'avgTalkTime', 'avgHoldTime', 'occupancy'];

describe('POST /v2/reporting/queues/agents on the sample (reporting.md R21)', () => {
  let app: TestApp;
  let token: string;
  const sample = sampleLines(QUEUE_LOG_SAMPLE);
  const report = async (body: Record<string, unknown>) => {
    const res = await app.request('POST', PATH, {
      token,
      body: { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-11-02', ...body },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.results as Row[];
  };
  const stats = async (queueId: number) =>
    (
      await app.request('POST', '/v2/reporting/queues/stats', {
        token,
        body: { queueId: [queueId], startDate: '2026-10-31', endDate: '2026-11-02' },
      })
    ).body.results[0];

  before(async () => {
    app = await startTestApp({ clock: { now: () => NOW } });
    await seedAcmeWithSampleLogs(app);
    token = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());

  it('when the totals are read, then each agent has a row per queue and one over both, sorted by peerName then queue, the all-queues row last', async () => {
    const rows = await report({});
    expect(rows.map((r) => [r.peerName, r.queueId])).to.deep.equal([
      ['PJSIP/101', 1],
      ['PJSIP/101', null],
      ['PJSIP/102', 1],
      ['PJSIP/102', 2],
      ['PJSIP/102', null],
      ['PJSIP/103', 2],
      ['PJSIP/103', null],
    ]);
    expect(rows[0]).to.include({
      extId: 1,
      extNum: 101,
      name: 'Alice Smith',
      queueName: 'Support',
      date: '2026-10-31',
      start: '2026-10-31T00:00:00-05:00',
    });
    expect(rows[1]).to.include({ queueName: null, distribution: 'totals' });
  });

  it("when a queue's agents are added up, then their answered calls and talk are the queue's, and each agent's calls are its lines in the log", async () => {
    const rows = await report({});
    for (const queueId of [1, 2]) {
      const q = await stats(queueId);
      const ofQueue = rows.filter((r) => r.queueId === queueId);
      expect(
        ofQueue.reduce((n, r) => n + r.answered, 0),
        `queue ${queueId}`,
      ).to.equal(q.inboundAnswered);
      expect(ofQueue.reduce((n, r) => n + r.talkTime, 0)).to.equal(q.talkTime);
      expect(ofQueue.reduce((n, r) => n + (r.ringNoAnswer as number), 0)).to.equal(q.ringNoAnswer);
      expect(ofQueue.reduce((n, r) => n + (r.ringTime as number), 0)).to.equal(q.ringTime);
      for (const f of ['outbound', 'totalOutbound', 'outboundTalkTime'])
        expect(
          ofQueue.reduce((n, r) => n + (r[f] as number), 0),
          f,
        ).to.equal(q[f]);
      expect(ofQueue.every((r) => r.nonQueueTalkTime === 0)).to.equal(true);
    }
    expect(rows.reduce((n, r) => n + (r.queueId === null ? (r.totalOutbound as number) : 0), 0)).to.be.greaterThan(0);
    // PJSIP/102's hang-ups by side, straight from the log (the sample's calls all enter and end inside the range)
    const lines = (event: string) => sample.filter((l) => l.split('|')[3] === 'PJSIP/102' && l.split('|')[4] === event).length;
    const all = rows.find((r) => r.peerName === 'PJSIP/102' && r.queueId === null) as Row;
    expect(all).to.include({
      agentHangups: lines('COMPLETEAGENT'),
      callerHangups: lines('COMPLETECALLER'),
      ringNoAnswer: lines('RINGNOANSWER'),
    });
    expect(all.transfers).to.equal(lines('BLINDTRANSFER') + lines('ATTENDEDTRANSFER'));
    expect(all.answered).to.be.greaterThan(5);
    expect(all.avgTalkTime).to.equal(Math.round(all.talkTime / all.answered));
  });

  it("when per-queue login, pauses and availability are read, then they are agent availability's figures for that queue", async () => {
    const rows = await report({});
    for (const queueId of [1, 2]) {
      const avail = (
        await app.request('POST', '/v2/reporting/queues/agent-availability', {
          token,
          body: { queueId, startDate: '2026-10-31', endDate: '2026-11-02' },
        })
      ).body as { peerName: string; totalAvailableTime: number; totalUnavailableTime: number; offDutyTimes: unknown[] }[];
      expect(avail.length).to.be.greaterThan(0);
      for (const a of avail) {
        const row = rows.find((r) => r.peerName === a.peerName && r.queueId === queueId) as Row;
        expect(row, a.peerName).to.include({ availableTime: a.totalAvailableTime, pausedTime: a.totalUnavailableTime });
        expect(row.loginTime).to.equal(a.totalAvailableTime + a.totalUnavailableTime);
        expect(row.pauseTimes).to.deep.equal(a.offDutyTimes);
        const all = rows.find((r) => r.peerName === a.peerName && r.queueId === null) as Row;
        expect(all.nonQueueTalkTime, a.peerName).to.equal((a as unknown as { nonQueueTalkTime: number }).nonQueueTalkTime);
      }
    }
  });

  it('when an agent is in two queues, then its all-queues login is the union of its memberships, not their sum; availability likewise', async () => {
    const rows = await report({});
    const sqlite = rawSqlite(app.deps.database);
    const agent = sqlite.prepare("SELECT id FROM agents WHERE peer = 'PJSIP/102'").pluck().get() as number;
    const [S, E] = [Date.parse('2026-10-31T05:00:00Z') / 1000, Date.parse('2026-11-03T06:00:00Z') / 1000];
    const intervals = (table: string, queueId: number) =>
      sqlite
        .prepare(`SELECT start_at AS s, coalesce(end_at, ?) AS e FROM ${table} WHERE queue_id = ? AND agent = ?`)
        .all(NOW / 1000, queueId, agent) as {
        s: number;
        e: number;
      }[];
    // second by second: a member of at least one queue, and of at least one without a pause there
    let member = 0;
    let available = 0;
    const inAny = (list: { s: number; e: number }[], t: number) => list.some((i) => i.s <= t && t < i.e);
    const sessions = [intervals('agent_sessions', 1), intervals('agent_sessions', 2)];
    const pauses = [intervals('agent_pauses', 1), intervals('agent_pauses', 2)];
    for (let t = S; t < E; t++) {
      if (inAny(sessions[0] ?? [], t) || inAny(sessions[1] ?? [], t)) member++;
      if ([0, 1].some((q) => inAny(sessions[q] ?? [], t) && !inAny(pauses[q] ?? [], t))) available++;
    }
    const all = rows.find((r) => r.peerName === 'PJSIP/102' && r.queueId === null) as Row;
    const perQueue = rows.filter((r) => r.peerName === 'PJSIP/102' && r.queueId !== null);
    expect(all).to.deep.include({ loginTime: member, availableTime: available, pausedTime: member - available, pauseTimes: [] });
    expect(all.loginTime).to.be.lessThan(perQueue.reduce((n, r) => n + r.loginTime, 0)); // the two memberships overlap
    expect(all.loginTime).to.be.at.least(Math.max(...perQueue.map((r) => r.loginTime)));
    expect(all.occupancy).to.equal(Math.round((1000 * all.talkTime) / all.availableTime) / 10);
  });

  it('when every distribution is asked for, then each agent and queue key adds up to its totals row, the DST day by the hour included', async () => {
    const totals = await report({});
    for (const [distribution, body] of [
      ['hourly', { startDate: '2026-10-31', endDate: '2026-11-02' }],
      ['halfHourly', {}],
      ['hourOfDay', {}],
      ['dayOfWeek', {}],
      ['daily', {}],
      ['weekly', {}],
    ] as const) {
      const rows = await report({ distribution, ...body });
      for (const total of totals) {
        const parts = rows.filter((r) => r.peerName === total.peerName && r.queueId === total.queueId);
        expect(parts.length, `${distribution} ${total.peerName} ${total.queueId}`).to.be.greaterThan(0);
        expectAddsUp(parts, total, `${distribution}, ${total.peerName}, queue ${String(total.queueId)}`, {
          skip: NOT_SUMS,
          nested: { pauseTimes: 'offDutyReason' },
        });
      }
    }
  });

  it('when a period has neither a call nor a membership of an agent, then it has no row; an empty range none at all', async () => {
    const rows = await report({ startDate: '2026-01-05', endDate: '2026-01-06', distribution: 'daily' });
    expect(rows).to.deep.equal([]);
    expect(await report({ startDate: '2026-11-01 10:00', endDate: '2026-11-01 10:00', distribution: 'hourly' })).to.deep.equal([]);
  });

  it('when a line names an agent no extension has, then it gets rows of its own under that name, extId and extNum null', async () => {
    const importer = new QueueLogImporter(app.deps.database);
    await importer.importLines([
      '1793923200|temp.1|400|NONE|ENTERQUEUE||+13125550199|1',
      '1793923205|temp.1|400|Temp Agent|CONNECT|5|temp.2|4',
      '1793923265|temp.1|400|Temp Agent|COMPLETECALLER|5|60|1',
    ]);
    await importer.finish();
    const rows = (await report({ startDate: '2026-11-05', endDate: '2026-11-05' })).filter((r) => r.extId === null);
    // its CONNECT made it a static member (R15), still a member now: the whole day logged in
    expect(rows.map((r) => [r.peerName, r.queueId, r.extId, r.extNum, r.name, r.answered, r.talkTime, r.loginTime])).to.deep.equal([
      ['Temp Agent', 1, null, null, '', 1, 60, 86400],
      ['Temp Agent', null, null, null, '', 1, 60, 86400],
    ]);
  });

  it("when another tenant's queue is named, then 404; a bad distribution 400; a basic user 403", async () => {
    const globex = await tokenFor(app, { id: 6 });
    expectError(
      await app.request('POST', PATH, { token: globex, body: { queueId: [2], startDate: '2026-10-31', endDate: '2026-11-02' } }),
      404,
    );
    expectError(
      await app.request('POST', PATH, {
        token,
        body: { queueId: [2], startDate: '2026-10-31', endDate: '2026-11-02', distribution: 'yearly' },
      }),
      400,
      ['distribution'],
    );
    const basic = await tokenFor(app, { id: 4 });
    expectError(
      await app.request('POST', PATH, { token: basic, body: { queueId: [1], startDate: '2026-10-31', endDate: '2026-11-02' } }),
      403,
    );
  });
});

describe("agents of a real Asterisk 22 run: answered calls against each static member's CallsTaken (reporting.md R18, R21)", () => {
  let app: TestApp;
  let token: string;
  const log = sampleLines(join(ASTERISK_RUN, 'queue_log'));

  before(async () => {
    ({ app, token } = await startAsteriskRunApp());
  });
  after(() => app.close());

  it("when the whole run is read, then per queue the agents' answered calls are the queue's, and a static member's are close to its CallsTaken", async () => {
    const body = { queueId: [1, 2, 3], startDate: '2026-11-23', endDate: '2026-11-23' };
    const rows = (await app.request('POST', PATH, { token, body })).body.results as Row[];
    const stats = (await app.request('POST', '/v2/reporting/queues/stats', { token, body })).body.results as {
      queueId: number;
      inboundAnswered: number;
    }[];
    for (const q of stats)
      expect(
        rows.filter((r) => r.queueId === q.queueId).reduce((n, r) => n + r.answered, 0),
        `queue ${q.queueId}`,
      ).to.equal(q.inboundAnswered);
    const members = (amiTranscript().checkpoints.at(-1)?.answer ?? []).filter(
      (m) => m.Event === 'QueueMember' && m.Membership === 'static',
    );
    const checked = new Set<string>();
    for (const m of members) {
      const ext = /^Local\/(\d+)@/.exec(m.Location ?? '')?.[1];
      const all = rows.find((r) => r.queueId === null && r.extNum === Number(ext)) as Row;
      const transfers = log.filter((l) => l.split('|')[3] === m.Name && /TRANSFER$/.test(l.split('|')[4] ?? '')).length;
      const tolerance = Math.max(transfers, 3, 0.05 * all.answered);
      expect(
        Math.abs(Number(m.CallsTaken) - all.answered),
        `${m.Name}: CallsTaken ${m.CallsTaken}, answered ${all.answered}`,
      ).to.be.at.most(tolerance);
      expect(all).to.include({ peerName: `PJSIP/${ext}`, name: m.Name });
      checked.add(m.Name ?? '');
    }
    expect(checked.size).to.equal(7);
    // 208 and 209 (added over AMI, no extension in the fixture) keep rows of their own, under the names the log wrote
    // 208 and 209 were added over AMI: the fixture knows them, and their lines count under their extensions (R14)
    expect(rows.filter((r) => r.queueId === null).every((r) => r.extId !== null)).to.equal(true);
  });
});
