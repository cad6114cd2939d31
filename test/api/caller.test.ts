import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

// Permission sets are memoised by the stored role and grants of the user row read on every request
// (docs/performance.md): a change of that row must still count from the very next request.
describe('permissions of the caller', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('when a user row gets other grants or another role, then its very next request (same token) is judged by them', async () => {
    const db = app.deps.database.db;
    const tenant = await buildTenant(db);
    const user = await buildUser(db, tenant.id, ROLE.basic);
    const token = await tokenFor(app, user);
    const list = () => app.request('GET', '/v2/webhooks/', { token, query: { tenantId: tenant.id } });
    expect((await list()).status).to.equal(403);

    await db
      .updateTable('users')
      .set({ permissions: JSON.stringify(['webhooks.read']) })
      .where('id', '=', user.id)
      .execute();
    expect((await list()).status).to.equal(200);

    await db
      .updateTable('users')
      .set({ permissions: JSON.stringify(['webhooks.read', '!webhooks.#']) })
      .where('id', '=', user.id)
      .execute();
    expect((await list()).status).to.equal(403);

    await db.updateTable('users').set({ permissions: '[]', user_role: ROLE.account }).where('id', '=', user.id).execute();
    expect((await list()).status).to.equal(200);

    await db.updateTable('users').set({ user_role: ROLE.queues }).where('id', '=', user.id).execute();
    expect((await list()).status).to.equal(403);
  });

  it('when two users share a role and grants, then each still acts only in its own tenant', async () => {
    const db = app.deps.database.db;
    const [t1, t2] = [await buildTenant(db), await buildTenant(db)];
    const [u1, u2] = [await buildUser(db, t1.id, ROLE.account), await buildUser(db, t2.id, ROLE.account)];
    const list = async (u: { id: number }, tenantId: number) =>
      (await app.request('GET', '/v2/webhooks/', { token: await tokenFor(app, u), query: { tenantId } })).status;
    expect([await list(u1, t1.id), await list(u1, t2.id), await list(u2, t2.id), await list(u2, t1.id)]).to.deep.equal([
      200, 403, 200, 403,
    ]);
  });
});
