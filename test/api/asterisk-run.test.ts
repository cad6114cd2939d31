import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { TestApp } from '../helpers/app';
import { amiTranscript } from '../helpers/ami-transcript';
import { ASTERISK_RUN, startAsteriskRunApp } from '../helpers/pbx-logs';
import { rawSqlite } from '../helpers/engine';

/**
 * reporting.md R14, R15, R18: the logs of a real Asterisk 22 run (test/fixtures/asterisk/README.md) against
 * the counters Asterisk itself reported in its last QueueStatus answer, read from the recorded AMI transcript.
 */
const QUEUE_LOG = join(ASTERISK_RUN, 'queue_log');

/** Asterisk's own counters: the QueueParams and QueueMember events of the last QueueStatus answer. */
function asteriskCounters() {
  const answer = amiTranscript().checkpoints.at(-1)?.answer ?? [];
  return {
    queues: answer
      .filter((m) => m.Event === 'QueueParams')
      .map((m) => ({ queue: m.Queue, completed: Number(m.Completed), abandoned: Number(m.Abandoned) })),
    members: answer
      .filter((m) => m.Event === 'QueueMember')
      .map((m) => ({
        queue: m.Queue,
        name: m.Name ?? '',
        location: m.Location ?? '',
        static: m.Membership === 'static',
        callsTaken: Number(m.CallsTaken),
      })),
  };
}

/** Lines of the queue_log by (queue, event) and by (agent, event), counted straight from the file. */
function logCounts() {
  const byQueue = new Map<string, number>();
  const byAgent = new Map<string, number>();
  for (const line of readFileSync(QUEUE_LOG, 'utf8').split('\n')) {
    const [, , queue = '', agent = '', event] = line.split('|');
    if (event === undefined) continue;
    byQueue.set(`${queue}|${event}`, (byQueue.get(`${queue}|${event}`) ?? 0) + 1);
    byAgent.set(`${agent}|${event}`, (byAgent.get(`${agent}|${event}`) ?? 0) + 1);
  }
  return { queue: (q: string, e: string) => byQueue.get(`${q}|${e}`) ?? 0, agent: (a: string, e: string) => byAgent.get(`${a}|${e}`) ?? 0 };
}

/** R18's tolerance for an answered count: the larger of the transfers, 3, and 5 % of the count. */
const tolerance = (transfers: number, answered: number) => Math.max(transfers, 3, 0.05 * answered);

describe('a real Asterisk 22 run, checked against Asterisk itself (reporting.md R14, R15, R18)', () => {
  let app: TestApp;
  let token: string;
  const ast = asteriskCounters();
  const log = logCounts();
  let summary: Record<string, unknown>;

  before(async () => {
    ({ app, token, summary } = await startAsteriskRunApp());
  });
  after(() => app.close());

  it('when the transcript is read, then Asterisk reported three queues and seven static members', () => {
    expect(ast.queues.map((q) => q.queue).sort()).to.deep.equal(['billing', 'sales', 'support']);
    expect(new Set(ast.members.filter((m) => m.static).map((m) => m.name)).size).to.equal(7);
  });

  it('when the log is imported, then every agent name resolves (member names, Local interfaces) and only unused events are skipped', () => {
    expect(summary).to.deep.include({ unknownQueues: {}, unknownAgents: {}, toMap: [] });
  });

  for (const queue of ['sales', 'support', 'billing']) {
    it(`when queue ${queue}'s figures are asked for, then abandoned equals Asterisk's exactly and answered is within R18's tolerance`, async () => {
      const queueId = { sales: 1, support: 2, billing: 3 }[queue] as number;
      const res = await app.request('POST', '/v2/reporting/queues/stats', {
        token,
        body: { queueId: [queueId], startDate: '2026-11-23', endDate: '2026-11-23' },
      });
      expect(res.status).to.equal(201);
      const row = (res.body.results as { abandons: number; exitTimeout: number; inboundAnswered: number }[])[0] ?? {
        abandons: -1,
        exitTimeout: 0,
        inboundAnswered: -1,
      };
      const counters = ast.queues.find((q) => q.queue === queue);
      expect(row.abandons + row.exitTimeout + log.queue(queue, 'EXITEMPTY')).to.equal(counters?.abandoned);
      const transfers = log.queue(queue, 'BLINDTRANSFER') + log.queue(queue, 'ATTENDEDTRANSFER');
      expect(Math.abs((counters?.completed as number) - row.inboundAnswered)).to.be.at.most(tolerance(transfers, row.inboundAnswered));
    });
  }

  it("when static members' answered calls are counted under their extensions, then each is within R18's tolerance of its CallsTaken", () => {
    const answered = rawSqlite(app.deps.database)
      .prepare(
        `SELECT a.peer, count(*) AS n FROM queue_events e JOIN agents a ON a.id = e.agent WHERE e.event BETWEEN 3 AND 6 GROUP BY a.peer`,
      )
      .all() as { peer: string; n: number }[];
    const byPeer = new Map(answered.map((r) => [r.peer, r.n]));
    const statics = new Map(ast.members.filter((m) => m.static).map((m) => [m.name, m]));
    expect(statics.size).to.equal(7);
    for (const [name, m] of statics) {
      const ext = /^Local\/(\d+)@/.exec(m.location)?.[1];
      const n = byPeer.get(`PJSIP/${ext}`) ?? 0;
      const transfers = log.agent(name, 'BLINDTRANSFER') + log.agent(name, 'ATTENDEDTRANSFER');
      expect(Math.abs(m.callsTaken - n), `${name}: CallsTaken ${m.callsTaken}, log ${n}`).to.be.at.most(tolerance(transfers, n));
    }
    // No line is left under a member name or an interface: one agent, one row (R14).
    expect([...byPeer.keys()].every((p) => p.startsWith('PJSIP/'))).to.equal(true);
  });

  it('when the availability of a queue is asked for, then its static members are listed once each, under their peerName, with time available', async () => {
    const res = await app.request('POST', '/v2/reporting/queues/agent-availability', {
      token,
      body: { queueId: 1, startDate: '2026-11-23', endDate: '2026-11-23' },
    });
    expect(res.status).to.equal(201);
    const rows = res.body as Array<{ peerName: string; name: string; totalAvailableTime: number; queueTalkTime: number }>;
    const staticSales = ast.members.filter((m) => m.queue === 'sales' && m.static).map((m) => m.name);
    for (const name of staticSales) {
      const matching = rows.filter((r) => r.name === name);
      expect(matching, name).to.have.length(1);
      expect(matching[0]?.peerName).to.match(/^PJSIP\/20\d$/);
      expect(matching[0]?.totalAvailableTime, name).to.be.greaterThan(0);
      expect(matching[0]?.queueTalkTime, name).to.be.greaterThan(0);
    }
    expect(new Set(rows.map((r) => r.peerName)).size).to.equal(rows.length);
  });
});
