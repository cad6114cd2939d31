import { expect } from 'chai';
import { inJsonList, selectOnce, selectRows, selectShaped } from '../../src/db/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildTenant } from '../helpers/factories';

describe('reads outside Kysely (selectRows, selectOnce, selectShaped)', () => {
  let app: TestApp;
  before(async () => (app = await startTestApp()));
  after(() => app.close());

  it('when no transaction is open, then a read runs at once and sees every committed row', async () => {
    const { db } = app.deps.database;
    const tenant = await buildTenant(db);
    const rows = selectRows(db, db.selectFrom('tenants').select(['id', 'name']).where('id', '=', tenant.id).compile());
    expect(rows, 'an array, not a promise').to.be.an('array');
    expect(rows).to.deep.equal([{ id: tenant.id, name: tenant.name }]);
  });

  it('when another request holds a transaction open across an await, then a read waits for it and never sees its uncommitted rows', async () => {
    const { db } = app.deps.database;
    const tenant = await buildTenant(db);
    const query = db.selectFrom('tenants').select('name').where('id', '=', tenant.id).compile();
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const writer = db.transaction().execute(async (trx) => {
      await trx.updateTable('tenants').set({ name: 'Renamed, then rolled back' }).where('id', '=', tenant.id).execute();
      inside();
      await released; // open until the read below has been asked for
      throw new Error('roll back');
    });
    await entered;
    let read: unknown;
    try {
      read = selectRows(db, query);
      expect(read, 'it goes through Kysely, which waits for the connection').to.be.a('promise');
    } finally {
      release();
    }
    await writer.catch(() => undefined);
    expect(await read).to.deep.equal([{ name: tenant.name }]);
  });

  it('when a query compiled once runs in a transaction or with other parameters, then it reads them; with a wrong count of parameters, it throws', async () => {
    const { db } = app.deps.database;
    const [a, b] = [await buildTenant(db), await buildTenant(db)];
    const nameOf = selectOnce((h) => h.selectFrom('tenants').select('name').where('id', '=', 0));
    expect(await nameOf(db, [a.id])).to.deep.equal([{ name: a.name }]);
    expect(await nameOf(db, [b.id])).to.deep.equal([{ name: b.name }]);
    const inTrx = await db.transaction().execute(async (trx) => {
      await trx.updateTable('tenants').set({ name: 'Inside' }).where('id', '=', a.id).execute();
      return nameOf(trx, [a.id]);
    });
    expect(inTrx).to.deep.equal([{ name: 'Inside' }]);
    expect(() => nameOf(db, [a.id, b.id])).to.throw(/1 parameters, 2 given/);
  });

  it('when run with shapes and values, then each shape is built once and every run reads its own values, by name', async () => {
    const { db } = app.deps.database;
    const [a, b] = [await buildTenant(db, { partnerId: 7 }), await buildTenant(db, { partnerId: 8 })];
    let builds = 0;
    const tenants = selectShaped(
      (h, p, s: { partner: boolean }) => {
        builds++;
        return h
          .selectFrom('tenants')
          .select(['id', 'name'])
          .where(inJsonList('id', p('ids')))
          .$if(s.partner, (q) => q.where('partner_id', '=', p<number>('partner')))
          .orderBy('id');
      },
      (s) => String(s.partner),
    );
    const ids = JSON.stringify([a.id, b.id]);
    expect(await tenants(db, { partner: false }, { ids })).to.deep.equal([a, b].map(({ id, name }) => ({ id, name })));
    expect(await tenants(db, { partner: true }, { ids, partner: 8 })).to.deep.equal([{ id: b.id, name: b.name }]);
    expect(await tenants(db, { partner: true }, { ids, partner: 7 })).to.deep.equal([{ id: a.id, name: a.name }]);
    expect(await tenants(db, { partner: false }, { ids: JSON.stringify([b.id]) })).to.deep.equal([{ id: b.id, name: b.name }]);
    expect(builds, 'one build per shape').to.equal(2);
    const inTrx = await db.transaction().execute(async (trx) => tenants(trx, { partner: true }, { ids, partner: 7 }));
    expect(inTrx).to.deep.equal([{ id: a.id, name: a.name }]);
    expect(() => tenants(db, { partner: true }, { ids })).to.throw(/no value for partner/);
  });
});
