import { expect } from 'chai';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhooks/event-types';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { twoTenants } from '../helpers/factories';
import { buildWebhook } from '../helpers/records';

const PATH = '/v2/webhooks';

describe('webhooks', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  const req = (method: string, path: string, opts: { body?: unknown; query?: Record<string, string | number> } = {}, token = cast.tokenA) =>
    app.request(method, `${PATH}${path}`, { token, ...opts });

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
  });
  after(() => app.close());

  it('when the types are listed, then exactly the catalogue, each with a description of its trigger', async () => {
    const res = await req('GET', '/list-types');
    expect(res.status).to.equal(200);
    expect(res.body.map((t: { type: string }) => t.type)).to.deep.equal([
      'STARTCALL',
      'ENDCALL',
      'INBOUNDSMS',
      'NEWVOICEMAIL',
      'QUEUECALLABANDONED',
      'QUEUEALERT',
      'QUEUEALERTCLEARED',
      'REPORTSENT',
      'REPORTFAILED',
    ]);
    expect(res.body).to.deep.equal(WEBHOOK_EVENT_TYPES.map(({ type, description }) => ({ type, description })));
    expect(res.body.find((t: { type: string }) => t.type === 'INBOUNDSMS').description).to.match(/never fires/);
  });

  it('when a webhook is created, then 201 with its seven fields (no secret), and a whsec_ signing secret is stored', async () => {
    const body = { tenantId: cast.a.id, type: 'NEWVOICEMAIL', url: 'https://hooks.example.test/vm', username: 'u', password: 'p' };
    const res = await req('POST', '/', { body });
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.equal({ id: res.body.id, ...body, authtoken: null });
    const row = await app.deps.database.db.selectFrom('webhooks').select('secret').where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(row.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.text).not.to.include(row.secret);
  });

  it('when the type is not in the catalogue or the url is not http(s), then one 400 names both', async () => {
    const res = await req('POST', '/', { body: { tenantId: cast.a.id, type: 'SOMETHING', url: 'ftp://hooks.example.test/' } });
    expectError(res, 400, ['type', 'url']);
    expect(res.body.validationErrors.join(' ')).to.include('STARTCALL');
    expectError(await req('POST', '/', { body: { tenantId: cast.a.id, type: 'ENDCALL', url: 'not a url' } }), 400, ['url']);
  });

  it('when a webhook is patched, then the fields given change, null clears a credential, and the type is checked', async () => {
    const h = await buildWebhook(app.deps.database.db, cast.a.id, { username: 'u', password: 'p', authtoken: null });
    const res = await req('PATCH', `/${h.id}`, { body: { url: 'http://hooks.example.test/new', password: null, authtoken: 'tok' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      id: h.id,
      tenantId: cast.a.id,
      type: 'ENDCALL',
      url: 'http://hooks.example.test/new',
      username: 'u',
      password: null,
      authtoken: 'tok',
    });
    expectError(await req('PATCH', `/${h.id}`, { body: { type: 'NOPE', tenantId: cast.b.id } }), 400, ['type', 'tenantId']);
    expect((await req('PATCH', `/${h.id}`, { body: {} })).body).to.deep.equal(res.body);
  });

  it('when a webhook that delivery disabled (410 Gone) is patched, then it is enabled again', async () => {
    const db = app.deps.database.db;
    const h = await buildWebhook(db, cast.a.id);
    await db
      .updateTable('webhooks')
      .set({ disabled_at: '2026-11-22T10:00:00.000Z', disabled_reason: 'the receiver answered 410' })
      .where('id', '=', h.id)
      .execute();
    expect((await req('PATCH', `/${h.id}`, { body: { url: 'https://hooks.example.test/moved' } })).status).to.equal(200);
    const row = await db.selectFrom('webhooks').select(['disabled_at', 'disabled_reason']).where('id', '=', h.id).executeTakeFirstOrThrow();
    expect(row).to.deep.equal({ disabled_at: null, disabled_reason: null });
  });

  it('when a tenant is listed, then its webhooks in id order in the four-field form; tenantId is required', async () => {
    const db = app.deps.database.db;
    const a1 = await buildWebhook(db, cast.a.id);
    await buildWebhook(db, cast.b.id);
    const res = await req('GET', '/', { query: { tenantId: cast.a.id } });
    expect(res.body.every((h: { tenantId: number }) => h.tenantId === cast.a.id)).to.equal(true);
    expect(res.body.find((h: { id: number }) => h.id === a1.id)).to.deep.equal({
      id: a1.id,
      tenantId: cast.a.id,
      type: 'ENDCALL',
      url: a1.url,
    });
    const ids = res.body.map((h: { id: number }) => h.id);
    expect(ids).to.deep.equal([...ids].sort((x: number, y: number) => x - y));
    expectError(await req('GET', '/'), 400, ['tenantId']);
    expectError(await req('GET', '/', { query: { tenantId: cast.b.id } }), 403);
  });

  it('when a webhook is deleted, then 200 with its seven fields, and it is 404 and unlisted afterwards', async () => {
    const h = await buildWebhook(app.deps.database.db, cast.a.id, { authtoken: 'tok' });
    const res = await req('DELETE', `/${h.id}`);
    expect(res.body).to.deep.equal({
      id: h.id,
      tenantId: cast.a.id,
      type: 'ENDCALL',
      url: h.url,
      username: null,
      password: null,
      authtoken: 'tok',
    });
    expectError(await req('GET', `/${h.id}`), 404);
    expectError(await req('DELETE', `/${h.id}`), 404);
    expect((await req('GET', '/', { query: { tenantId: cast.a.id } })).body.map((x: { id: number }) => x.id)).not.to.include(h.id);
  });

  it("when another tenant's webhook is read, changed or deleted, then 404 and it is unchanged", async () => {
    const h = await buildWebhook(app.deps.database.db, cast.b.id);
    expectError(await req('GET', `/${h.id}`), 404);
    expectError(await req('PATCH', `/${h.id}`, { body: { url: 'https://evil.example.test/' } }), 404);
    expectError(await req('DELETE', `/${h.id}`), 404);
    expect((await req('GET', `/${h.id}`, {}, cast.tokenB)).body.url).to.equal(h.url);
  });
});
