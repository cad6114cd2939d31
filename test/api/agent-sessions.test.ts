import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';

const PATH = '/v2/reporting/queues/agent-sessions';
const NOW = Date.parse('2026-11-22T12:00:00Z');
interface Interval {
  start: string;
  end: string | null;
  seconds: number;
  reason?: string;
}
interface Pair {
  extId: number | null;
  peerName: string;
  name: string;
  queueId: number;
  queueName: string;
  sessions: Interval[];
  pauses: Interval[];
}

describe('POST /v2/reporting/queues/agent-sessions on the sample (reporting.md R23)', () => {
  let app: TestApp;
  let token: string;
  const post = (body: Record<string, unknown>) =>
    app.request('POST', PATH, { token, body: { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-11-02', ...body } });

  before(async () => {
    app = await startTestApp({ clock: { now: () => NOW } });
    await seedAcmeWithSampleLogs(app);
    token = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());

  it("when the sample's range is read, then each agent and queue has its logins and pauses in order, adding up to the agents report", async () => {
    const res = await post({ distribution: 'hourly' }); // checked, then ignored
    expect(res.status).to.equal(201);
    const pairs = res.body as Pair[];
    expect(pairs.map((p) => [p.peerName, p.queueId])).to.deep.equal([
      ['PJSIP/101', 1],
      ['PJSIP/102', 1],
      ['PJSIP/102', 2],
      ['PJSIP/103', 2],
    ]);
    const agents = (
      await app.request('POST', '/v2/reporting/queues/agents', {
        token,
        body: { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-11-02' },
      })
    ).body.results as { peerName: string; queueId: number | null; loginTime: number; pausedTime: number }[];
    for (const p of pairs) {
      const row = agents.find((a) => a.peerName === p.peerName && a.queueId === p.queueId);
      const sum = (list: Interval[]) => list.reduce((n, i) => n + i.seconds, 0);
      expect(sum(p.sessions), `${p.peerName} ${p.queueId}`).to.equal(row?.loginTime);
      expect(sum(p.pauses)).to.equal(row?.pausedTime);
      for (const list of [p.sessions, p.pauses])
        for (let i = 0; i < list.length; i++) {
          const x = list[i] as Interval;
          expect(Date.parse(x.end as string) - Date.parse(x.start)).to.equal(x.seconds * 1000);
          if (i > 0) expect(Date.parse(x.start)).to.be.at.least(Date.parse((list[i - 1] as Interval).start));
        }
      expect(p.pauses.length).to.be.greaterThan(2);
    }
    const first = pairs[0] as Pair;
    expect(first).to.include({ extId: 1, name: 'Alice Smith', queueName: 'Support' });
    expect(first.sessions[0]?.start).to.match(/^2026-10-31T\d\d:\d\d:\d\d-05:00$/);
    expect(new Set(pairs.flatMap((p) => p.pauses.map((x) => x.reason)))).to.include('Lunch');
  });

  it('when the range reaches past now, then an interval still open has no end and runs to now; one clipped at E ends at E', async () => {
    const open = (await post({ startDate: '2026-11-20', endDate: '2026-11-25' })).body as Pair[];
    const still = open.flatMap((p) => p.sessions.filter((s) => s.end === null).map((s) => ({ ...s, who: p.peerName })));
    expect(still.length).to.be.greaterThan(0);
    for (const s of still) expect(s.seconds).to.equal(NOW / 1000 - Date.parse(s.start) / 1000);
    const past = (await post({ startDate: '2026-11-20', endDate: '2026-11-20' })).body as Pair[];
    for (const s of past.flatMap((p) => p.sessions)) expect(s).to.include({ end: '2026-11-21T00:00:00-06:00', seconds: 86400 });
  });

  it("when another tenant's queue is named, then 404, and a basic user 403", async () => {
    const globex = await tokenFor(app, { id: 6 });
    expectError(
      await app.request('POST', PATH, { token: globex, body: { queueId: [1], startDate: '2026-10-31', endDate: '2026-11-02' } }),
      404,
    );
    const basic = await tokenFor(app, { id: 4 });
    expectError(
      await app.request('POST', PATH, { token: basic, body: { queueId: [1], startDate: '2026-10-31', endDate: '2026-11-02' } }),
      403,
    );
  });
});
