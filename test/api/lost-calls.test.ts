import { join } from 'node:path';
import { expect } from 'chai';
import { CdrImporter } from '../../src/modules/pbx-logs/cdr-importer';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { amiTranscript } from '../helpers/ami-transcript';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { ASTERISK_RUN, sampleLines, seedAcmeWithSampleLogs, startAsteriskRunApp } from '../helpers/pbx-logs';

const PATH = '/v2/reporting/queues/lost-calls';
interface Lost {
  queueId: number;
  callId: string;
  callerIdNum: string;
  enteredAt: string;
  leftAt: string;
  outcome: string;
  waitTime: number;
  position: number | null;
  originalPosition: number | null;
  short: boolean;
  recovery: null | { how: string; at: string; afterSeconds: number; [k: string]: unknown };
}
interface Answer {
  records: Lost[];
  page: number;
  maxPage: number;
  total: number;
  summary: Record<string, unknown>[];
}

/** 2026-12-01 09:00 CST (tenant 1 of acme.json is in America/Chicago), as epoch seconds. */
const T0 = Date.parse('2026-12-01T15:00:00Z') / 1000;
const utc = (t: number) => new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ');
let seq = 0;
/** A cdr_csv row (the import reads it as UTC here): an agent's Dial, or a call to an extension. */
function dial(from: string, dst: string, start: number, answered: boolean, channel = `PJSIP/${from}-0000aa${++seq}`): string {
  const end = start + 60;
  return `"","${from}","${dst}","from-internal","""Agent"" <${from}>","${channel}","PJSIP/voip-trunk-0000bb${seq}","Dial","PJSIP/${dst}@voip-trunk,300,T","${utc(start)}","${answered ? utc(start + 5) : ''}","${utc(end)}",60,${answered ? 55 : 0},"${answered ? 'ANSWERED' : 'NO ANSWER'}","DOCUMENTATION","${start}.${seq}",""`;
}
const q = (t: number, callid: string, queue: string, agent: string, event: string, data: string) =>
  `${T0 + t}|${callid}|${queue}|${agent}|${event}|${data}`;

/** Each case of reporting.md R22 on 2026-12-01, one caller each. */
const LINES = [
  // A: abandons after 40 s; PJSIP/101 calls back 9 + the number 10 minutes later: called back
  q(0, 'a.1', '400', 'NONE', 'ENTERQUEUE', '|+1 (312) 555-0101|1'),
  q(40, 'a.1', '400', 'NONE', 'ABANDON', '2|3|40'),
  // B: times out after 300 s, calls in again 2 h later (queue 401) and is answered: called in
  q(100, 'b.1', '400', 'NONE', 'ENTERQUEUE', '|3125550102|1'),
  q(400, 'b.1', '400', 'NONE', 'EXITWITHTIMEOUT', '1|1|300'),
  q(7300, 'b.2', '401', 'NONE', 'ENTERQUEUE', '|+13125550102|1'),
  q(7310, 'b.2', '401', 'PJSIP/103', 'CONNECT', '10|b.3|4'),
  q(7400, 'b.2', '401', 'PJSIP/103', 'COMPLETECALLER', '10|90|1'),
  // C: abandons; called back 25 h later: too late for 24 h, in time for 26 h
  q(200, 'c.1', '400', 'NONE', 'ENTERQUEUE', '|+13125550103|2'),
  q(215, 'c.1', '400', 'NONE', 'ABANDON', '1|2|15'),
  // D: an anonymous caller hangs up after 3 s (short); later anonymous calls are answered, but match nothing
  q(300, 'd.1', '400', 'NONE', 'ENTERQUEUE', '|anonymous|1'),
  q(303, 'd.1', '400', 'NONE', 'ABANDON', '1|1|3'),
  q(900, 'd.2', '400', 'NONE', 'ENTERQUEUE', '|anonymous|1'),
  q(905, 'd.2', '400', 'PJSIP/101', 'CONNECT', '5|d.3|2'),
  q(990, 'd.2', '400', 'PJSIP/101', 'COMPLETEAGENT', '5|85|1'),
  // E: presses 2 to go to 401 and is answered there: not lost in 400 (a choice, R3)
  q(500, 'e.1', '400', 'NONE', 'ENTERQUEUE', '|+13125550105|1'),
  q(520, 'e.1', '400', 'NONE', 'EXITWITHKEY', '2|1|1|20'),
  q(521, 'e.1', '401', 'NONE', 'ENTERQUEUE', '|+13125550105|1'),
  q(530, 'e.1', '401', 'PJSIP/103', 'CONNECT', '9|e.2|3'),
  q(600, 'e.1', '401', 'PJSIP/103', 'COMPLETEAGENT', '9|70|1'),
  // F: abandons; an agent's call back and the caller's own answered call come at the same second: called back wins
  q(1000, 'f.1', '401', 'NONE', 'ENTERQUEUE', '|3125550106|1'),
  q(1010, 'f.1', '401', 'NONE', 'ABANDON', '1|1|10'),
  q(4000, 'f.2', '401', 'NONE', 'ENTERQUEUE', '|3125550106|1'),
  q(4005, 'f.2', '401', 'PJSIP/103', 'CONNECT', '5|f.3|3'),
  q(4100, 'f.2', '401', 'PJSIP/103', 'COMPLETECALLER', '5|95|1'),
  // G: leaves an empty queue; an agent dials it while it still waited (before it left), then gets no answer: not recovered
  q(2000, 'g.1', '401', 'NONE', 'ENTERQUEUE', '|3125550107|1'),
  q(2600, 'g.1', '401', 'NONE', 'EXITEMPTY', '1|1|600'),
  // H: an Asterisk 1.4 timeout without positions
  q(3000, 'h.1', '401', 'NONE', 'ENTERQUEUE', '|3125550108|1'),
  q(3030, 'h.1', '401', 'NONE', 'EXITWITHTIMEOUT', '1'),
];
const CDR = [
  dial('101', '913125550101', T0 + 640, true),
  dial('102', '3125550103', T0 + 215 + 25 * 3600, true),
  dial('102', '3125550106', T0 + 4000, true),
  dial('103', '3125550107', T0 + 2300, true), // while it waited
  dial('103', '3125550107', T0 + 2700, false), // after, not answered
  dial('anonymous', 'anonymous', T0 + 400, true, 'PJSIP/voip-trunk-0000cc1'), // not an extension's call
];

describe('POST /v2/reporting/queues/lost-calls (reporting.md R22)', () => {
  let app: TestApp;
  let token: string;
  const report = async (extra: Record<string, unknown> = {}) => {
    const res = await app.request('POST', PATH, {
      token,
      body: { queueId: [1, 2], startDate: '2026-12-01', endDate: '2026-12-01', paginated: 0, ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as Answer;
  };
  const byCall = (a: Answer) => new Map(a.records.map((r) => [r.callId, r]));

  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-12-10T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    const queueLog = new QueueLogImporter(app.deps.database);
    await queueLog.importLines(LINES);
    await queueLog.finish();
    const cdr = new CdrImporter(app.deps.database);
    await cdr.importLines(CDR);
    await cdr.finish();
    token = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());

  it('when the day is read, then every lost caller is listed oldest first with its number, times, outcome and positions; a queue chosen by key is not lost', async () => {
    const a = await report();
    expect(a.records.map((r) => r.callId)).to.deep.equal(['a.1', 'b.1', 'c.1', 'd.1', 'f.1', 'g.1', 'h.1']);
    expect(a).to.include({ page: 1, maxPage: 1, total: 7 });
    expect(byCall(a).get('a.1')).to.deep.include({
      queueId: 1,
      callerIdNum: '+1 (312) 555-0101',
      enteredAt: '2026-12-01T09:00:00-06:00',
      leftAt: '2026-12-01T09:00:40-06:00',
      outcome: 'abandon',
      waitTime: 40,
      position: 2,
      originalPosition: 3,
      short: false,
    });
    expect(byCall(a).get('b.1')).to.include({ outcome: 'timeout', waitTime: 300 });
    expect(byCall(a).get('g.1')).to.include({ outcome: 'empty', queueId: 2 });
    expect(byCall(a).get('h.1')).to.include({ outcome: 'timeout', waitTime: 30, position: 1, originalPosition: null });
  });

  it('when an agent called the number back, or the caller called in again and was answered, then that is its recovery', async () => {
    const a = byCall(await report());
    expect(a.get('a.1')?.recovery).to.deep.equal({
      how: 'calledBack',
      at: '2026-12-01T09:10:40-06:00',
      afterSeconds: 600,
      peerName: 'PJSIP/101',
      extId: 1,
    });
    expect(a.get('b.1')?.recovery).to.deep.equal({
      how: 'calledIn',
      at: '2026-12-01T11:01:40-06:00',
      afterSeconds: 6900,
      queueId: 2,
      callId: 'b.2',
    });
    expect(a.get('f.1')?.recovery).to.include({ how: 'calledBack', afterSeconds: 2990 }); // the call back and the call in at the same second
  });

  it('when the call back comes after the window, before the caller left, or unanswered, then there is no recovery; a wider window finds the late one', async () => {
    const a = byCall(await report());
    expect(a.get('c.1')?.recovery).to.equal(null);
    expect(a.get('g.1')?.recovery).to.equal(null);
    const wide = byCall(await report({ recoveryWindowHours: 26 }));
    expect(wide.get('c.1')?.recovery).to.include({ how: 'calledBack', afterSeconds: 25 * 3600, peerName: 'PJSIP/102' });
  });

  it('when the caller is anonymous, then it is listed, short when it hung up at once, and never matched to anyone', async () => {
    const d = byCall(await report()).get('d.1');
    expect(d).to.include({ callerIdNum: 'anonymous', short: true, waitTime: 3 });
    expect(d?.recovery).to.equal(null);
  });

  it('when the summary is read, then it counts every lost call of each queue over the range, whatever the page', async () => {
    const a = await report({ paginated: 1, recordsPerPage: 2, page: 2 });
    expect(a.records.map((r) => r.callId)).to.deep.equal(['c.1', 'd.1']);
    expect(a).to.include({ page: 2, maxPage: 4, total: 7 });
    expect(a.summary).to.deep.equal([
      {
        queueId: 1,
        queueName: 'Support',
        lost: 4,
        short: 1,
        recovered: 2,
        recoveredCalledBack: 1,
        recoveredCalledIn: 1,
        unrecovered: 2,
        avgRecoverySeconds: 3750,
      },
      {
        queueId: 2,
        queueName: 'Sales',
        lost: 3,
        short: 0,
        recovered: 1,
        recoveredCalledBack: 1,
        recoveredCalledIn: 0,
        unrecovered: 2,
        avgRecoverySeconds: 2990,
      },
    ]);
    const none = await report({ startDate: '2026-01-05', endDate: '2026-01-05' });
    expect(none.records).to.deep.equal([]);
    expect(none.summary.map((s) => [s.lost, s.avgRecoverySeconds])).to.deep.equal([
      [0, null],
      [0, null],
    ]);
  });

  it('when the window, the short abandon or the paging is out of range, or the queue is foreign, then 400 or 404', async () => {
    const post = (extra: Record<string, unknown>, who = token) =>
      app.request('POST', PATH, { token: who, body: { queueId: [1], startDate: '2026-12-01', endDate: '2026-12-01', ...extra } });
    for (const bad of [0, 169, 1.5]) expectError(await post({ recoveryWindowHours: bad }), 400, ['recoveryWindowHours']);
    expectError(await post({ recordsPerPage: 1001 }), 400, ['recordsPerPage']);
    expectError(await post({ page: 0 }), 400, ['page']);
    expectError(await post({ shortAbandonSeconds: 601 }), 400, ['shortAbandonSeconds']);
    expectError(await post({}, await tokenFor(app, { id: 6 })), 404);
    expect((await post({ recoveryWindowHours: 168, distribution: 'quarterHourly' })).status).to.equal(201);
  });
});

describe('lost calls of a real Asterisk 22 run (reporting.md R18, R22)', () => {
  let app: TestApp;
  let token: string;
  const log = sampleLines(join(ASTERISK_RUN, 'queue_log'));

  before(async () => {
    ({ app, token } = await startAsteriskRunApp());
  });
  after(() => app.close());

  it("when the run is read, then per queue the lost callers but the key presses are Asterisk's Abandoned, and each has the number of its ENTERQUEUE", async () => {
    const res = await app.request('POST', PATH, {
      token,
      body: { queueId: [1, 2, 3], startDate: '2026-11-23', endDate: '2026-11-23', paginated: 0 },
    });
    expect(res.status).to.equal(201);
    const a = res.body as Answer;
    const params = (amiTranscript().checkpoints.at(-1)?.answer ?? []).filter((m) => m.Event === 'QueueParams');
    for (const [name, queueId] of [
      ['sales', 1],
      ['support', 2],
      ['billing', 3],
    ] as const) {
      const notKeys = a.records.filter((r) => r.queueId === queueId && r.outcome !== 'keypress').length;
      expect(notKeys, name).to.equal(Number(params.find((m) => m.Queue === name)?.Abandoned));
    }
    const enterOf = new Map(
      log.filter((l) => l.split('|')[4] === 'ENTERQUEUE').map((l) => [`${l.split('|')[1]}|${l.split('|')[2]}`, l.split('|')[6]]),
    );
    const names = ['', 'sales', 'support', 'billing'];
    for (const r of a.records) expect(r.callerIdNum, r.callId).to.equal(enterOf.get(`${r.callId}|${names[r.queueId]}`));
    // a key press that moved the caller to another queue (sales → billing, key 2) is not lost; a callback request (key 1) is
    const keys = log.filter((l) => l.split('|')[4] === 'EXITWITHKEY');
    const moved = keys.filter((k) =>
      log.some((l) => l.split('|')[1] === k.split('|')[1] && l.split('|')[4] === 'ENTERQUEUE' && l.split('|')[2] !== k.split('|')[2]),
    );
    expect(moved.length).to.be.greaterThan(0);
    expect(a.records.filter((r) => r.outcome === 'keypress').length).to.equal(keys.length - moved.length);
    expect(a.summary.reduce((n, s) => n + (s.lost as number), 0)).to.equal(a.total);
  });
});
