import { expect } from 'chai';
import { parseCdrLine, type CdrRecord } from '../../src/modules/pbx-logs/cdr-line';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { CDR_SAMPLE, sampleLines, seedAcmeWithSampleLogs } from '../helpers/pbx-logs';

const CALLS = '/v2/reporting/calls';
const USERS = { root: 1, admin: 2, reports: 3, basic: 4, globex: 6, queues: 8 } as const;
type Rec = {
  id: number;
  uniqueId: string;
  start: string;
  direction: string;
  extension: number | null;
  queueId: number | null;
  source: string;
  destination: string;
  disposition: string;
};

describe('GET and POST /v2/reporting/calls', () => {
  let app: TestApp;
  const token: Partial<Record<keyof typeof USERS, string>> = {};
  const get = (who: keyof typeof USERS, query: Record<string, string | number>) => app.request('GET', CALLS, { token: token[who], query });
  // The sample rows that have a tenant: all but the ten IVR hang-ups (trunk to "s") and the two broken lines.
  const rows = sampleLines(CDR_SAMPLE)
    .map((line) => parseCdrLine(line))
    .filter((r): r is CdrRecord => typeof r !== 'string' && r.dst !== 's');

  before(async () => {
    app = await startTestApp();
    await seedAcmeWithSampleLogs(app);
    for (const [name, id] of Object.entries(USERS)) token[name as keyof typeof USERS] = await tokenFor(app, { id });
  });
  after(() => app.close());

  it("when an admin lists its tenant's calls, then every imported call is there, newest first, 50 a page", async () => {
    const res = await get('admin', { tenantId: 1 });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ total: rows.length, page: 1, maxPage: Math.ceil(rows.length / 50) });
    const starts = (res.body.records as Rec[]).map((r) => Date.parse(r.start));
    expect(starts).to.deep.equal([...starts].sort((a, b) => b - a));
    expect(res.body.records).to.have.length(50);
  });

  it('when a call is shown, then direction, extension and queue follow the README rules', async () => {
    const all = (await get('admin', { paginated: 0 })).body.records as Rec[];
    const byId = (uniqueId: string) => all.filter((r) => r.uniqueId === uniqueId);
    expect(byId('1793455922.101')[0]).to.include({
      direction: 'outbound',
      extension: 102,
      source: '102',
      destination: '18725551242',
      queueId: null,
      disposition: 'ANSWERED',
    });
    expect(byId('1793466196.122')[0]).to.include({ direction: 'inbound', extension: 102, queueId: null }); // a DID dialled straight to 102
    expect(byId('1793566106.217')[0]).to.include({ direction: 'internal', extension: 103, destination: '102' });
    expect(byId('1793456889.102')[0]).to.include({ direction: 'inbound', extension: 102, queueId: 1 });
    expect(
      byId('1793458044.104')
        .map((r) => r.extension)
        .sort(),
    ).to.deep.equal([102, 103]); // one row per agent rung
  });

  it('when filters are given, then only matching calls are listed', async () => {
    const count = async (query: Record<string, string | number>) => (await get('admin', { tenantId: 1, ...query })).body.total as number;
    const dialledOut = rows.filter((r) => r.lastApp === 'Dial' && /^PJSIP\/10\d-/.test(r.channel) && r.dst.length > 3);
    expect(await count({ direction: 'outbound' })).to.equal(dialledOut.length);
    expect(await count({ disposition: 'BUSY' })).to.equal(rows.filter((r) => r.disposition === 'BUSY').length);
    expect(await count({ queueId: 2 })).to.equal(rows.filter((r) => r.lastApp === 'Queue' && r.dst === '401').length);
    expect(await count({ number: '(847) 555' })).to.equal(rows.filter((r) => `${r.src} ${r.dst}`.includes('847555')).length);
    expect(await count({ extension: 101 })).to.equal(
      rows.filter((r) => r.channel.startsWith('PJSIP/101-') || r.dstChannel.startsWith('PJSIP/101-') || r.dst === '101').length,
    );
    const nov1 = rows.filter(
      (r) => r.start >= Date.parse('2026-11-01T05:00:00Z') / 1000 && r.start < Date.parse('2026-11-02T06:00:00Z') / 1000,
    );
    expect(await count({ startDate: '2026-11-01', endDate: '2026-11-01' })).to.equal(nov1.length);
    expect(await count({ startDate: '2026-11-01', endDate: '2026-11-01', direction: 'internal' })).to.equal(
      nov1.filter((r) => r.dst.length === 3 && r.lastApp === 'Dial' && /^PJSIP\/10\d-/.test(r.channel)).length,
    );
  });

  it('when pages are asked for, then §5b paging applies; paginated=0 gives every record', async () => {
    const page2 = await get('admin', { recordsPerPage: 10, page: 2 });
    expect(page2.body).to.include({ page: 2, maxPage: Math.ceil(rows.length / 10), total: rows.length });
    expect(page2.body.records).to.have.length(10);
    expect((await get('admin', { recordsPerPage: 10, page: 99 })).body.records).to.deep.equal([]);
    const all = await get('admin', { paginated: 0 });
    expect(all.body).to.include({ page: 1, maxPage: 1, total: rows.length });
    expect(all.body.records).to.have.length(rows.length);
  });

  it('when POST carries the same filters, then 201 with the same page', async () => {
    const filters = { tenantId: 1, direction: 'inbound', recordsPerPage: 20 };
    const viaGet = await get('admin', filters);
    const viaPost = await app.request('POST', CALLS, { token: token.admin, body: filters });
    expect(viaPost.status).to.equal(201);
    expect(viaPost.body).to.deep.equal(viaGet.body);
  });

  it("when another tenant's admin lists, then it sees none of these calls and naming tenant 1 is 403", async () => {
    expect((await get('globex', {})).body.total).to.equal(0);
    expectError(await get('globex', { tenantId: 1 }), 403);
    expect((await get('root', { tenantId: 1 })).body.total).to.equal(rows.length);
  });

  it('when the role lacks reporting.calls.read (basic user, queue manager), then 403; a reports admin may', async () => {
    expectError(await get('basic', {}), 403);
    expectError(await get('queues', {}), 403);
    expect((await get('reports', {})).status).to.equal(200);
  });

  it('when a filter is unknown or out of range, then 400 naming it', async () => {
    expectError(await get('admin', { colour: 'red' }), 400, ['colour']);
    expectError(await get('admin', { recordsPerPage: 1001 }), 400, ['recordsPerPage']);
    expectError(await get('admin', { direction: 'sideways' }), 400, ['direction']);
    expectError(await get('admin', { startDate: '2026-11-02', endDate: '2026-11-01' }), 400, ['startDate']);
  });
});
