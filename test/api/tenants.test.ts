import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { rowCount } from '../helpers/engine';

// acme.json: user 1 platform admin (tenant 1), 7 partner admin of partner 1 (tenant 1), 2 account admin of tenant 1;
// tenants 1 and 3 of partner 1, tenant 2 of partner 2.
describe('tenants over the API (issue 18): /v2/admin/tenants', () => {
  let app: TestApp;
  let platform: string;
  let partner: string;
  let account: string;
  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-11-22T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    platform = await tokenFor(app, { id: 1 });
    partner = await tokenFor(app, { id: 7 });
    account = await tokenFor(app, { id: 2 });
  });
  after(() => app.close());
  const partnerOf = async (id: number) =>
    (await app.deps.db.selectFrom('tenants').select('partner_id').where('id', '=', id).executeTakeFirstOrThrow()).partner_id;

  it("when a partner admin lists and creates tenants, then it sees its partner's and creates in its partner only; an account admin may not", async () => {
    const listed = await app.request('GET', '/v2/admin/tenants', { token: partner, query: { paginated: 0 } });
    expect(listed.body.records.map((t: { id: number }) => t.id)).to.deep.equal([1, 3]);
    const made = await app.request('POST', '/v2/admin/tenants', { token: partner, body: { name: 'Partner Co', mfaRequired: 1 } });
    expect(made.status).to.equal(201);
    expect(made.body).to.deep.include({ name: 'Partner Co', partnerId: await partnerOf(1), mfaRequired: 1 });
    expectError(await app.request('POST', '/v2/admin/tenants', { token: partner, body: { name: 'Elsewhere', partnerId: 2 } }), 403);
    expectError(await app.request('GET', '/v2/admin/tenants/2', { token: partner }), 404);
    expectError(await app.request('GET', '/v2/admin/tenants', { token: account }), 403);
    expect((await app.request('GET', '/v2/admin/tenants/2', { token: platform })).body.name).to.equal('Globex Inc');
  });

  it('when a tenant that owns records is deleted, then 409 naming them; with cascade=1 it goes with all of them', async () => {
    const refused = await app.request('DELETE', '/v2/admin/tenants/2', { token: platform });
    expectError(refused, 409);
    expect(refused.body.message).to.match(/^Tenant 2 still owns 1 branch, 1 user, .*; delete with cascade=1 /);
    expectError(await app.request('DELETE', '/v2/admin/tenants/1?cascade=1', { token: platform }), 409); // its own tenant
    const tables = ['branches', 'users', 'extensions', 'queues', 'phone_numbers', 'webhooks', 'saved_filters', 'cdr_calls'];
    const left = (table: string, tenant: number) => rowCount(app.deps.db, table, { tenant_id: tenant });
    const tenantOneBefore = await Promise.all(tables.map((table) => left(table, 1)));
    const gone = await app.request('DELETE', '/v2/admin/tenants/2?cascade=1', { token: platform });
    expect(gone.status).to.equal(200);
    for (const table of tables) expect(await left(table, 2), table).to.equal(0);
    expectError(await app.request('GET', '/v2/admin/tenants/2', { token: platform }), 404);
    // The cascade takes tenant 2's records only: tenant 1 keeps every one of its own.
    expect(await Promise.all(tables.map((table) => left(table, 1)))).to.deep.equal(tenantOneBefore);
    expect(tenantOneBefore[tables.indexOf('users')]).to.be.greaterThan(0);
    expect((await app.request('GET', '/v2/admin/tenants/1', { token: platform })).body.id).to.equal(1);
  });

  it('when a tenant is changed, then a partner admin may rename it but not move it to another partner', async () => {
    const made = await app.request('POST', '/v2/admin/tenants', {
      token: platform,
      body: { name: 'Moveable', partnerId: await partnerOf(1) },
    });
    expect(
      (await app.request('PATCH', `/v2/admin/tenants/${made.body.id}`, { token: partner, body: { name: 'Renamed' } })).body.name,
    ).to.equal('Renamed');
    expectError(await app.request('PATCH', `/v2/admin/tenants/${made.body.id}`, { token: partner, body: { partnerId: 2 } }), 403);
    expect(
      (await app.request('PATCH', `/v2/admin/tenants/${made.body.id}`, { token: platform, body: { partnerId: 2 } })).body.partnerId,
    ).to.equal(2);
    expectError(await app.request('GET', `/v2/admin/tenants/${made.body.id}`, { token: partner }), 404);
    const empty = await app.request('DELETE', `/v2/admin/tenants/${made.body.id}`, { token: platform });
    expect(empty.body).to.deep.include({ id: made.body.id, name: 'Renamed' });
  });
});
