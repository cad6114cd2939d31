import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';

describe('POST /v2/admin/branches/', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  const create = (token: string, body: unknown) => app.request('POST', '/v2/admin/branches/', { token, body });

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
  });
  after(() => app.close());

  it('when an account admin creates a branch, then it gets 201 with the Branch object', async () => {
    const res = await create(cast.tokenA, { tenantId: cast.a.id, name: 'Main office', timezone: 'Europe/Paris', default: 0 });
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.include({
      name: 'Main office',
      timezone: 'Europe/Paris',
      default: 0,
      tenant: { id: cast.a.id, name: cast.a.name },
    });
    expect(res.body.id).to.be.a('number').greaterThan(0);
  });

  it('when timezone and default are omitted, then the tenant default branch timezone and default 0 are used', async () => {
    const t = await buildTenant(app.deps.database.db);
    await buildBranch(app.deps.database.db, t.id, { timezone: 'Asia/Tokyo', isDefault: 1 });
    const res = await create(cast.tokenRoot, { tenantId: t.id, name: 'Osaka' });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ timezone: 'Asia/Tokyo', default: 0 });
  });

  it('when the tenant has no default branch, then the timezone defaults to UTC', async () => {
    const t = await buildTenant(app.deps.database.db);
    const res = await create(cast.tokenRoot, { tenantId: t.id, name: 'Nowhere' });
    expect(res.body.timezone).to.equal('UTC');
  });

  it('when a new branch is the default, then the old default loses it in the same transaction', async () => {
    const db = app.deps.database.db;
    const t = await buildTenant(db);
    const old = await buildBranch(db, t.id, { isDefault: 1 });
    const res = await create(cast.tokenRoot, { tenantId: t.id, name: 'New HQ', default: 1 });
    expect(res.body.default).to.equal(1);
    const defaults = await db.selectFrom('branches').select('id').where('tenant_id', '=', t.id).where('is_default', '=', 1).execute();
    expect(defaults.map((d) => d.id)).to.deep.equal([res.body.id]);
    expect(defaults.map((d) => d.id)).not.to.include(old.id);
  });

  it('when the name has 3 characters it is accepted; 2 characters → 400 naming name', async () => {
    expect((await create(cast.tokenA, { tenantId: cast.a.id, name: 'Abc' })).status).to.equal(201);
    expectError(await create(cast.tokenA, { tenantId: cast.a.id, name: 'Ab' }), 400, ['name']);
  });

  it('when the timezone is not an IANA name, then 400 naming timezone; an alias the runtime knows is accepted', async () => {
    expectError(await create(cast.tokenA, { tenantId: cast.a.id, name: 'Mars base', timezone: 'Mars/Olympus' }), 400, ['timezone']);
    expect(
      (await create(cast.tokenA, { tenantId: cast.a.id, name: 'BA office', timezone: 'America/Argentina/Buenos_Aires' })).status,
    ).to.equal(201);
  });

  it('when tenantId is 0, default is 2 and a property is unknown, then one 400 lists all three', async () => {
    const res = await create(cast.tokenA, { tenantId: 0, name: 'Good name', default: 2, colour: 'red' });
    expectError(res, 400, ['tenantId', 'default', 'colour']);
    expect(res.body.validationErrors).to.have.length(3);
  });

  it('when another tenant is named, then 403 and nothing is written', async () => {
    const before = await app.deps.database.db.selectFrom('branches').select('id').where('tenant_id', '=', cast.a.id).execute();
    expectError(await create(cast.tokenB, { tenantId: cast.a.id, name: 'Intruder' }), 403);
    const after_ = await app.deps.database.db.selectFrom('branches').select('id').where('tenant_id', '=', cast.a.id).execute();
    expect(after_.length).to.equal(before.length);
  });

  it('when the role lacks admin.branches.create (basic, reports admin, queue manager), then 403', async () => {
    const db = app.deps.database.db;
    for (const role of [ROLE.basic, ROLE.reports, ROLE.queues]) {
      const u = await buildUser(db, cast.a.id, role);
      expectError(await create(await tokenFor(app, u), { tenantId: cast.a.id, name: 'Not mine' }), 403);
    }
  });

  it('when a user is granted admin.branches.create on top of its role, then it may create; a denial wins over the role', async () => {
    const db = app.deps.database.db;
    const granted = await buildUser(db, cast.a.id, ROLE.basic, { permissions: JSON.stringify(['admin.branches.*']) });
    expect((await create(await tokenFor(app, granted), { tenantId: cast.a.id, name: 'Granted' })).status).to.equal(201);
    const denied = await buildUser(db, cast.a.id, ROLE.account, { permissions: JSON.stringify(['!admin.#']) });
    expectError(await create(await tokenFor(app, denied), { tenantId: cast.a.id, name: 'Denied' }), 403);
  });

  it('when a partner admin names a tenant of its partner it may; another partner → 403', async () => {
    const db = app.deps.database.db;
    const sibling = await buildTenant(db, { partnerId: cast.a.partnerId });
    const partner = await buildUser(db, cast.a.id, ROLE.partner, { partner_id: cast.a.partnerId });
    const token = await tokenFor(app, partner);
    expect((await create(token, { tenantId: sibling.id, name: 'Sibling office' })).body.tenant).to.deep.equal({
      id: sibling.id,
      name: sibling.name,
    });
    expectError(await create(token, { tenantId: cast.b.id, name: 'Foreign office' }), 403);
  });

  it('when the platform admin names a tenant that does not exist, then 404', async () => {
    expectError(await create(cast.tokenRoot, { tenantId: 987654, name: 'Ghost office' }), 404);
  });

  describe('GET /v2/admin/branches/ and /{id} (additions)', () => {
    it("when an account admin lists branches, then only its own tenant's come, paged and ordered by id, in the Branch shape", async () => {
      const res = await app.request('GET', '/v2/admin/branches', { token: cast.tokenA, query: { recordsPerPage: 2 } });
      expect(res.status).to.equal(200);
      expect(res.body.records.every((b: { tenant: { id: number } }) => b.tenant.id === cast.a.id)).to.equal(true);
      const all = await app.request('GET', '/v2/admin/branches', { token: cast.tokenA, query: { paginated: 0 } });
      expect(res.body.total).to.equal(all.body.total);
      expect(res.body.maxPage).to.equal(Math.ceil(all.body.total / 2));
      const ids = all.body.records.map((b: { id: number }) => b.id);
      expect(ids).to.deep.equal([...ids].sort((x: number, y: number) => x - y));
    });

    it('when a branch is read by id, then its own tenant gets it and another tenant gets 404', async () => {
      const made = await create(cast.tokenA, { tenantId: cast.a.id, name: 'Readable', timezone: 'Europe/Rome' });
      const res = await app.request('GET', `/v2/admin/branches/${made.body.id}`, { token: cast.tokenA });
      expect(res.body).to.deep.equal(made.body);
      expectError(await app.request('GET', `/v2/admin/branches/${made.body.id}`, { token: cast.tokenB }), 404);
      expectError(await app.request('GET', '/v2/admin/branches', { token: cast.tokenB, query: { tenantId: cast.a.id } }), 403);
    });
  });

  describe('PATCH and DELETE /v2/admin/branches/{id}', () => {
    it('when a branch becomes the default, then the old default loses it; the default cannot be un-defaulted or deleted', async () => {
      const t = await buildTenant(app.deps.database.db);
      const admin = await tokenFor(app, await buildUser(app.deps.database.db, t.id, ROLE.account));
      const first = await create(admin, { tenantId: t.id, name: 'First', default: 1 });
      const second = await create(admin, { tenantId: t.id, name: 'Second' });
      expectError(await app.request('PATCH', `/v2/admin/branches/${first.body.id}`, { token: admin, body: { default: 0 } }), 409);
      expectError(await app.request('DELETE', `/v2/admin/branches/${first.body.id}`, { token: admin }), 409);
      const moved = await app.request('PATCH', `/v2/admin/branches/${second.body.id}`, {
        token: admin,
        body: { default: 1, timezone: 'Asia/Tokyo', name: 'Second office' },
      });
      expect(moved.body).to.deep.include({ default: 1, timezone: 'Asia/Tokyo', name: 'Second office' });
      expect((await app.request('GET', `/v2/admin/branches/${first.body.id}`, { token: admin })).body.default).to.equal(0);
      const gone = await app.request('DELETE', `/v2/admin/branches/${first.body.id}`, { token: admin });
      expect(gone.body).to.deep.include({ id: first.body.id, name: 'First' });
      expectError(await app.request('GET', `/v2/admin/branches/${first.body.id}`, { token: admin }), 404);
    });

    it('when a branch has users and an extension, or belongs to another tenant, then 409 naming them or 404, and nothing changes', async () => {
      const db = app.deps.database.db;
      const branch = await buildBranch(db, cast.a.id);
      await buildUser(db, cast.a.id, ROLE.basic, { branch_id: branch.id });
      await buildUser(db, cast.a.id, ROLE.basic, { branch_id: branch.id });
      const ext = await app.request('POST', '/v2/extensions', {
        token: cast.tokenA,
        body: { tenantId: cast.a.id, branchId: branch.id, extNum: 7301, peerName: 'PJSIP/7301' },
      });
      expect(ext.status).to.equal(201);
      const refused = await app.request('DELETE', `/v2/admin/branches/${branch.id}`, { token: cast.tokenA });
      expectError(refused, 409);
      // Each kind counted, in words a person reads (the console shows this message as it is).
      expect(refused.body.message).to.equal(`Branch ${branch.id} still has 2 users, 1 extension: move them to another branch first`);
      expectError(await app.request('PATCH', `/v2/admin/branches/${branch.id}`, { token: cast.tokenB, body: { name: 'Taken over' } }), 404);
      expectError(await app.request('PATCH', `/v2/admin/branches/${branch.id}`, { token: cast.tokenA, body: {} }), 400);
      expect((await app.request('GET', `/v2/admin/branches/${branch.id}`, { token: cast.tokenA })).body.name).to.equal(branch.name);
    });
  });
});
