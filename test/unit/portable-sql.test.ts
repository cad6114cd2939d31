import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql, type SqlBool } from 'kysely';
import { tenantsScope } from '../../src/access/scope';
import { tenantIn } from '../../src/access/tenant-filter';
import { openDatabase, type Db } from '../../src/db/database';
import { openPostgres, type PostgresDatabase } from '../../src/db/engine';
import { ciEquals, contains } from '../../src/db/portable';
import { inJsonList } from '../../src/db/query';

/*
 * The portable fragments (src/db/portable.ts) as each engine's compiler writes them. SQLite's text must be exactly
 * what the repositories wrote before the fragments existed (its statement cache keys on it; the benchmarks measured
 * it), so the expected SQLite texts below are the old ones, byte for byte. PostgreSQL's compile without a server
 * (the pool connects on the first query only).
 */

describe('portable SQL fragments on the two engines', () => {
  let dir: string;
  let sqlite: ReturnType<typeof openDatabase>;
  let pg: PostgresDatabase;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-portable-'));
    sqlite = openDatabase(join(dir, 'tars.db'));
    pg = openPostgres('postgres://tars@127.0.0.1:1/never_connected');
  });
  after(async () => {
    await sqlite.close();
    await pg.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const texts = (where: (db: Db) => ReturnType<typeof ciEquals>) => {
    const of = (db: Db) => db.selectFrom('users').select('id').where(where(db)).compile();
    return { sqlite: of(sqlite.db), postgres: of(pg.db) };
  };

  it('when a scope of several tenants filters a query, then SQLite reads the JSON list with json_each as before and PostgreSQL with jsonb_array_elements_text, one parameter on both', () => {
    const scope = tenantsScope([3, 5, 8]);
    const q = texts(() => tenantIn(scope) as ReturnType<typeof ciEquals>);
    expect(q.sqlite.sql).to.equal('select "id" from "users" where "tenant_id" IN (SELECT value FROM json_each(?))');
    expect(q.postgres.sql).to.equal(
      'select "id" from "users" where "tenant_id" IN (SELECT value::bigint FROM jsonb_array_elements_text(CAST($1 AS jsonb)))',
    );
    expect(q.sqlite.parameters).to.deep.equal(['[3,5,8]']);
    expect(q.postgres.parameters).to.deep.equal(['[3,5,8]']);
    // The old builder's text, written the old way, is the same text: nothing changed for SQLite's statement cache.
    const old = sqlite.db
      .selectFrom('users')
      .select('id')
      .where(sql<SqlBool>`${sql.ref('tenant_id')} IN (SELECT value FROM json_each(${'[3,5,8]'}))`);
    expect(q.sqlite.sql).to.equal(old.compile().sql);
    expect(texts(() => inJsonList('id', '[1]')).sqlite.sql).to.equal(
      'select "id" from "users" where "id" IN (SELECT value FROM json_each(?))',
    );
  });

  it('when a column is compared without regard to case, then SQLite writes COLLATE NOCASE as before and PostgreSQL the lower(… COLLATE "C") of the case-insensitive index', () => {
    const q = texts(() => ciEquals('email', 'Ann@Example.com'));
    expect(q.sqlite.sql).to.equal('select "id" from "users" where email = ? COLLATE NOCASE');
    expect(q.postgres.sql).to.equal('select "id" from "users" where lower(email COLLATE "C") = lower($1 COLLATE "C")');
    expect(q.postgres.parameters).to.deep.equal(['Ann@Example.com']);
    expect(() => ciEquals('email; drop table users', 'x')).to.throw(/not a column name/);
  });

  it('when a text is searched for in another, then SQLite writes instr as before and PostgreSQL strpos', () => {
    const q = texts(() => contains(sql`replace(email, '.', '')`, '42'));
    expect(q.sqlite.sql).to.equal(`select "id" from "users" where instr(replace(email, '.', ''), ?) > 0`);
    expect(q.postgres.sql).to.equal(`select "id" from "users" where strpos(replace(email, '.', ''), $1) > 0`);
  });

  it('when raw SQL that is not a portable fragment is compiled on PostgreSQL, then it is written as it stands', () => {
    const q = texts(() => sql<SqlBool>`email = ${'x'} COLLATE "C"`);
    expect(q.postgres.sql).to.equal('select "id" from "users" where email = $1 COLLATE "C"');
  });
});
