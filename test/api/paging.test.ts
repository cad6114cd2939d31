import { expect } from 'chai';
import { windowed } from '../../src/access/paging';
import { startTestApp } from '../helpers/app';

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
});
