import { sql, type Kysely } from 'kysely';
import { engineOf } from '../../db/migrations/engine';

/*
 * A database's schema in one normalised form for both engines, so that a test can prove the migrations make the
 * same schema on SQLite and on PostgreSQL (docs/design/postgresql.md §3.4; test/e2e/schema-parity.test.ts).
 * Read from SQLite's PRAGMAs (table_xinfo, index_list, index_xinfo, foreign_key_list) and the stored SQL of
 * sqlite_master (CHECKs, partial-index predicates), and from PostgreSQL's catalogs (pg_attribute, pg_constraint,
 * pg_index, pg_trigger). Kysely's own tables (schema_migrations, schema_migrations_lock) are left out: Kysely makes them.
 */

/** The three kinds of value TARS stores: SQLite's integer/real/text, PostgreSQL's bigint/double precision/text. */
export type PortableType = 'integer' | 'real' | 'text';

export interface ColumnDescription {
  readonly name: string;
  /** The portable type, or the engine's own type name when it is none of the three. */
  readonly type: PortableType | string;
  /** Declared NOT NULL, or part of the primary key (PostgreSQL makes key columns NOT NULL; TARS never stores NULL in one). */
  readonly notNull: boolean;
  /** The default as text, without casts (`0`, `''`, `'ringall'`); null without one. */
  readonly default: string | null;
  /** Numbered by the database when an insert leaves it out: SQLite's INTEGER PRIMARY KEY, PostgreSQL's identity. */
  readonly generated: boolean;
}

export interface IndexDescription {
  readonly name: string;
  readonly unique: boolean;
  /** Key columns in order: a column name, or `ci(name)` for a case-insensitive key (NOCASE / lower(… COLLATE "C")). */
  readonly columns: readonly string[];
  /** The partial index's predicate, normalised (normaliseExpression); null for a whole-table index. */
  readonly where: string | null;
}

export interface ForeignKeyDescription {
  readonly columns: readonly string[];
  readonly table: string;
  readonly references: readonly string[];
  /** `no action`, `cascade`, `set null`, `restrict` or `set default`. */
  readonly onDelete: string;
}

export interface TableDescription {
  readonly name: string;
  /** In table order. */
  readonly columns: readonly ColumnDescription[];
  readonly primaryKey: readonly string[];
  /** UNIQUE constraints (column or table), each its columns in order; sorted. Unique indexes are in `indexes`. */
  readonly unique: readonly (readonly string[])[];
  /** Sorted by their columns. */
  readonly foreignKeys: readonly ForeignKeyDescription[];
  /** CHECK expressions, normalised (normaliseExpression); sorted. */
  readonly checks: readonly string[];
  /** Indexes made by CREATE INDEX (not those behind a key or UNIQUE constraint); sorted by name. */
  readonly indexes: readonly IndexDescription[];
  /** The names of the triggers on the table (their bodies are each engine's own language); sorted. */
  readonly triggers: readonly string[];
}

export interface SchemaDescription {
  /** Sorted by name. */
  readonly tables: readonly TableDescription[];
}

const KYSELY_TABLES = ['schema_migrations', 'schema_migrations_lock'];

/** The schema of the database under `db` (SQLite or PostgreSQL), normalised so that both engines' can be compared. */
export async function describeSchema<DB>(db: Kysely<DB>): Promise<SchemaDescription> {
  const tables = engineOf(db) === 'postgres' ? await describePostgres(db) : await describeSqlite(db);
  return { tables: [...tables].sort((a, b) => compare(a.name, b.name)) };
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    compare(key(a), key(b));

/**
 * An SQL expression in one form for both engines: PostgreSQL's casts (`'x'::text`) and `COLLATE "C"` dropped,
 * `col = ANY (ARRAY[a, b])` written `col IN (a, b)`, parentheses dropped (PostgreSQL prints every operation in
 * its own; both engines' expressions come from one migration text, so grouping cannot differ), keywords and
 * names lower-cased (string literals kept), spaces collapsed.
 */
export function normaliseExpression(expression: string): string {
  const parts = expression
    .replace(/::(text|bigint|integer|numeric|double precision|character varying)(\[\])?/g, '')
    .replace(/ COLLATE "C"/g, '')
    .replace(/(\w+) = ANY \(ARRAY\[([^\]]*)\]\)/g, '$1 IN ($2)')
    .split(/('(?:[^']|'')*')/);
  return parts
    .map((part, i) => (i % 2 === 1 ? part : part.toLowerCase().replace(/[()]/g, ' ')))
    .join('')
    .replace(/\s+/g, ' ')
    .replace(/ ?, ?/g, ', ')
    .trim();
}

/** A column's default without casts: `''::text` → `''`. */
const normaliseDefault = (value: string | null): string | null =>
  value === null ? null : value.replace(/::(text|bigint|integer|numeric|double precision|character varying)$/, '').trim();

function sqliteType(declared: string): PortableType | string {
  const t = declared.toUpperCase();
  if (t === 'INTEGER') return 'integer';
  if (t === 'REAL') return 'real';
  if (t === 'TEXT' || t.startsWith('VARCHAR')) return 'text';
  return declared;
}

function postgresType(type: string): PortableType | string {
  if (type === 'bigint' || type === 'integer' || type === 'smallint') return 'integer';
  if (type === 'double precision' || type === 'real') return 'real';
  if (type === 'text' || type.startsWith('character varying')) return 'text';
  return type;
}

/** The text inside the parentheses that open at `open` in `text`. */
function parenthesised(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "'")
      i = text.indexOf("'", i + 1); // a string literal: its parentheses do not count
    else if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`unbalanced parentheses in ${text}`);
}

/** Every CHECK (…) of a stored CREATE TABLE. */
function checksOf(create: string): string[] {
  const out: string[] = [];
  for (const m of create.matchAll(/\bCHECK\s*\(/gi)) out.push(parenthesised(create, m.index + m[0].length - 1));
  return out;
}

async function describeSqlite<DB>(db: Kysely<DB>): Promise<TableDescription[]> {
  const { rows: tables } = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db);
  const out: TableDescription[] = [];
  for (const table of tables.filter((t) => !KYSELY_TABLES.includes(t.name))) {
    const { rows: cols } = await sql<{
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
      hidden: number;
    }>`
      SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(${table.name}) ORDER BY cid`.execute(db);
    const columns = cols.filter((c) => c.hidden === 0);
    const primaryKey = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const withoutRowid = /\)\s*WITHOUT\s+ROWID\s*$/i.test(table.sql);
    const rowidAlias = (c: (typeof columns)[number]) =>
      !withoutRowid && primaryKey.length === 1 && c.pk === 1 && c.type.toUpperCase() === 'INTEGER';

    const { rows: indexList } = await sql<{ name: string; unique: number; origin: string; partial: number }>`
      SELECT name, "unique", origin, partial FROM pragma_index_list(${table.name})`.execute(db);
    const unique: string[][] = [];
    const indexes: IndexDescription[] = [];
    for (const index of indexList) {
      if (index.origin === 'pk') continue;
      const { rows: keys } = await sql<{ name: string | null; coll: string; key: number }>`
        SELECT name, coll, key FROM pragma_index_xinfo(${index.name}) WHERE key = 1 ORDER BY seqno`.execute(db);
      const names = keys.map((k) => (k.name === null ? '<expression>' : k.coll.toUpperCase() === 'NOCASE' ? `ci(${k.name})` : k.name));
      if (index.origin === 'u') {
        unique.push(names);
        continue;
      }
      const { rows: stored } = await sql<{
        sql: string;
      }>`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ${index.name}`.execute(db);
      const where = index.partial === 1 ? /\)\s+WHERE\s+([\s\S]+)$/i.exec(stored[0]?.sql ?? '')?.[1] : undefined;
      indexes.push({ name: index.name, unique: index.unique === 1, columns: names, where: where ? normaliseExpression(where) : null });
    }

    const { rows: fkRows } = await sql<{ id: number; seq: number; table: string; from: string; to: string | null; on_delete: string }>`
      SELECT id, seq, "table", "from", "to", on_delete FROM pragma_foreign_key_list(${table.name}) ORDER BY id, seq`.execute(db);
    const foreignKeys = new Map<number, { columns: string[]; table: string; references: (string | null)[]; onDelete: string }>();
    for (const r of fkRows) {
      const fk = foreignKeys.get(r.id) ?? { columns: [], table: r.table, references: [], onDelete: r.on_delete.toLowerCase() };
      fk.columns.push(r.from);
      fk.references.push(r.to);
      foreignKeys.set(r.id, fk);
    }
    const resolved: ForeignKeyDescription[] = [];
    for (const fk of foreignKeys.values()) {
      // `REFERENCES parent` without columns names the parent's primary key.
      const references = fk.references.every((c) => c !== null)
        ? (fk.references as string[])
        : (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${fk.table}) WHERE pk > 0 ORDER BY pk`.execute(db)).rows.map(
            (c) => c.name,
          );
      resolved.push({ ...fk, references });
    }

    const { rows: triggers } = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ${table.name}`.execute(db);

    out.push({
      name: table.name,
      columns: columns.map((c) => ({
        name: c.name,
        type: sqliteType(c.type),
        notNull: c.notnull === 1 || c.pk > 0,
        default: normaliseDefault(c.dflt_value),
        generated: rowidAlias(c),
      })),
      primaryKey,
      unique: unique.sort(byKey((u) => u.join(','))),
      foreignKeys: resolved.sort(byKey((f) => f.columns.join(','))),
      checks: checksOf(table.sql).map(normaliseExpression).sort(),
      indexes: indexes.sort(byKey((i) => i.name)),
      triggers: triggers.map((t) => t.name).sort(),
    });
  }
  return out;
}

async function describePostgres<DB>(db: Kysely<DB>): Promise<TableDescription[]> {
  const { rows: cols } = await sql<{ table: string; name: string; type: string; not_null: boolean; dflt: string | null; identity: string }>`
    SELECT c.relname AS "table", a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
      pg_get_expr(d.adbin, d.adrelid) AS dflt, a.attidentity AS identity
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`.execute(db);
  const { rows: constraints } = await sql<{
    table: string;
    type: string;
    columns: string[];
    ref_table: string | null;
    ref_columns: string[];
    on_delete: string;
    definition: string;
  }>`
    SELECT c.relname AS "table", k.contype AS type,
      ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i) AS columns,
      f.relname::text AS ref_table,
      ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
        JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i) AS ref_columns,
      k.confdeltype::text AS on_delete, pg_get_constraintdef(k.oid) AS definition
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_class f ON f.oid = k.confrelid
    WHERE n.nspname = current_schema()`.execute(db);
  const { rows: indexRows } = await sql<{ table: string; name: string; unique: boolean; predicate: string | null; columns: string[] }>`
    SELECT t.relname AS "table", i.relname AS name, x.indisunique AS "unique", pg_get_expr(x.indpred, x.indrelid) AS predicate,
      ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) k ORDER BY k) AS columns
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()
      AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.contype IN ('p', 'u', 'x'))`.execute(db);
  const { rows: triggers } = await sql<{ table: string; name: string }>`
    SELECT c.relname AS "table", t.tgname AS name
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND NOT t.tgisinternal`.execute(db);

  const ON_DELETE: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };
  const names = [...new Set(cols.map((c) => c.table))].filter((t) => !KYSELY_TABLES.includes(t));
  return names.map((table) => {
    const own = constraints.filter((k) => k.table === table);
    const primaryKey = own.find((k) => k.type === 'p')?.columns ?? [];
    return {
      name: table,
      columns: cols
        .filter((c) => c.table === table)
        .map((c) => ({
          name: c.name,
          type: postgresType(c.type),
          notNull: c.not_null,
          default: normaliseDefault(c.dflt),
          generated: c.identity !== '' || (c.dflt ?? '').startsWith('nextval('),
        })),
      primaryKey,
      unique: own
        .filter((k) => k.type === 'u')
        .map((k) => k.columns)
        .sort(byKey((u) => u.join(','))),
      foreignKeys: own
        .filter((k) => k.type === 'f')
        .map((k) => ({
          columns: k.columns,
          table: k.ref_table ?? '',
          references: k.ref_columns,
          onDelete: ON_DELETE[k.on_delete] ?? k.on_delete,
        }))
        .sort(byKey((f) => f.columns.join(','))),
      checks: own
        .filter((k) => k.type === 'c')
        .map((k) => normaliseExpression(/^CHECK \(([\s\S]*)\)$/.exec(k.definition)?.[1] ?? k.definition))
        .sort(),
      indexes: indexRows
        .filter((i) => i.table === table)
        .map((i) => ({
          name: i.name,
          unique: i.unique,
          columns: i.columns.map((c) => {
            const ci = /^lower\(\(?"?(\w+)"? COLLATE "C"\)?\)$/.exec(c);
            return ci ? `ci(${ci[1]})` : c.replace(/^"(.*)"$/, '$1');
          }),
          where: i.predicate === null ? null : normaliseExpression(i.predicate),
        }))
        .sort(byKey((i) => i.name)),
      triggers: triggers
        .filter((t) => t.table === table)
        .map((t) => t.name)
        .sort(),
    };
  });
}
