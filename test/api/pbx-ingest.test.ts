import { expect } from 'chai';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { FIXTURES } from '../helpers/pbx-logs';
import { rawSqlite } from '../helpers/engine';

const QLOG = '/v2/reporting/ingest/queue-log';
const CDR = '/v2/reporting/ingest/cdr';
const LINES = [
  '1793456897|1793456889.102|400|NONE|ENTERQUEUE||+17085555908|1',
  '1793456906|1793456889.102|400|PJSIP/102|CONNECT|9|1793456898.103|8',
  '1793456997|1793456889.102|400|PJSIP/102|COMPLETECALLER|9|91|1',
];
const GLOBEX = ['1793456897|77.1|500|NONE|ENTERQUEUE||+1|1'];

describe('POST /v2/reporting/ingest/queue-log and /cdr', () => {
  let app: TestApp;
  let admin: string;
  let globex: string;
  let reports: string;

  before(async () => {
    app = await startTestApp();
    await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(`${FIXTURES}/acme.json`), new Date());
    admin = await tokenFor(app, { id: 2 });
    globex = await tokenFor(app, { id: 6 });
    reports = await tokenFor(app, { id: 3 });
  });
  after(() => app.close());

  it('when an account admin sends lines of its queue, then 201 with the summary, and the report counts them', async () => {
    const res = await app.request('POST', QLOG, { token: admin, body: { lines: [...LINES, '', 'garbage'] } });
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.equal({
      read: 5,
      imported: 3,
      duplicates: 0,
      skipped: 2,
      skippedBy: { 'blank line': 1, 'not a queue_log record': 1 },
      unknownQueues: {},
      unknownAgents: {},
      toMap: [],
      timezone: 'UTC',
    });
    const stats = await app.request('POST', '/v2/reporting/queues/stats', {
      token: admin,
      body: { queueId: [1], startDate: '2026-10-31', endDate: '2026-10-31' },
    });
    expect(stats.body.results[0]).to.include({ totalInbound: 1, inboundAnswered: 1, talkTime: 91, ringTime: 8 });
  });

  it('when the same lines are sent again, then they are duplicates', async () => {
    const res = await app.request('POST', QLOG, { token: admin, body: { lines: LINES } });
    expect(res.body).to.include({ imported: 0, duplicates: 3 });
  });

  it("when lines name another tenant's queue, then they are skipped like an unknown queue and nothing is stored", async () => {
    const res = await app.request('POST', QLOG, { token: admin, body: { lines: GLOBEX } });
    expect(res.body).to.deep.include({ imported: 0, unknownQueues: { 500: 1 } });
    const stored = rawSqlite(app.deps.database).prepare('SELECT count(*) FROM queue_events WHERE queue_id = 3').pluck().get();
    expect(stored).to.equal(0);
    expect((await app.request('POST', QLOG, { token: globex, body: { lines: GLOBEX } })).body).to.include({ imported: 1 });
  });

  it('when CDR lines are sent, then the calls report lists them', async () => {
    const row =
      '"","102","18725551242","from-internal","""Bob Jones"" <102>","PJSIP/102-0000001b","PJSIP/voip-trunk-0000001c","Dial","PJSIP/1@t","2026-10-31 14:12:02","2026-10-31 14:12:24","2026-10-31 14:14:47",165,143,"ANSWERED","DOCUMENTATION","1793455922.101",""';
    expect((await app.request('POST', CDR, { token: admin, body: { lines: [row] } })).body).to.include({ imported: 1 });
    const calls = await app.request('GET', '/v2/reporting/calls', { token: admin });
    expect(calls.body.records.map((r: { uniqueId: string; direction: string }) => [r.uniqueId, r.direction])).to.deep.equal([
      ['1793455922.101', 'outbound'],
    ]);
  });

  it("when CDR lines come with the PBX's timezone, then their wall-clock times are read in it; an unknown zone or unreadable lines are refused", async () => {
    const row =
      '"","101","18725550000","from-internal","""Alice Smith"" <101>","PJSIP/101-00000031","PJSIP/voip-trunk-00000032","Dial","PJSIP/1@t","2026-11-04 12:00:00","2026-11-04 12:00:10","2026-11-04 12:01:10",70,60,"ANSWERED","DOCUMENTATION","1793793600.31",""';
    const res = await app.request('POST', CDR, { token: admin, body: { lines: [row], timezone: 'Europe/Moscow' } });
    expect(res.body).to.include({ imported: 1, timezone: 'Europe/Moscow' });
    const start = rawSqlite(app.deps.database).prepare("SELECT start_at FROM cdr_calls WHERE unique_id = '1793793600.31'").pluck().get();
    expect(start).to.equal(Date.parse('2026-11-04T09:00:00Z') / 1000);
    expectError(await app.request('POST', CDR, { token: admin, body: { lines: [row], timezone: 'Mars/Olympus' } }), 400, ['timezone']);
    const refused = await app.request('POST', CDR, { token: admin, body: { lines: ['a,b,c', 'not,a,cdr'] } });
    expectError(refused, 400);
    expect(refused.body.message).to.include('No row of this file can be read as a Master.csv');
  });

  it('when the role lacks reporting.logs.ingest, or the body is not {lines}, then 403 or 400', async () => {
    expectError(await app.request('POST', QLOG, { token: reports, body: { lines: LINES } }), 403);
    expectError(await app.request('POST', QLOG, { token: admin, body: { line: 'x' } }), 400, ['lines', 'line']);
    expectError(await app.request('POST', CDR, { token: admin, body: { lines: [] } }), 400, ['lines']);
    expectError(await app.request('POST', QLOG, { raw: LINES.join('\n'), contentType: 'text/plain', token: admin }), 415);
  });

  it('when lines were ingested, refused or not, then /metrics counts them by log kind, outcome and skip reason', async () => {
    const text = (await app.request('GET', '/metrics')).text;
    const lines = (labels: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`tars_import_lines{${labels}} `))
          ?.split(' ')
          .pop(),
      );
    expect(lines('kind="queue-log",outcome="imported",reason=""')).to.equal(4);
    expect(lines('kind="queue-log",outcome="duplicate",reason=""')).to.equal(3);
    expect(lines('kind="queue-log",outcome="skipped",reason="blank line"')).to.equal(1);
    expect(lines('kind="queue-log",outcome="skipped",reason="not a queue_log record"')).to.equal(1);
    expect(lines('kind="queue-log",outcome="skipped",reason="unknown queue"')).to.equal(1);
    expect(lines('kind="cdr",outcome="imported",reason=""')).to.equal(2);
    expect(text, 'a refused request (403, 400, unreadable lines) counts no line').not.to.match(
      /tars_import_lines\{kind="cdr",outcome="(duplicate|skipped)"/,
    );
  });
});
