import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { buildSavedFilter } from '../helpers/records';

/*
 * Issue 27, point 5: nobody changes anything about a user above its own role, and a partner admin always has a
 * partner: promoted by PATCH it gets its tenant's, it creates tenants in it, and it never moves a tenant out of it
 * (nor to partner 0).
 */
describe('security: roles and partners (issue 27)', () => {
  let app: TestApp;
  const db = () => app.deps.database.db;
  const userRow = (id: number) => db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const tenantRow = (id: number) => db().selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const patchUser = (token: string, id: number, body: object) => app.request('PATCH', `/v2/admin/users/${id}`, { token, body });

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('when an account admin changes anything of a user above its own role, then 403 and nothing changes; of its peers and below it may', async () => {
    const tenant = await buildTenant(db(), { partnerId: 31 });
    const branch = await buildBranch(db(), tenant.id);
    const admin = await buildUser(db(), tenant.id, ROLE.account);
    const token = await tokenFor(app, admin);
    for (const role of [ROLE.platform, ROLE.partner]) {
      const above = await buildUser(db(), tenant.id, role, { partner_id: role === ROLE.partner ? 31 : 0 });
      const before = await userRow(above.id);
      expectError(await patchUser(token, above.id, { branchId: branch.id }), 403);
      expectError(await patchUser(token, above.id, { extId: null }), 403);
      expectError(await app.request('DELETE', `/v2/admin/users/${above.id}`, { token }), 403);
      expect(await userRow(above.id)).to.deep.equal(before);
    }
    const peer = await buildUser(db(), tenant.id, ROLE.account);
    const basic = await buildUser(db(), tenant.id, ROLE.basic);
    expect((await patchUser(token, peer.id, { branchId: branch.id })).status).to.equal(200);
    expect((await patchUser(token, basic.id, { branchId: branch.id })).status).to.equal(200);
  });

  it('when a user is made a partner admin (PATCH or POST), then it gets its tenant partner; in a tenant of no partner, 409 and nothing changes', async () => {
    const partnered = await buildTenant(db(), { partnerId: 32 });
    const lone = await buildTenant(db());
    const root = await tokenFor(app, await buildUser(db(), lone.id, ROLE.platform));
    const promoted = await buildUser(db(), partnered.id, ROLE.basic);
    const res = await patchUser(root, promoted.id, { userRole: ROLE.partner });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ userRole: ROLE.partner, partnerId: 32 });
    // Taken back down, it keeps no partner.
    expect((await patchUser(root, promoted.id, { userRole: ROLE.basic })).body).to.include({ userRole: ROLE.basic, partnerId: 0 });

    const stranded = await buildUser(db(), lone.id, ROLE.basic);
    const before = await userRow(stranded.id);
    expectError(await patchUser(root, stranded.id, { userRole: ROLE.partner }), 409);
    expect(await userRow(stranded.id)).to.deep.equal(before);
    const created = await app.request('POST', '/v2/admin/users', {
      token: root,
      body: { tenantId: lone.id, email: 'partnerless@example.test', password: 'long enough', userRole: ROLE.partner },
    });
    expectError(created, 409);
  });

  it('when a partner admin creates or moves tenants, then only ever within its own partner, never to partner 0, even when its row says partner 0', async () => {
    const home = await buildTenant(db(), { partnerId: 33 });
    const sibling = await buildTenant(db(), { partnerId: 33 });
    // A partner admin whose row says no partner (a fixture, a promotion before issue 27) reaches its tenant's partner.
    for (const partnerId of [33, 0]) {
      const token = await tokenFor(app, await buildUser(db(), home.id, ROLE.partner, { partner_id: partnerId }));
      expectError(await app.request('PATCH', `/v2/admin/tenants/${sibling.id}`, { token, body: { partnerId: 0 } }), 403);
      expectError(await app.request('PATCH', `/v2/admin/tenants/${sibling.id}`, { token, body: { partnerId: 34 } }), 403);
      expect((await tenantRow(sibling.id)).partner_id).to.equal(33);
      expectError(await app.request('POST', '/v2/admin/tenants', { token, body: { name: 'Nowhere', partnerId: 0 } }), 403);
      const made = await app.request('POST', '/v2/admin/tenants', { token, body: { name: `Inside ${partnerId}` } });
      expect(made.status, made.text).to.equal(201);
      expect(made.body.partnerId).to.equal(33);
    }
  });

  it('when a tenant is deleted with cascade, then a caller may not take with it a user above its own role', async () => {
    const doomed = await buildTenant(db(), { partnerId: 35 });
    const partner = await buildUser(db(), (await buildTenant(db(), { partnerId: 35 })).id, ROLE.partner, { partner_id: 35 });
    const root = await buildUser(db(), doomed.id, ROLE.platform);
    const res = await app.request('DELETE', `/v2/admin/tenants/${doomed.id}?cascade=1`, { token: await tokenFor(app, partner) });
    expectError(res, 403);
    expect((await userRow(root.id)).id).to.equal(root.id);
  });

  it("when a tenant's user owns a saved filter of a tenant the caller does not reach, then the 409 does not name that filter or tenant", async () => {
    const doomed = await buildTenant(db(), { partnerId: 40 });
    const foreign = await buildTenant(db(), { partnerId: 41 });
    const owner = await buildUser(db(), doomed.id, ROLE.partner, { partner_id: 41 });
    const filter = await buildSavedFilter(db(), foreign.id, owner.id);
    const caller = await buildUser(db(), (await buildTenant(db(), { partnerId: 40 })).id, ROLE.partner, { partner_id: 40 });
    const res = await app.request('DELETE', `/v2/admin/tenants/${doomed.id}?cascade=1`, { token: await tokenFor(app, caller) });
    expectError(res, 409);
    expect(res.body.message).not.to.include(`filter ${filter.id}`);
    expect(res.body.message).not.to.match(new RegExp(`tenant ${foreign.id}\\b`));
  });
});
