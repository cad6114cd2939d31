import type { CompiledQuery, RawBuilder, SqlBool } from 'kysely';
import type { Db, Sqlite } from './database';
import { inJsonList as jsonList, readRows } from './query';

/*
 * The old entry points of pbx-logs and queue-reports, kept only until those two folders move to defineQuery
 * (./query.ts) and preparedStatements (./statements.ts). Nothing else may use them; delete this file then.
 */

/** @deprecated use preparedStatements (./statements.ts). */
export function perConnection<T>(prepare: (sqlite: Sqlite) => T): (sqlite: Sqlite) => T {
  const made = new WeakMap<Sqlite, T>();
  return (sqlite) => {
    let s = made.get(sqlite);
    if (s === undefined) made.set(sqlite, (s = prepare(sqlite)));
    return s;
  };
}

/** @deprecated use defineQuery (./query.ts): named parameters instead of dummy values in placeholder order. */
export function selectOnce<R>(build: (db: Db) => CompiledQuery<R>): (db: Db, parameters: readonly unknown[]) => Promise<R[]> {
  let query: CompiledQuery<R> | undefined;
  return (db, parameters) => {
    query ??= build(db);
    if (parameters.length !== query.parameters.length) throw new Error(`${query.sql}: ${query.parameters.length} parameters, ${parameters.length} given`);
    return readRows(db, query, parameters);
  };
}

/** @deprecated use inJsonList of ./query.ts. */
export function inJsonList(column: string, value: unknown = '[]'): RawBuilder<SqlBool> {
  return jsonList(column, value);
}
