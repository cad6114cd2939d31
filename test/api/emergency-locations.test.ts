import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildTenant, buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import { ADDRESS, buildLocation } from '../helpers/records';

const PATH = '/v2/admin/emergency-locations';
const GROUP = { name: 'Security desk', number: '+13125550199', email: 'security@example.test', peerName: 'PJSIP/101' };

describe('emergency locations: POST and GET {id}', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  const create = (body: unknown, token = cast.tokenA) => app.request('POST', `${PATH}/`, { token, body });

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
  });
  after(() => app.close());

  it('when a location is created, then 201 with the tenant, the address and groups with server ids; GET returns the same', async () => {
    const res = await create({ tenantId: cast.a.id, name: 'HQ', address: ADDRESS, notificationGroups: [GROUP] });
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.include({ name: 'HQ', tenant: { id: cast.a.id, name: cast.a.name }, address: ADDRESS });
    expect(res.body.notificationGroups).to.have.length(1);
    expect(res.body.notificationGroups[0]).to.deep.include(GROUP);
    expect(res.body.notificationGroups[0].id).to.be.a('number').greaterThan(0);
    expect((await app.request('GET', `${PATH}/${res.body.id}`, { token: cast.tokenA })).body).to.deep.equal(res.body);
  });

  it('when loc, location and notificationGroups are left out, then they are "", "" and []', async () => {
    const { loc: _l, location: _n, ...address } = ADDRESS;
    const res = await create({ tenantId: cast.a.id, name: 'L', address });
    expect(res.body.address).to.deep.equal({ ...ADDRESS, loc: '', location: '' });
    expect(res.body.notificationGroups).to.deep.equal([]);
  });

  it('when required fields are missing or empty, then one 400 names each; a group may not bring its own id', async () => {
    const { streetNum: _s, ...address } = ADDRESS;
    expectError(await create({ tenantId: cast.a.id, name: '', address: { ...address, city: '' } }), 400, [
      'name',
      'address.streetNum',
      'address.city',
    ]);
    expectError(await create({ tenantId: cast.a.id, name: 'X', address: ADDRESS, notificationGroups: [{ ...GROUP, id: 5 }] }), 400, [
      'notificationGroups[0].id',
    ]);
    expectError(await create({ name: 'X', address: ADDRESS }), 400, ['tenantId']);
  });

  it('when another tenant is named, then 403; the platform admin naming a missing tenant gets 404', async () => {
    expectError(await create({ tenantId: cast.b.id, name: 'X', address: ADDRESS }), 403);
    expectError(await create({ tenantId: 987654, name: 'X', address: ADDRESS }, cast.tokenRoot), 404);
  });
});

describe('emergency locations: GET list, PATCH and DELETE (additions)', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  const req = (method: string, path: string, body?: unknown, token = cast.tokenA) => app.request(method, `${PATH}${path}`, { token, body });

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
  });
  after(() => app.close());

  it("when listed, then the caller's tenant's locations in id order, paged as decisions.md §5b", async () => {
    const db = app.deps.database.db;
    const t = await buildTenant(db);
    const token = await tokenFor(app, await buildUser(db, t.id, ROLE.account));
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await buildLocation(db, t.id, { notificationGroups: [GROUP] })).id);
    const page2 = await app.request('GET', PATH, { token, query: { page: 2, recordsPerPage: 2 } });
    expect(page2.body).to.include({ page: 2, maxPage: 2, total: 3 });
    expect(page2.body.records.map((r: { id: number }) => r.id)).to.deep.equal([ids[2]]);
    expect(page2.body.records[0].notificationGroups[0]).to.deep.include(GROUP);
    expectError(await app.request('GET', PATH, { token, query: { tenantId: cast.a.id } }), 403);
  });

  it('when the name and address are patched, then both are replaced and the groups are kept', async () => {
    const loc = await buildLocation(app.deps.database.db, cast.a.id, { notificationGroups: [GROUP] });
    const before_ = (await req('GET', `/${loc.id}`)).body;
    const address = { ...ADDRESS, city: 'Chicago', loc: undefined };
    const res = await req('PATCH', `/${loc.id}`, { name: 'Renamed', address });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ name: 'Renamed', address: { ...ADDRESS, city: 'Chicago', loc: '' } });
    expect(res.body.notificationGroups).to.deep.equal(before_.notificationGroups);
  });

  it('when the groups are patched, then a group sent with its id keeps it, one without is new, one left out is gone', async () => {
    const loc = await buildLocation(app.deps.database.db, cast.a.id, { notificationGroups: [GROUP, { ...GROUP, name: 'Reception' }] });
    const [kept, dropped] = (await req('GET', `/${loc.id}`)).body.notificationGroups;
    const res = await req('PATCH', `/${loc.id}`, {
      notificationGroups: [
        { ...GROUP, name: 'New group' },
        { ...kept, email: 'new@example.test' },
      ],
    });
    expect(res.body.notificationGroups.map((g: { name: string }) => g.name)).to.deep.equal(['New group', 'Security desk']);
    expect(res.body.notificationGroups[1]).to.deep.equal({ ...kept, email: 'new@example.test' });
    expect(res.body.notificationGroups.map((g: { id: number }) => g.id)).not.to.include(dropped.id);
  });

  it('when a group id of another location is sent, then 400 and nothing changes', async () => {
    const db = app.deps.database.db;
    const other = (await req('GET', `/${(await buildLocation(db, cast.a.id, { notificationGroups: [GROUP] })).id}`)).body;
    const loc = await buildLocation(db, cast.a.id, { name: 'Unchanged' });
    expectError(await req('PATCH', `/${loc.id}`, { name: 'Changed', notificationGroups: [other.notificationGroups[0]] }), 400, [
      'notificationGroups[0].id',
    ]);
    expect((await req('GET', `/${loc.id}`)).body.name).to.equal('Unchanged');
  });

  it('when a location is deleted, then 200 with it, its groups are gone with it, and it is 404 afterwards', async () => {
    const db = app.deps.database.db;
    const loc = await buildLocation(db, cast.a.id, { notificationGroups: [GROUP, GROUP] });
    const shown = (await req('GET', `/${loc.id}`)).body;
    const res = await req('DELETE', `/${loc.id}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(shown);
    const groups = await db.selectFrom('notification_groups').select('id').where('location_id', '=', loc.id).execute();
    expect(groups).to.deep.equal([]);
    expectError(await req('GET', `/${loc.id}`), 404);
    expectError(await req('DELETE', `/${loc.id}`), 404);
  });

  it("when another tenant's location is patched or deleted, then 404 and it is unchanged", async () => {
    const loc = await buildLocation(app.deps.database.db, cast.b.id, { name: 'Globex site' });
    expectError(await req('PATCH', `/${loc.id}`, { name: 'Hijacked' }), 404);
    expectError(await req('DELETE', `/${loc.id}`), 404);
    expect((await req('GET', `/${loc.id}`, undefined, cast.tokenB)).body.name).to.equal('Globex site');
  });

  it('when the patch has an unknown field or a tenantId, then 400 naming it', async () => {
    const loc = await buildLocation(app.deps.database.db, cast.a.id);
    expectError(await req('PATCH', `/${loc.id}`, { tenantId: cast.b.id, colour: 'red' }), 400, ['tenantId', 'colour']);
  });
});
