import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';

/*
 * The frozen rule (docs/architecture.md, "Schema on two engines"): the SQLite SQL a landed migration runs never
 * changes, whatever is added for PostgreSQL. The proof: a fresh SQLite file, migrated, holds exactly the objects of
 * test/fixtures/schema-sqlite.sql, as sqlite_master stores their SQL. A new migration adds its objects to the
 * snapshot: write it again with
 *
 *   UPDATE_SCHEMA_SNAPSHOT=1 npx mocha test/unit/schema-frozen.test.ts
 *
 * and review the diff: only the new migration's objects (and the tables it rebuilds) may change.
 */

const SNAPSHOT = join(__dirname, '..', 'fixtures', 'schema-sqlite.sql');

/** Every object of the file, sorted by type and name, as `-- type name` and its stored SQL. */
function dump(sqlite: ReturnType<typeof openDatabase>['sqlite']): string {
  const rows = sqlite.prepare('SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name').all() as {
    type: string;
    name: string;
    sql: string;
  }[];
  return rows.map((r) => `-- ${r.type} ${r.name}\n${r.sql};\n`).join('\n');
}

describe('the SQLite schema the migrations make (frozen rule)', () => {
  it('when a fresh SQLite file is migrated, then every object in it has the SQL of the committed snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-frozen-'));
    const handle = openDatabase(join(dir, 'tars.db'));
    try {
      await migrateToLatest(handle);
      const now = dump(handle.sqlite);
      if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') writeFileSync(SNAPSHOT, now);
      expect(now).to.equal(readFileSync(SNAPSHOT, 'utf8'));
      expect(now).to.include('-- index users_email\nCREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);');
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
