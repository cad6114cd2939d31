import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import { buildSavedFilter } from '../helpers/records';

const PATH = '/v2/reporting/saved';
const NOW = '2026-11-22T13:34:23.456Z';

describe('saved filters', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  let reports: { id: number; token: string };
  const req = (method: string, path: string, body?: unknown, token = reports.token) =>
    app.request(method, `${PATH}${path}`, { token, body });
  const filter = (extra: Record<string, unknown> = {}) => ({
    tenantId: cast.a.id,
    url: '/v2/reporting/calls',
    module: 'calls',
    name: 'Missed calls',
    ...extra,
  });

  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse(NOW) } });
    cast = await twoTenants(app);
    const u = await buildUser(app.deps.database.db, cast.a.id, ROLE.reports);
    reports = { id: u.id, token: await tokenFor(app, u) };
  });
  after(() => app.close());

  it('when a reports admin creates a filter, then 201 with an array holding it: owner the caller, error 0, no deletedAt', async () => {
    const res = await req('POST', '/', filter());
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.equal([
      {
        id: res.body[0].id,
        userId: reports.id,
        tenantId: cast.a.id,
        apiUrl: '/v2/reporting/calls',
        module: 'calls',
        createdAt: NOW,
        deletedAt: null,
        name: 'Missed calls',
        description: null,
        scheduled: 0,
        recipients: null,
        frequency: null,
        error: 0,
        errorDescription: null,
        queryParams: null,
        postParams: null,
      },
    ]);
  });

  it('when every field is given, then each is stored as given (no filter defaults are added to the params)', async () => {
    const extra = {
      description: 'Weekly',
      scheduled: 1,
      frequency: 'weekly',
      recipients: 'one@example.test, two@example.test',
      url: '/v2/reporting/calls?direction=inbound',
      queryParams: { disposition: 'NO ANSWER', extension: '101' },
      postParams: { startDate: '2026-01-01', queueId: 2 },
    };
    const [f] = (await req('POST', '/', filter(extra))).body;
    const { url, ...rest } = extra;
    expect(f).to.deep.include({ ...rest, apiUrl: url });
    expect((await req('GET', `/${f.id}`)).body).to.deep.equal(f);
  });

  it('when scheduled is 1 without frequency and recipients, then 400 naming both; bad e-mails → 400 naming recipients', async () => {
    expectError(await req('POST', '/', filter({ scheduled: 1 })), 400, ['frequency', 'recipients']);
    expectError(await req('POST', '/', filter({ scheduled: 1, frequency: 'daily', recipients: 'boss@example.test,not-an-address' })), 400, [
      'recipients',
    ]);
    expectError(await req('POST', '/', filter({ scheduled: 2, frequency: 'hourly', module: 'queues' })), 400, [
      'scheduled',
      'frequency',
      'module',
    ]);
  });

  it('when the url is not the calls report or its query string has a bad filter, then 400 naming url', async () => {
    expectError(await req('POST', '/', filter({ url: '/v2/reporting/queues/stats' })), 400, ['url must name the calls report']);
    const res = await req('POST', '/', filter({ url: '/v2/reporting/calls/?direction=sideways&colour=red' }));
    expectError(res, 400, ['url query direction', 'url query colour']);
  });

  it('when queryParams or postParams break the calls-report filters, then 400 naming the parameter', async () => {
    expectError(await req('POST', '/', filter({ queryParams: { direction: 'up', bogus: 1 } })), 400, [
      'queryParams.direction',
      'queryParams.bogus',
    ]);
    // postParams are a JSON body (no coercion): a number given as text is refused there, accepted in queryParams.
    expectError(await req('POST', '/', filter({ postParams: { extension: '101', startDate: 'yesterday' } })), 400, [
      'postParams.extension',
      'postParams.startDate',
    ]);
    expectError(await req('POST', '/', filter({ queryParams: { tenantId: cast.b.id } })), 400, ['queryParams.tenantId']);
  });

  it('when a PATCH makes the filter scheduled, then the rules are judged on the result', async () => {
    const f = await buildSavedFilter(app.deps.database.db, cast.a.id, reports.id);
    expectError(await req('PATCH', `/${f.id}`, { scheduled: 1 }), 400, ['frequency', 'recipients']);
    const ok = await req('PATCH', `/${f.id}`, {
      scheduled: 1,
      frequency: 'monthly',
      recipients: 'boss@example.test',
      description: 'Monthly',
    });
    expect(ok.body).to.deep.include({
      scheduled: 1,
      frequency: 'monthly',
      recipients: 'boss@example.test',
      description: 'Monthly',
      name: f.name,
      userId: reports.id,
    });
    expectError(await req('PATCH', `/${f.id}`, { recipients: null }), 400, ['recipients']);
    expectError(await req('PATCH', `/${f.id}`, { tenantId: cast.b.id, userId: 1 }), 400, ['tenantId', 'userId']);
  });

  it('when a filter is deleted, then it comes back with deletedAt set, keeps its row, and is missing to every read', async () => {
    const f = await buildSavedFilter(app.deps.database.db, cast.a.id, reports.id, { description: 'Kept' });
    const res = await req('DELETE', `/${f.id}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: f.id, deletedAt: NOW, name: f.name });
    const row = await app.deps.database.db.selectFrom('saved_filters').selectAll().where('id', '=', f.id).executeTakeFirstOrThrow();
    expect(row).to.include({ deleted_at: NOW, name: f.name, description: 'Kept' });
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Back' }], ['DELETE']] as const)
      expectError(await req(method, `/${f.id}`, body), 404);
    const listed = await app.request('GET', PATH, { token: reports.token, query: { paginated: 0 } });
    expect(listed.body.records.map((r: { id: number }) => r.id)).not.to.include(f.id);
  });

  it("when listed, then the live filters of the caller's tenant, in id order, paged", async () => {
    const db = app.deps.database.db;
    const mine = await buildSavedFilter(db, cast.a.id, cast.adminA.id);
    await buildSavedFilter(db, cast.b.id, cast.adminB.id);
    const res = await app.request('GET', PATH, { token: reports.token, query: { paginated: 0 } });
    expect(res.body.records.every((r: { tenantId: number }) => r.tenantId === cast.a.id)).to.equal(true);
    expect(res.body.records.map((r: { id: number }) => r.id)).to.include(mine.id);
    const page = await app.request('GET', PATH, { token: reports.token, query: { recordsPerPage: 1, page: 2 } });
    expect(page.body).to.include({ page: 2, total: res.body.total, maxPage: res.body.total });
    expect(page.body.records[0].id).to.equal(res.body.records[1].id);
  });

  it("when another tenant's filter is read, changed or deleted, then 404; naming its tenant → 403", async () => {
    const f = await buildSavedFilter(app.deps.database.db, cast.b.id, cast.adminB.id, { name: 'Globex only' });
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Mine now' }], ['DELETE']] as const)
      expectError(await req(method, `/${f.id}`, body), 404);
    expectError(await req('POST', '/', filter({ tenantId: cast.b.id })), 403);
    expect((await req('GET', `/${f.id}`, undefined, cast.tokenB)).body).to.include({ name: 'Globex only', deletedAt: null });
  });

  it('when a queue manager or a basic user calls any saved-filter route, then 403', async () => {
    const f = await buildSavedFilter(app.deps.database.db, cast.a.id, reports.id);
    for (const role of [ROLE.queues, ROLE.basic]) {
      const token = await tokenFor(app, await buildUser(app.deps.database.db, cast.a.id, role));
      expectError(await req('POST', '/', filter(), token), 403);
      for (const method of ['GET', 'DELETE']) expectError(await req(method, `/${f.id}`, undefined, token), 403);
      expectError(await req('PATCH', `/${f.id}`, { name: 'No' }, token), 403);
      expectError(await app.request('GET', PATH, { token }), 403);
    }
  });
});
