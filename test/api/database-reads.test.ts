import { expect } from 'chai';
import { ALL_TENANTS, tenantsScope, type TenantScope } from '../../src/access/scope';
import { tenantIn } from '../../src/access/tenant-filter';
import { defineQuery, defineShapedQuery, inJsonList, type Params } from '../../src/db/query';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildTenant } from '../helpers/factories';

describe('queries compiled once (defineQuery, defineShapedQuery)', () => {
  let app: TestApp;
  before(async () => (app = await startTestApp()));
  after(() => app.close());

  it('when no transaction is open, then a read sees every committed row', async () => {
    const { db } = app.deps.database;
    const tenant = await buildTenant(db);
    const byId = defineQuery((h, p: Params<{ id: number }>) => h.selectFrom('tenants').select(['id', 'name']).where('id', '=', p.id));
    expect(await byId.all(db, { id: tenant.id })).to.deep.equal([{ id: tenant.id, name: tenant.name }]);
  });

  it('when another request holds a transaction open across an await, then a read waits for it and never sees its uncommitted rows', async () => {
    const { db } = app.deps.database;
    const tenant = await buildTenant(db);
    const nameOf = defineQuery((h, p: Params<{ id: number }>) => h.selectFrom('tenants').select('name').where('id', '=', p.id));
    let inside!: () => void;
    let release!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    const held = new Promise<void>((r) => (release = r));
    const writer = db.transaction().execute(async (trx) => {
      await trx.updateTable('tenants').set({ name: 'Renamed, then rolled back' }).where('id', '=', tenant.id).execute();
      inside();
      await held;
      throw new Error('roll back');
    });
    await entered;
    const read = nameOf.all(db, { id: tenant.id });
    release();
    await writer.catch(() => undefined);
    expect(await read).to.deep.equal([{ name: tenant.name }]);
  });

  it('when a query compiled once runs in a transaction or with other values, then it reads them; without a value, it rejects', async () => {
    const { db } = app.deps.database;
    const [a, b] = [await buildTenant(db), await buildTenant(db)];
    const nameOf = defineQuery((h, p: Params<{ id: number }>) => h.selectFrom('tenants').select('name').where('id', '=', p.id));
    expect(await nameOf.first(db, { id: a.id })).to.deep.equal({ name: a.name });
    expect(await nameOf.all(db, { id: b.id })).to.deep.equal([{ name: b.name }]);
    const inTrx = await db.transaction().execute(async (trx) => {
      await trx.updateTable('tenants').set({ name: 'Inside' }).where('id', '=', a.id).execute();
      return nameOf.all(trx, { id: a.id });
    });
    expect(inTrx).to.deep.equal([{ name: 'Inside' }]);
    const missing = await nameOf.all(db, {} as { id: number }).then(
      () => 'read',
      (err: Error) => err.message,
    );
    expect(missing).to.match(/no value for id/);
  });

  it('when a scope is a parameter, then it is in the WHERE: every tenant sees all rows, a scope of some tenants only theirs', async () => {
    const { db } = app.deps.database;
    const [a, b] = [await buildTenant(db), await buildTenant(db)];
    let builds = 0;
    const named = defineQuery((h, p: Params<{ ids: string; scope: TenantScope }>) => {
      builds++;
      return h.selectFrom('tenants').select('id').where(inJsonList('id', p.ids)).where(tenantIn(p.scope, 'id')).orderBy('id');
    });
    const ids = JSON.stringify([a.id, b.id]);
    expect(await named.all(db, { ids, scope: ALL_TENANTS })).to.deep.equal([{ id: a.id }, { id: b.id }]);
    expect(await named.all(db, { ids, scope: tenantsScope([b.id]) })).to.deep.equal([{ id: b.id }]);
    expect(await named.all(db, { ids, scope: tenantsScope([a.id]) })).to.deep.equal([{ id: a.id }]);
    expect(await named.all(db, { ids, scope: tenantsScope([]) })).to.deep.equal([]);
    expect(await named.all(db, { ids, scope: tenantsScope([a.id, b.id]) })).to.deep.equal([{ id: a.id }, { id: b.id }]);
    expect(builds, 'one build for every tenant, one for one tenant (any), one for several').to.equal(3);
  });

  it('when run with shapes and values, then each shape is built once and every run reads its own values, by name', async () => {
    const { db } = app.deps.database;
    const [a, b] = [await buildTenant(db, { partnerId: 7 }), await buildTenant(db, { partnerId: 8 })];
    let builds = 0;
    const tenants = defineShapedQuery(
      (s: { partner: boolean }) => String(s.partner),
      (h, p: Params<{ ids: string; partner?: number }>, s) => {
        builds++;
        return h
          .selectFrom('tenants')
          .select(['id', 'name'])
          .where(inJsonList('id', p.ids))
          .$if(s.partner, (q) => q.where('partner_id', '=', p.partner as number))
          .orderBy('id');
      },
    );
    const ids = JSON.stringify([a.id, b.id]);
    expect(await tenants.all(db, { partner: false }, { ids })).to.deep.equal([a, b].map(({ id, name }) => ({ id, name })));
    expect(await tenants.all(db, { partner: true }, { ids, partner: 8 })).to.deep.equal([{ id: b.id, name: b.name }]);
    expect(await tenants.all(db, { partner: true }, { ids, partner: 7 })).to.deep.equal([{ id: a.id, name: a.name }]);
    expect(await tenants.all(db, { partner: false }, { ids: JSON.stringify([b.id]) })).to.deep.equal([{ id: b.id, name: b.name }]);
    expect(builds, 'one build per shape').to.equal(2);
    const inTrx = await db.transaction().execute(async (trx) => tenants.all(trx, { partner: true }, { ids, partner: 7 }));
    expect(inTrx).to.deep.equal([{ id: a.id, name: a.name }]);
    const missing = await tenants.all(db, { partner: true }, { ids }).catch((err: Error) => err.message);
    expect(missing).to.match(/no value for partner/);
  });
});
