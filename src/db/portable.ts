import { PostgresQueryCompiler, sql, type RawBuilder, type RawNode, type SqlBool } from 'kysely';

/*
 * SQL fragments written once for both engines (issue 32; docs/design/postgresql.md §2.0, §2.1). A repository
 * calls these builders and never branches on the engine itself; a builder has no database handle (tenantIn(scope)
 * has none), so the choice is made when a query is compiled: each builder writes SQLite's SQL, and the PostgreSQL
 * dialect (src/db/engine.ts) compiles with PortablePostgresQueryCompiler, which writes the PostgreSQL form of a
 * fragment it knows in its place, with the same parameters in the same order. SQLite keeps Kysely's own compiler,
 * so its SQL text is exactly what it was before these builders (its statement cache and the benchmarks depend on
 * that; test/unit/portable-sql.test.ts checks both texts).
 *
 * A fragment is known by its text (the raw node's SQL pieces), not by object identity: a Kysely plugin copies the
 * pieces' array when it transforms a query, the text stays.
 */

const postgresForms = new Map<string, readonly string[]>();
const keyOf = (fragments: readonly string[]): string => fragments.join('\u0000');

/** A fragment of `sqlite` pieces around its parameters, written on PostgreSQL with `postgres` pieces (as many). */
function portable(sqlite: readonly string[], postgres: readonly string[]): (...parameters: unknown[]) => RawBuilder<SqlBool> {
  if (sqlite.length !== postgres.length) throw new Error(`portable SQL ${sqlite.join('?')}: both forms need the same parameters`);
  const pieces = Object.freeze([...sqlite]) as unknown as TemplateStringsArray;
  postgresForms.set(keyOf(sqlite), Object.freeze([...postgres]));
  return (...parameters) => {
    if (parameters.length !== sqlite.length - 1) throw new Error(`portable SQL ${sqlite.join('?')}: ${parameters.length} parameters`);
    return sql<SqlBool>(pieces, ...parameters);
  };
}

// `column IN (the numbers of one JSON array)`: the list is one parameter on both engines (one statement per shape).
const IN_JSON_LIST = portable(
  ['', ' IN (SELECT value FROM json_each(', '))'],
  ['', ' IN (SELECT value::bigint FROM jsonb_array_elements_text(CAST(', ' AS jsonb)))'],
);

// Equal without regard to ASCII case, one form per column (its name is written bare, as the repositories wrote it
// before these builders). PostgreSQL's form is the expression of the case-insensitive indexes the migrations make
// there (users_email, queues_log_name_nocase: lower(col COLLATE "C")), so that the index serves the query.
const ciEqualsOf = new Map<string, (value: unknown) => RawBuilder<SqlBool>>();

// The text `needle` occurs in `haystack` (as a whole, no wildcard characters: instr / strpos, not LIKE).
const CONTAINS = portable(['instr(', ', ', ') > 0'], ['strpos(', ', ', ') > 0']);

/**
 * `column IN (the numbers of one JSON array parameter)`: a list of any length in a query of one shape. SQLite
 * reads the array with json_each and then looks each id up through the column's index, as it does an IN list;
 * PostgreSQL reads it with jsonb_array_elements_text. `value` is the JSON text (or its placeholder).
 */
export function inJsonList(column: string, value: unknown): RawBuilder<SqlBool> {
  return IN_JSON_LIST(sql.ref(column), value);
}

/**
 * `column = value` without regard to the case of ASCII letters (A-Z only, as the PBX names, src/pbx-name.ts):
 * SQLite's COLLATE NOCASE, PostgreSQL's lower(… COLLATE "C") (which folds ASCII only too). The column's
 * case-insensitive index serves it on both.
 */
export function ciEquals(column: string, value: unknown): RawBuilder<SqlBool> {
  let form = ciEqualsOf.get(column);
  if (!form) {
    if (!/^[a-z_][a-z0-9_]*$/.test(column)) throw new Error(`ciEquals: ${column} is not a column name`);
    form = portable([`${column} = `, ' COLLATE NOCASE'], [`lower(${column} COLLATE "C") = lower(`, ' COLLATE "C")']);
    ciEqualsOf.set(column, form);
  }
  return form(value);
}

/** `needle` occurs in `haystack` (both text expressions or values); an empty needle occurs everywhere. */
export function contains(haystack: unknown, needle: unknown): RawBuilder<SqlBool> {
  return CONTAINS(haystack, needle);
}

/** Kysely's PostgreSQL compiler writing the PostgreSQL form of the fragments above. */
export class PortablePostgresQueryCompiler extends PostgresQueryCompiler {
  protected override visitRaw(node: RawNode): void {
    const postgres = postgresForms.get(keyOf(node.sqlFragments));
    super.visitRaw(postgres ? { ...node, sqlFragments: postgres } : node);
  }
}
