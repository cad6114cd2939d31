import { expect } from 'chai';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { download, parseCsv, readXlsx } from '../helpers/sheets';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

/**
 * Saved filters and scheduled e-mails of the queue reports (reporting.md R24): module names, their urls and
 * postParams, the attachment's format, against a real SMTP server on loopback. Data: acme.json and the sample logs.
 */
const MODULES = {
  'queue-stats': { path: '/v2/reporting/queues/stats', params: { queueId: [1, 2], distribution: 'hourly' } },
  'queue-agent-availability': { path: '/v2/reporting/queues/agent-availability', params: { queueId: 1 } },
  'queue-service-level': { path: '/v2/reporting/queues/service-level', params: { queueId: [1, 2], serviceLevelThresholds: [20] } },
  'queue-agents': { path: '/v2/reporting/queues/agents', params: { queueId: [1, 2] } },
  'queue-lost-calls': { path: '/v2/reporting/queues/lost-calls', params: { queueId: [1, 2], recoveryWindowHours: 48 } },
  'queue-agent-sessions': { path: '/v2/reporting/queues/agent-sessions', params: { queueId: [2] } },
} as const;

describe('saved filters and scheduled e-mails of the queue reports (reporting.md R24)', function () {
  this.timeout(60_000);
  let smtp: TestSmtp;
  let app: TestApp;
  let token: string;
  const create = (body: Record<string, unknown>) =>
    app.request('POST', '/v2/reporting/saved', {
      token,
      body: { tenantId: 1, name: 'Queue report', scheduled: 1, frequency: 'daily', recipients: 'sup@acme.example', ...body },
    });

  before(async () => {
    smtp = await startSmtp();
    app = await startTestApp({ clock: new TestClock(Date.parse('2026-11-10T12:00:00Z')), env: { TARS_SMTP_URL: smtp.url } });
    await seedAcmeWithSampleLogs(app);
    token = await tokenFor(app, { id: 3 }); // the reports admin
  });
  after(async () => {
    await app.close();
    await smtp.close();
  });

  for (const [module, { path, params }] of Object.entries(MODULES))
    for (const format of ['csv', 'xlsx'] as const) {
      it(`when a ${module} filter asking for ${format} is run for a day, then the e-mail attaches exactly the report's ${format} of that day`, async () => {
        const made = await create({ module, url: path, name: `${module} ${format}`, postParams: { ...params, format } });
        expect(made.status, made.text).to.equal(201);
        smtp.received.splice(0);
        const run = await app.request('POST', `/v2/reporting/saved/${made.body[0].id}/run`, { token, body: { for: '2026-11-01' } });
        expect(run.status, run.text).to.be.oneOf([200, 201]);
        expect(run.body).to.include({ status: 'sent', periodStart: '2026-11-01' });
        const [mail] = smtp.received.splice(0);
        const attachment = mail?.parsed.attachments[0];
        expect(attachment?.filename).to.equal(`${module}-${format}-2026-11-01.${format}`);
        const direct = await download(app.url, `${path}?format=${format}`, token, {
          body: { ...params, startDate: '2026-11-01', endDate: '2026-11-01' },
        });
        if (format === 'csv') {
          expect(attachment?.contentType).to.match(/^text\/csv/);
          const rows = parseCsv(attachment?.content.toString('utf8') ?? '');
          expect(rows).to.deep.equal(parseCsv(direct.bytes.toString('utf8')));
          // the run counts the report's rows (agent sessions: its agents and queues, each spread over a row per interval)
          if (module !== 'queue-agent-sessions') expect(run.body.rows).to.equal(rows.length - 1);
          else expect(run.body.rows).to.equal(new Set(rows.slice(1).map((r) => `${r[1]}|${r[3]}`)).size);
          expect(rows.length).to.be.greaterThan(1);
        } else {
          expect(await readXlsx(attachment?.content as Buffer)).to.deep.equal(await readXlsx(direct.bytes));
        }
        expect(mail?.parsed.text).to.include('2026-11-01 to 2026-11-01 (America/Chicago)');
      });
    }

  it('when a calls filter asks for xlsx, then its attachment is an XLSX of the calls', async () => {
    const made = await create({
      module: 'calls',
      url: '/v2/reporting/calls',
      name: 'Calls as a workbook',
      postParams: { direction: 'inbound', format: 'xlsx' },
    });
    expect(made.status, made.text).to.equal(201);
    smtp.received.splice(0);
    await app.request('POST', `/v2/reporting/saved/${made.body[0].id}/run`, { token, body: { for: '2026-10-31' } });
    const [mail] = smtp.received.splice(0);
    expect(mail?.parsed.attachments[0]?.filename).to.equal('calls-as-a-workbook-2026-10-31.xlsx');
    const [sheet] = await readXlsx(mail?.parsed.attachments[0]?.content as Buffer);
    const api = await app.request('GET', '/v2/reporting/calls', {
      token,
      query: { tenantId: 1, startDate: '2026-10-31', endDate: '2026-10-31', direction: 'inbound', paginated: 0 },
    });
    expect((sheet as { data: unknown[][] }).data.slice(1).map((r) => r[0])).to.deep.equal(
      api.body.records.map((r: { id: number }) => r.id),
    );
  });

  it("when a filter names an unknown module, another module's url, no queues, a foreign queue, a bad format or query params, then 400 naming the field", async () => {
    expectError(await create({ module: 'queues', url: '/v2/reporting/queues/stats', postParams: { queueId: [1] } }), 400, ['module']);
    expectError(await create({ module: 'queue-stats', url: '/v2/reporting/calls', postParams: { queueId: [1] } }), 400, ['url']);
    expectError(await create({ module: 'queue-stats', url: '/v2/reporting/queues/stats?queueId=1', postParams: { queueId: [1] } }), 400, [
      'url',
    ]);
    expectError(await create({ module: 'queue-stats', url: '/v2/reporting/queues/stats', postParams: {} }), 400, ['postParams', 'queueId']);
    expectError(await create({ module: 'queue-stats', url: '/v2/reporting/queues/stats' }), 400, ['postParams']);
    expectError(await create({ module: 'queue-stats', url: '/v2/reporting/queues/stats', postParams: { queueId: [3] } }), 400, [
      'postParams.queueId',
      'tenant 1',
    ]);
    expectError(
      await create({ module: 'queue-agents', url: '/v2/reporting/queues/agents', postParams: { queueId: [1], format: 'pdf' } }),
      400,
      ['postParams.format'],
    );
    expectError(await create({ module: 'calls', url: '/v2/reporting/calls', postParams: { format: 'json' } }), 400, ['postParams.format']);
    expectError(
      await create({
        module: 'queue-lost-calls',
        url: '/v2/reporting/queues/lost-calls',
        postParams: { queueId: [1], recoveryWindowHours: 500 },
      }),
      400,
      ['postParams', 'recoveryWindowHours'],
    );
    expectError(
      await create({
        module: 'queue-stats',
        url: '/v2/reporting/queues/stats',
        queryParams: { queueId: '1' },
        postParams: { queueId: [1] },
      }),
      400,
      ['queryParams'],
    );
    const made = await create({ module: 'queue-stats', url: '/v2/reporting/queues/stats', postParams: { queueId: [1] } });
    expect(made.status).to.equal(201);
    expectError(
      await app.request('PATCH', `/v2/reporting/saved/${made.body[0].id}`, { token, body: { postParams: { queueId: [3] } } }),
      400,
      ['postParams.queueId'],
    );
    expectError(await app.request('PATCH', `/v2/reporting/saved/${made.body[0].id}`, { token, body: { module: 'queue-agents' } }), 400, [
      'url',
    ]);
  });
});
