import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../../src/config';
import { databaseUrlProblems, engineOf, openPostgres, postgresVersion, redactUrl } from '../../src/db/engine';
import { openDatabase, transaction } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { recentAttempts } from '../../src/modules/auth/attempts.repository';
import { runTars } from '../helpers/cli';
import { sharedPostgres } from '../helpers/postgres';

/*
 * The seam of issue 32: TARS_DATABASE_URL / --database-url name a PostgreSQL database, src/db/engine.ts opens it
 * (on the throw-away cluster of test/helpers/postgres.ts), and the commands that do not run there yet refuse
 * instead of quietly working on the SQLite file.
 */

describe('the PostgreSQL engine: TARS_DATABASE_URL and opening it (src/db/engine.ts)', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-engine-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('when the URL is not a PostgreSQL URL or names no database, then the configuration says so without showing it', () => {
    expect(databaseUrlProblems('postgres://tars:pw@db.example:5432/tars')).to.deep.equal([]);
    expect(databaseUrlProblems('postgresql://tars@/tars?host=/run/postgresql')).to.deep.equal([]);
    expect(databaseUrlProblems('mysql://tars:secret@db/tars')[0]).to.match(/^must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(databaseUrlProblems('postgres://tars:secret@db.example')).to.deep.equal([
      'must name the database, as in postgres://tars@db.example/tars',
    ]);
    let error: unknown;
    try {
      loadConfig({ TARS_DATABASE_URL: 'mysql://tars:secret@db/tars' }, {}, '/');
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^TARS_DATABASE_URL must be a postgres:\/\//);
    expect(problems[0]).not.to.include('secret');
    expect(() => loadConfig({}, { 'database-url': 'postgres://db/' }, '/')).to.throw(ConfigError, '--database-url must name the database');
    expect(loadConfig({ TARS_DATABASE_URL: 'postgres://tars@db.example/tars' }, {}, '/').databaseUrl).to.equal(
      'postgres://tars@db.example/tars',
    );
    expect(loadConfig({}, {}, '/').databaseUrl).to.equal(undefined);
  });

  it('when a URL holds a password, then the shown URL hides it and keeps the rest', () => {
    expect(redactUrl('postgres://tars:s3cr%40t@db.example:5432/tars?sslmode=require')).to.equal(
      'postgres://tars:***@db.example:5432/tars?sslmode=require',
    );
    expect(redactUrl('postgresql://tars@db.example/tars')).to.equal('postgresql://tars@db.example/tars');
  });

  it('when TARS opens a PostgreSQL database, then counts, sums and big integers come back as numbers, as SQLite gives them', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const database = openPostgres(url);
    try {
      expect(engineOf(database.db)).to.equal('postgres');
      const { rows } = await sql<{ n: unknown; total: unknown; ms: unknown; text: unknown }>`
        SELECT count(*) AS n, sum(x) AS total, max(x) * 1000 AS ms, 'é' AS text
        FROM (VALUES (1764230400::bigint), (2::bigint)) AS v(x)`.execute(database.db);
      expect(rows[0]).to.deep.equal({ n: 2, total: 1764230402, ms: 1764230400000, text: 'é' });
      const version = await postgresVersion(database.db);
      expect(version.major).to.be.at.least(13);
      expect(version.text).to.match(/^\d+\.\d+$/);
    } finally {
      await database.close();
    }
    const sqlite = openDatabase(`${tempDir()}/tars.db`);
    try {
      expect(engineOf(sqlite.db)).to.equal('sqlite');
    } finally {
      await sqlite.close();
    }
  });

  it('when PostgreSQL cannot be reached, then a query fails with the reason and the process goes on', async () => {
    const database = openPostgres('postgres://tars@/nowhere?host=/nonexistent-socket-dir');
    try {
      let error: unknown;
      try {
        await sql`SELECT 1`.execute(database.db);
      } catch (err) {
        error = err;
      }
      expect((error as NodeJS.ErrnoException).code).to.equal('ENOENT');
    } finally {
      await database.close();
    }
  });

  it('when TARS_DATABASE_URL is set, then a command that does not run on PostgreSQL yet refuses with exit 2 and touches no data directory', async () => {
    const dataDir = tempDir();
    const result = await runTars(['user', 'add', '--email', 'x@y.test', '--tenant', '1', '--role', 'BASIC_USER', '--data-dir', dataDir], {
      env: { TARS_DATABASE_URL: 'postgres://tars@db.example/tars' },
    });
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include('tars user add: TARS_DATABASE_URL is set, and this command does not work on PostgreSQL yet');
    expect(readdirSync(dataDir)).to.deep.equal([]);
  });

  it('when TARS_DATABASE_URL is set, then tars backup and tars restore point to pg_dump and pg_restore, never showing the password', async () => {
    const dataDir = tempDir();
    const env = { TARS_DATABASE_URL: 'postgres://tars:s3cret@db.example/tars' };
    const backup = await runTars(['backup', join(dataDir, 'x.bak'), '--data-dir', dataDir], { env });
    expect(backup.code).to.equal(2);
    expect(backup.stderr).to.equal(
      "tars backup: TARS_DATABASE_URL names a PostgreSQL database: back up with PostgreSQL's pg_dump: pg_dump --format=custom --file=tars-$(date +%F).dump 'postgres://tars:***@db.example/tars' (docs/postgresql.md, \"Backups\")\n",
    );
    const restore = await runTars(['restore', join(dataDir, 'x.bak'), '--data-dir', dataDir], { env });
    expect(restore.code).to.equal(2);
    expect(restore.stderr).to.include("pg_restore --dbname='postgres://tars:***@db.example/tars' FILE, then run tars migrate");
    expect(backup.stderr + restore.stderr).not.to.include('s3cret');
    expect(readdirSync(dataDir)).to.deep.equal([]);
  });

  it('when tars check names a PostgreSQL server that cannot be reached, then it says so in a problem line, exit 1, without the password', async () => {
    const dataDir = tempDir();
    const result = await runTars(['check', '--data-dir', dataDir], {
      env: { TARS_DATABASE_URL: 'postgres://tars:s3cret@/tars?host=/nonexistent-socket-dir' },
    });
    expect(result.code).to.equal(1);
    expect(result.stdout).to.match(
      /^ok configuration: valid; PostgreSQL database postgres:\/\/tars:\*\*\*@\/tars\?host=\/nonexistent-socket-dir, data directory /m,
    );
    expect(result.stdout).to.match(
      /^problem database: postgres:\/\/tars:\*\*\*@\/tars\?host=\/nonexistent-socket-dir cannot be reached: .+$/m,
    );
    expect(result.stdout).not.to.include('s3cret');
  });

  it('when six transactions check a count and then write at once on PostgreSQL, then the rule holds as under the one writer of SQLite: exactly the allowed rows, every transaction done', async () => {
    const database = openPostgres(await (await sharedPostgres()).createDatabase());
    try {
      await migrateToLatest(database);
      const placed = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          transaction(database.db, async (trx) => {
            const held = await recentAttempts(trx, 'login:a@x.test', 0, 10);
            if (held.length >= 3) return false;
            await trx
              .insertInto('login_failures')
              .values({ key: 'login:a@x.test', at: 1_764_230_400_000 + i })
              .execute();
            return true;
          }),
        ),
      );
      expect(placed.filter(Boolean)).to.have.length(3);
      expect(await recentAttempts(database.db, 'login:a@x.test', 0, 10)).to.have.length(3);
    } finally {
      await database.close();
    }
  });
});
