import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import SqliteDatabase from 'better-sqlite3';
import { StatementCache } from '../../src/db/dialect';

// Statements are reused by their SQL text (docs/performance.md): reuse must never change an answer.
describe('prepared statements (StatementCache)', () => {
  let dir: string;
  let sqlite: SqliteDatabase.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-stmt-'));
    sqlite = new SqliteDatabase(join(dir, 'x.db'));
    sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  });
  afterEach(() => {
    if (sqlite.open) sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the same text is prepared twice, then the same statement serves both and sees the current rows', () => {
    const cache = new StatementCache(sqlite);
    const first = cache.prepare('SELECT v FROM t WHERE id = ?');
    expect(first.all([1])).to.deep.equal([]);
    cache.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run([1, 'one']);
    const again = cache.prepare('SELECT v FROM t WHERE id = ?');
    expect(again).to.equal(first);
    expect(again.all([1])).to.deep.equal([{ v: 'one' }]);
    expect(cache.kept).to.equal(2);
  });

  it('when more texts than its size are prepared, then the least recently used is dropped and the size holds', () => {
    const cache = new StatementCache(sqlite, 3);
    const a = cache.prepare('SELECT 1');
    cache.prepare('SELECT 2');
    cache.prepare('SELECT 3');
    cache.prepare('SELECT 1'); // used again: now the most recent
    cache.prepare('SELECT 4'); // drops SELECT 2
    expect(cache.kept).to.equal(3);
    expect(cache.prepare('SELECT 1')).to.equal(a);
    expect(cache.kept).to.equal(3);
  });

  it('when the schema changes after a statement was kept, then the kept statement reads the new schema', () => {
    const cache = new StatementCache(sqlite);
    cache.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run([1, 'one']);
    const select = cache.prepare('SELECT * FROM t');
    expect(select.all([])).to.deep.equal([{ id: 1, v: 'one' }]);
    sqlite.exec("ALTER TABLE t ADD COLUMN w TEXT NOT NULL DEFAULT 'x'");
    expect(cache.prepare('SELECT * FROM t').all([])).to.deep.equal([{ id: 1, v: 'one', w: 'x' }]);
  });

  it('when rows are read with all(), then they are the objects better-sqlite3 makes, whatever the columns are called', () => {
    const cache = new StatementCache(sqlite);
    cache.prepare('INSERT INTO t (id, v) VALUES (?, ?), (?, ?)').run([1, 'one', 2, null]);
    for (const sql of [
      'SELECT * FROM t ORDER BY id',
      `SELECT id, v AS "odd ""name""}; throw 1; //", v AS 'it''s' FROM t ORDER BY id`,
      'SELECT id, v AS id FROM t ORDER BY id', // a name twice: the last one wins, as in better-sqlite3
      'SELECT id AS __proto__, v FROM t ORDER BY id',
      'SELECT count(*) AS n FROM t WHERE id > ?',
    ]) {
      const params = sql.includes('?') ? [5] : [];
      expect(cache.all(sql, params), sql).to.deep.equal(sqlite.prepare(sql).all(params));
    }
    const proto = cache.all('SELECT id AS __proto__ FROM t ORDER BY id', []) as object[];
    expect(Object.getPrototypeOf(proto[0])).to.equal(Object.prototype);
  });

  it('when the schema changes after rows were read with all(), then a SELECT * reads the new columns', () => {
    const cache = new StatementCache(sqlite);
    cache.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run([1, 'one']);
    expect(cache.all('SELECT * FROM t', [])).to.deep.equal([{ id: 1, v: 'one' }]);
    sqlite.exec("ALTER TABLE t ADD COLUMN w TEXT NOT NULL DEFAULT 'x'");
    expect(cache.all('SELECT * FROM t', [])).to.deep.equal([{ id: 1, v: 'one', w: 'x' }]);
  });

  it('when it is closed, then the connection is closed', () => {
    const cache = new StatementCache(sqlite);
    cache.prepare('SELECT 1');
    cache.close();
    expect(sqlite.open).to.equal(false);
    expect(cache.kept).to.equal(0);
  });
});
