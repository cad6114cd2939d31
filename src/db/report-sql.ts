import { sql, type Kysely, type RawBuilder } from 'kysely';
import { engineOf, type Engine } from './engine';

/*
 * The SQL fragments of the queue reports that differ between SQLite and PostgreSQL (docs/design/postgresql.md §2.1),
 * written once per engine here so that no repository tests the engine itself. Each SQLite form is the text the
 * reports always sent (test/unit/report-sql-frozen.test.ts holds it byte for byte: the statement cache and the report
 * benchmarks are keyed by it); each PostgreSQL form gives the same values. Hand-written, not a library: these are
 * a dozen one-line rewrites of TARS's own queries.
 */

/** SQL text, or a Kysely fragment that may hold parameters. */
export type Fragment = string | RawBuilder<unknown>;

const frag = (f: Fragment): RawBuilder<unknown> => (typeof f === 'string' ? sql.raw(f) : f);

/** The same fragments as plain text (no parameters), for SQL kept in string constants (pbx-logs/stats.repository.ts). */
export interface ReportText {
  /**
   * How many rows meet a condition, as SQLite's `sum(cond)`: NULL rows count nothing, and no row (or only NULL
   * conditions) gives NULL. PostgreSQL cannot sum booleans: `sum(CAST((cond) AS integer))`, the same values.
   */
  count(cond: string): string;
  /**
   * A sum that feeds arithmetic (a division): sum(bigint) is numeric on PostgreSQL, whose `/` keeps a fraction, so
   * it is cast back to bigint there (`/` on two bigints truncates, as SQLite's on integers).
   */
  sumInt(expr: string): string;
  /** The larger of two values: SQLite's scalar max(a, b), PostgreSQL's GREATEST. Only for non-NULL arguments (GREATEST skips NULLs). */
  greatest(a: string, b: string): string;
}

export interface ReportSql {
  readonly engine: Engine;
  readonly text: ReportText;
  /** `count` above, for a fragment with parameters. */
  count(cond: Fragment): RawBuilder<number>;
  /** A condition as 0/1 (SQLite gives 0/1; PostgreSQL a boolean, cast to integer there). */
  flag(cond: Fragment): RawBuilder<number>;
  greatest(a: Fragment, b: Fragment): RawBuilder<number>;
  least(a: Fragment, b: Fragment): RawBuilder<number>;
  /** ` INDEXED BY index` after a table on SQLite (a planner hint); nothing on PostgreSQL, which plans by its statistics. */
  indexedBy(index: string): RawBuilder<unknown>;
  /** ` AS t` after a subquery in FROM on PostgreSQL, which needs one (SQLite's text has none). */
  derivedAlias(alias: string): RawBuilder<unknown>;
  /** A camelCase column name: as written on SQLite, quoted on PostgreSQL (which folds an unquoted name to lower case). */
  name(alias: string): RawBuilder<unknown>;
  /** A result column `expr` named `alias` (camelCase) that SQLite names by itself: `expr` there, `expr AS "alias"` on PostgreSQL. */
  named(expr: string, alias: string): RawBuilder<unknown>;
  /** The integers of a JSON array parameter, as a subquery: `SELECT value FROM json_each(?)` on SQLite. */
  jsonIds(ids: readonly number[]): RawBuilder<unknown>;
  /**
   * A JSON array of objects (one parameter on both engines) as the rows of a FROM item `p`, one row per element:
   * `from` is the FROM item, `field(f)` reads field `f` of the current element (a bigint); GROUP BY `groupKey` for
   * one result row per element, its field `span` selectable (PostgreSQL wants it grouped too).
   */
  jsonRows(
    rows: readonly object[],
    fields: readonly string[],
  ): { from: RawBuilder<unknown>; field(name: string): string; groupKey: string };
  /**
   * `WITH sp AS MATERIALIZED (…)`: the spans (span, queueId, from, to and the named extra fields of each JSON
   * object) as table `sp` (span, queue_id, lo, hi, extra fields by their own names), ordered by span.
   */
  spanTable(spans: readonly object[], extra: readonly string[]): RawBuilder<unknown>;
}

const SQLITE_TEXT: ReportText = {
  count: (cond) => `sum(${cond})`,
  sumInt: (expr) => `sum(${expr})`,
  greatest: (a, b) => `max(${a}, ${b})`,
};

const POSTGRES_TEXT: ReportText = {
  count: (cond) => `sum(CAST((${cond}) AS integer))`,
  sumInt: (expr) => `CAST(sum(${expr}) AS bigint)`,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
};

/** The JSON fields of a span as PostgreSQL record columns, all bigint (they are ids, indexes and epoch seconds). */
const recordColumns = (fields: readonly string[]) => fields.map((f) => `"${f}" bigint`).join(', ');

const SQLITE: ReportSql = {
  engine: 'sqlite',
  text: SQLITE_TEXT,
  count: (cond) => sql<number>`sum(${frag(cond)})`,
  flag: (cond) => sql<number>`${frag(cond)}`,
  greatest: (a, b) => sql<number>`max(${frag(a)}, ${frag(b)})`,
  least: (a, b) => sql<number>`min(${frag(a)}, ${frag(b)})`,
  indexedBy: (index) => sql.raw(` INDEXED BY ${index}`),
  derivedAlias: () => sql.raw(''),
  name: (alias) => sql.raw(alias),
  named: (expr) => sql.raw(expr),
  jsonIds: (ids) => sql`SELECT value FROM json_each(${JSON.stringify(ids)})`,
  jsonRows: (rows) => ({ from: sql`json_each(${JSON.stringify(rows)}) p`, field: (f) => `p.value ->> '${f}'`, groupKey: 'p.key' }),
  spanTable: (spans, extra) => {
    const fields = extra.map((f) => `, value ->> '${f}' AS ${f}`).join('');
    return sql`WITH sp AS MATERIALIZED (SELECT value ->> 'span' AS span, value ->> 'queueId' AS queue_id, value ->> 'from' AS lo,
    value ->> 'to' AS hi${sql.raw(fields)} FROM json_each(${JSON.stringify(spans)}) ORDER BY 1)`;
  },
};

const POSTGRES: ReportSql = {
  engine: 'postgres',
  text: POSTGRES_TEXT,
  count: (cond) => sql<number>`sum(CAST((${frag(cond)}) AS integer))`,
  flag: (cond) => sql<number>`CAST((${frag(cond)}) AS integer)`,
  greatest: (a, b) => sql<number>`GREATEST(${frag(a)}, ${frag(b)})`,
  least: (a, b) => sql<number>`LEAST(${frag(a)}, ${frag(b)})`,
  indexedBy: () => sql.raw(''),
  derivedAlias: (alias) => sql.raw(` AS ${alias}`),
  name: (alias) => sql.raw(`"${alias}"`),
  named: (expr, alias) => sql.raw(`${expr} AS "${alias}"`),
  jsonIds: (ids) => sql`SELECT CAST(value AS bigint) FROM jsonb_array_elements_text(CAST(${JSON.stringify(ids)} AS jsonb))`,
  // ROWS FROM … WITH ORDINALITY: the element's position as p.key, as json_each gives it (a record's column list
  // cannot be written beside WITH ORDINALITY otherwise).
  jsonRows: (rows, fields) => ({
    from: sql`ROWS FROM (jsonb_to_recordset(CAST(${JSON.stringify(rows)} AS jsonb)) AS (${sql.raw(recordColumns(fields))})) WITH ORDINALITY AS p(${sql.raw(
      [...fields.map((f) => `"${f}"`), 'key'].join(', '),
    )})`,
    field: (f) => `p."${f}"`,
    groupKey: 'p.key, p.span',
  }),
  // The extra fields keep their names unquoted (folded to lower case), as the queries that read them write them.
  spanTable: (spans, extra) => {
    const fields = extra.map((f) => `, "${f}" AS ${f}`).join('');
    return sql`WITH sp AS MATERIALIZED (SELECT span, "queueId" AS queue_id, "from" AS lo, "to" AS hi${sql.raw(fields)}
    FROM jsonb_to_recordset(CAST(${JSON.stringify(spans)} AS jsonb)) AS p(${sql.raw(recordColumns(['span', 'queueId', 'from', 'to', ...extra]))}) ORDER BY 1)`;
  },
};

/** The report fragments of the engine `db` runs on (a transaction's too). */
export function reportSql(db: Pick<Kysely<unknown>, 'getExecutor'>): ReportSql {
  return engineOf(db) === 'postgres' ? POSTGRES : SQLITE;
}

/** The text fragments of an engine. */
export function reportText(engine: Engine): ReportText {
  return engine === 'postgres' ? POSTGRES_TEXT : SQLITE_TEXT;
}
