import { sql } from 'kysely';
import type { Db } from './database';
import { engineOf } from './engine';

/**
 * After rows were inserted with their ids given (a fixture keeps its ids): on PostgreSQL every identity sequence of
 * the schema is moved past the highest id its table holds, or the next row numbered by the database would take an
 * id already there (an identity does not move past an explicit id: docs/design/postgresql.md §2.1, risk 7). A
 * sequence already further on stays where it is: an id once given is never given again. SQLite numbers from the
 * table itself (max + 1, or sqlite_sequence for AUTOINCREMENT, which an explicit id raises): nothing to do.
 */
export async function advanceIds(db: Db): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  const { rows } = await sql<{ table: string; column: string; seq: string }>`
    SELECT table_name AS "table", column_name AS "column", pg_get_serial_sequence(quote_ident(table_name), column_name) AS seq
    FROM information_schema.columns
    WHERE table_schema = current_schema() AND is_identity = 'YES'
    ORDER BY table_name`.execute(db);
  for (const { table, column, seq } of rows) {
    await sql`
      SELECT setval(${seq}, m.top)
      FROM (SELECT max(${sql.ref(column)}) AS top FROM ${sql.table(table)}) AS m,
           (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS given FROM ${sql.raw(seq)}) AS s
      WHERE m.top > s.given`.execute(db);
  }
}
