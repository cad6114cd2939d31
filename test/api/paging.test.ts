import { expect } from 'chai';
import { windowed } from '../../src/access/paging';
import { startTestApp } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

describe('page windows', () => {
  it('when a page is read, then its LIMIT and OFFSET are written into the SQL (a bound LIMIT is prepared again on every run)', async () => {
    const app = await startTestApp();
    try {
      const { db } = app.deps.database;
      const q = windowed(db.selectFrom('tenants').select('id').where('id', '>', 7).orderBy('id'), { limit: 50, offset: 100 }).compile();
      expect([q.sql, q.parameters]).to.deep.equal(['select "id" from "tenants" where "id" > ? order by "id" limit 50 offset 100', [7]]);
      expect(() => windowed(db.selectFrom('tenants').select('id'), { limit: 1.5, offset: 0 })).to.throw(/integers expected/);
      expect(windowed(db.selectFrom('tenants').select('id'), { limit: null, offset: 0 }).compile().sql).to.equal(
        'select "id" from "tenants"',
      );
    } finally {
      await app.close();
    }
  });

  it('when the tenant and user lists are read a page at a time, then each page has its records and the totals of decisions.md §5b', async () => {
    const app = await startTestApp();
    try {
      const { db } = app.deps.database;
      const tenants = [];
      for (let i = 0; i < 5; i++) tenants.push(await buildTenant(db));
      const home = tenants[0]?.id as number;
      const admin = await buildUser(db, home, ROLE.platform);
      for (let i = 0; i < 4; i++) await buildUser(db, home, ROLE.basic);
      const token = await tokenFor(app, admin);
      const page2 = await app.request('GET', '/v2/admin/tenants', { token, query: { page: 2, recordsPerPage: 2 } });
      expect(page2.body).to.deep.include({ page: 2, maxPage: 3, total: 5 });
      expect(page2.body.records.map((t: { id: number }) => t.id)).to.deep.equal(tenants.slice(2, 4).map((t) => t.id));
      const all = await app.request('GET', '/v2/admin/tenants', { token, query: { paginated: 0 } });
      expect(all.body).to.deep.include({ page: 1, maxPage: 1, total: 5 });
      expect(all.body.records).to.have.length(5);
      const users = await app.request('GET', '/v2/admin/users', { token, query: { tenantId: home, page: 3, recordsPerPage: 2 } });
      expect(users.body).to.deep.include({ page: 3, maxPage: 3, total: 5 });
      expect(users.body.records).to.have.length(1);
    } finally {
      await app.close();
    }
  });
});
