import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import { sql } from 'kysely';

describe('transport and errors (decisions.md §1, §2)', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
  });
  after(() => app.close());

  it('when /healthz is called without a token, then 200 {"status":"ok"}', async () => {
    const res = await app.request('GET', '/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ok' });
  });

  it('when a route does not exist, then 404 in the error shape', async () => {
    expectError(await app.request('GET', '/v2/no-such-thing', { token: cast.tokenA }), 404);
  });

  it('when the body is not valid JSON, then 400; sent as text/plain, then 415', async () => {
    expectError(await app.request('POST', '/v2/admin/branches', { token: cast.tokenA, raw: '{"tenantId": 1,' }), 400);
    expectError(
      await app.request('POST', '/v2/admin/branches', {
        token: cast.tokenA,
        raw: JSON.stringify({ tenantId: cast.a.id, name: 'Text plain' }),
        contentType: 'text/plain',
      }),
      415,
    );
  });

  it('when the body is over 1 MiB, then 413 and the server keeps serving', async () => {
    const big = JSON.stringify({ tenantId: cast.a.id, name: 'N'.repeat(1024 * 1024) });
    expectError(await app.request('POST', '/v2/admin/branches', { token: cast.tokenA, raw: big }), 413);
    expect((await app.request('GET', '/healthz')).status).to.equal(200);
  });

  it('when a path has a trailing slash or not, then it is the same route', async () => {
    expect(
      (await app.request('POST', '/v2/admin/branches', { token: cast.tokenA, body: { tenantId: cast.a.id, name: 'No slash' } })).status,
    ).to.equal(201);
    expect(
      (await app.request('POST', '/v2/admin/branches/', { token: cast.tokenA, body: { tenantId: cast.a.id, name: 'With slash' } })).status,
    ).to.equal(201);
  });

  it('when there is no token and the body is malformed, then 401 (authentication first)', async () => {
    expectError(await app.request('POST', '/v2/admin/branches', { raw: '{"tenantId":' }), 401);
  });

  it('when a basic user sends an invalid body, then 400 (the body is checked before the role)', async () => {
    const basic = await buildUser(app.deps.database.db, cast.a.id, ROLE.basic);
    expectError(
      await app.request('POST', '/v2/admin/branches', { token: await tokenFor(app, basic), body: { tenantId: cast.a.id, name: 'Bx' } }),
      400,
      ['name'],
    );
  });

  it('when a request carries X-Request-Id, then the response echoes it; otherwise one is made', async () => {
    const given = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).to.equal('abc-123');
    const made = await app.request('GET', '/healthz');
    expect(made.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('when something unexpected fails, then 500 GeneralError with a generic message and no internals', async () => {
    await sql`ALTER TABLE tenants RENAME TO tenants_gone`.execute(app.deps.db);
    try {
      const res = await app.request('POST', '/v2/admin/branches', { token: cast.tokenRoot, body: { tenantId: cast.a.id, name: 'Broken' } });
      expectError(res, 500);
      expect(res.text).not.to.match(/SQLITE|relation|tenants|at \S+ \(|\.ts:\d+/);
    } finally {
      await sql`ALTER TABLE tenants_gone RENAME TO tenants`.execute(app.deps.db);
    }
  });
});
