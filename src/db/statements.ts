import type { RunResult, Statement } from 'better-sqlite3';
import type { Sqlite } from './database';

/*
 * Prepared statements for the synchronous bulk paths (the PBX log import, the webhook outbox written inside
 * it): the only place besides the Kysely dialect where SQL is prepared. A set of statements is declared once,
 * in the one repository that owns them, with named `@param` parameters and the types of its parameters and
 * rows; it is prepared on first use per connection and kept with it (preparing per call or per chunk cost
 * more than the inserts themselves). Everything that is not a hot loop on the raw connection uses Kysely.
 *
 *   const statementsOf = preparedStatements({
 *     queueById: statement<{ id: number }, { tenantId: number; name: string }>(
 *       'SELECT tenant_id AS tenantId, name FROM queues WHERE id = @id',
 *     ),
 *   });
 *   const queue = statementsOf(sqlite).queueById.get({ id: 3 });
 */

/** The parameters of a run: none for a statement without parameters, else the named values (keys without the @). */
type Args<P> = [keyof P] extends [never] ? [] : [params: P];

/** A statement of a set, with its parameter and row types. */
export interface Prepared<P, R> {
  all(...args: Args<P>): R[];
  get(...args: Args<P>): R | undefined;
  run(...args: Args<P>): RunResult;
  iterate(...args: Args<P>): IterableIterator<R>;
  /** The first column of every row (`SELECT id …`). */
  column(...args: Args<P>): R[keyof R][];
}

/** The declaration of one statement: its SQL text; P and R are its parameters and its rows. */
export interface StatementText<P, R> {
  readonly sql: string;
  /** Never set: carries P and R for preparedStatements. */
  readonly types?: { params: P; row: R };
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- {} is "no parameters"
export function statement<P extends object = {}, R = never>(text: string): StatementText<P, R> {
  return { sql: text };
}

type PreparedSet<T> = { readonly [K in keyof T]: T[K] extends StatementText<infer P, infer R> ? Prepared<P, R> : never };

/** The statements of `texts`, prepared once per connection on first use. */
export function preparedStatements<T extends Record<string, StatementText<object, unknown>>>(texts: T): (sqlite: Sqlite) => PreparedSet<T> {
  const made = new WeakMap<Sqlite, PreparedSet<T>>();
  return (sqlite) => {
    let set = made.get(sqlite);
    if (set === undefined) {
      const entries = Object.entries(texts).map(([name, text]) => [name, prepared(sqlite, text.sql)]);
      made.set(sqlite, (set = Object.fromEntries(entries) as PreparedSet<T>));
    }
    return set;
  };
}

function prepared(sqlite: Sqlite, text: string): Prepared<object, unknown> {
  const stmt: Statement<unknown[]> = sqlite.prepare(text);
  // A statement that returns data keeps a second, plucking one for column(): pluck mode belongs to the statement.
  let plucking: Statement<unknown[]> | undefined;
  const bind = (args: unknown[]) => args as [object];
  return {
    all: (...args) => stmt.all(...bind(args)),
    get: (...args) => stmt.get(...bind(args)),
    run: (...args) => stmt.run(...bind(args)),
    iterate: (...args) => stmt.iterate(...bind(args)),
    column: (...args) => {
      plucking ??= sqlite.prepare(text).pluck();
      return plucking.all(...bind(args)) as never[];
    },
  };
}

/** A statement run once on a raw connection (backups, version checks): prepared, run with its named `@param` values and dropped. */
export function runOnce<R = never>(sqlite: Sqlite, text: string, params?: Readonly<Record<string, unknown>>): R[] {
  const stmt = sqlite.prepare(text);
  const args = params === undefined ? [] : [params];
  if (!stmt.reader) {
    stmt.run(...args);
    return [];
  }
  return stmt.all(...args) as R[];
}
