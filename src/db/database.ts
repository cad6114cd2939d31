import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql, type CompiledQuery, type RawBuilder, type SqlBool } from 'kysely';
import { ImmediateSqliteDialect, Lru, StatementCache } from './dialect';
import type { Database } from './schema';
import { nativeBinding } from './native';

export type Db = Kysely<Database>;
export type Sqlite = SqliteDatabase.Database;

export interface OpenDatabase {
  /** Kysely over the connection: what repositories use. */
  readonly db: Db;
  /** The raw better-sqlite3 connection: for pragmas, backups and the bulk import's prepared statements. */
  readonly sqlite: Sqlite;
  readonly file: string;
  close(): Promise<void>;
}

/**
 * `prepare`, run once per connection and kept with it: for code that runs better-sqlite3 statements on the
 * raw connection in a hot loop (the import, the outbox), e.g. `const statementsOf = perConnection((sqlite) =>
 * ({ byId: sqlite.prepare('…') }))`.
 */
export function perConnection<T>(prepare: (sqlite: Sqlite) => T): (sqlite: Sqlite) => T {
  const made = new WeakMap<Sqlite, T>();
  return (sqlite) => {
    let s = made.get(sqlite);
    if (s === undefined) made.set(sqlite, (s = prepare(sqlite)));
    return s;
  };
}

/** The connection under each database handle (never a transaction's): for selectRows. */
const directReads = new WeakMap<Db, { readonly sqlite: Sqlite; readonly statements: StatementCache }>();

/**
 * The rows of a compiled SELECT. On the database handle itself (not a transaction) while no transaction is
 * open on its connection, the statement runs at once: nothing can be waiting to see a consistent state,
 * and the read sees every committed write, as Kysely's would. Otherwise (in a transaction, or while one of
 * another request holds the connection across an await) it goes through Kysely, which waits for the
 * connection like every other query. Kysely's way costs a dozen promises, its connection lock and its
 * result plugins on every query: a third of the time of the server's hottest reads (GET /v2/webhooks/{id}).
 */
export function selectRows<R>(db: Db, query: CompiledQuery<R>, parameters: readonly unknown[] = query.parameters): R[] | Promise<R[]> {
  const direct = directReads.get(db);
  if (direct && !direct.sqlite.inTransaction) return direct.statements.all(query.sql, parameters) as R[];
  return db.executeQuery(parameters === query.parameters ? query : { ...query, parameters }).then((r) => r.rows);
}

/** What a build function of selectOnce and selectShaped gives: a compiled query, or a builder to compile. */
type Compilable<R> = CompiledQuery<R> | { compile(): CompiledQuery<R> };

const compiledOf = <R>(built: Compilable<R>): CompiledQuery<R> => ('compile' in built ? built.compile() : built);

/**
 * A SELECT of a fixed shape, built and compiled by Kysely once (on first use) and then run with new
 * parameters, in the order their placeholders appear in the query it was built with, through selectRows:
 * for the reads every request makes (the caller, the record of a GET). Building and compiling took
 * 10-25 us a query under load, more than running it.
 *   const webhookById = selectOnce((db) => db.selectFrom('webhooks').selectAll().where('id', '=', 0));
 *   const [row] = await webhookById(db, [id]);
 * (or a raw query: selectOnce((db) => sql`…`.compile(db))).
 */
export function selectOnce<R>(build: (db: Db) => Compilable<R>): (db: Db, parameters: readonly unknown[]) => R[] | Promise<R[]> {
  let query: CompiledQuery<R> | undefined;
  return (db, parameters) => {
    query ??= compiledOf(build(db));
    if (parameters.length !== query.parameters.length) throw new Error(`${query.sql}: ${query.parameters.length} parameters, ${parameters.length} given`);
    return selectRows(db, query, parameters);
  };
}

/** A named placeholder of a query built for selectShaped: stands for the value of that name at each run. */
export type Placeholder = <T = unknown>(name: string) => T;

class Slot {
  constructor(readonly name: string) {}
}

/** Shapes kept per query (a shape includes its page: LIMIT and OFFSET are written into the SQL). */
const SHAPES_KEPT = 200;

/**
 * selectOnce for a query whose shape varies: which filters it has, its page (a list with optional filters).
 * `build` makes the query of one shape with placeholders, p('name'), where the values go; it is built and
 * compiled once per shape key and then run with the values by name. Building the phone-number list
 * with Kysely took twice as long as running it (20 us against 11).
 *   const page = selectShaped((db, p, s: { fax: boolean }) =>
 *     db.selectFrom('t').selectAll().where('tenant_id', '=', p('tenant')).$if(s.fax, (q) => q.where('fax', '=', 1)), (s) => String(s.fax));
 *   await page(db, { fax: true }, { tenant: 7 });
 */
export function selectShaped<S, R>(
  build: (db: Db, p: Placeholder, shape: S) => Compilable<R>,
  keyOf: (shape: S) => string,
): (db: Db, shape: S, values: Readonly<Record<string, unknown>>) => R[] | Promise<R[]> {
  const shapes = new Lru<CompiledQuery<R>>(SHAPES_KEPT);
  const p: Placeholder = <T>(name: string) => new Slot(name) as T;
  return (db, shape, values) => {
    const query = shapes.get(keyOf(shape), () => compiledOf(build(db, p, shape)));
    const parameters = query.parameters.map((s) => {
      if (!(s instanceof Slot)) return s;
      if (!(s.name in values)) throw new Error(`${query.sql}: no value for ${s.name}`);
      return values[s.name];
    });
    return selectRows(db, query, parameters);
  };
}

/**
 * `column IN (the numbers of one JSON array parameter)`: a list of any length in a query of one shape, for
 * selectOnce and selectShaped; its value is JSON.stringify(ids). SQLite reads the array into a list and then
 * looks each id up through the column's index, as it does an IN list.
 */
export function inJsonList(column: string, value: unknown = '[]'): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} IN (SELECT value FROM json_each(${value}))`;
}

/** How long a writer waits for another process's write lock (e.g. `tars import` next to the server). */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (creating if needed) the one SQLite file: WAL so readers never wait for the writer and a CLI
 * import can run beside the server, foreign keys enforced, a busy timeout instead of immediate
 * SQLITE_BUSY, transactions that take the write lock when they begin (./dialect.ts), and synchronous=FULL
 * so that a committed write survives a power cut, not only a crash.
 */
export function openDatabase(file: string, opts: { readonly?: boolean } = {}): OpenDatabase {
  const sqlite = openSqlite(file, opts);
  if (!opts.readonly) sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = FULL');
  const statements = new StatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(statements, sqlite, BUSY_TIMEOUT_MS) });
  directReads.set(db, { sqlite, statements });
  let closed = false;
  return {
    db,
    sqlite,
    file,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy(); // SqliteDialect closes the better-sqlite3 connection too
    },
  };
}

/**
 * A bare better-sqlite3 connection with the busy timeout and nothing else: for files that are not the live
 * database (backups, restores in progress), whose journal mode must not be switched to WAL.
 */
export function openSqlite(file: string, opts: { readonly?: boolean } = {}): Sqlite {
  const binding = nativeBinding();
  const sqlite = new SqliteDatabase(file, {
    readonly: opts.readonly ?? false,
    fileMustExist: opts.readonly ?? false,
    ...(binding ? { nativeBinding: binding as unknown as string } : {}),
  });
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return sqlite;
}
