import { sql, type CompiledQuery, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { readRows, type Db } from './database';
import { Lru } from './dialect';
import { engineOf } from './engine';
import { inJsonList as inJsonListOf } from './portable';

/*
 * Queries compiled once per shape, run with named parameters: the one way the server's hot reads (the caller
 * of every request, GET /v2/webhooks/{id}, the phone-number list) reach the database. Kysely builds and
 * compiles the query once per shape (building and compiling took 10-25 us a query under load, more than
 * running it); each run binds its values by name and reads the rows through the statement cache in raw mode
 * (./dialect.ts). Everything else speaks Kysely builders directly.
 *
 *   const webhookById = defineQuery((db, p: Params<{ id: number; scope: TenantScope }>) =>
 *     db.selectFrom('webhooks').select(['id', 'url']).where('id', '=', p.id).where(tenantIn(p.scope)));
 *   const row = await webhookById.first(db, { id, scope });
 */

/** The placeholders of a query's named parameters, typed as the values they stand for (p.id is a number to Kysely). */
export type Params<P> = { readonly [K in keyof P]: P[K] };

/**
 * A parameter value that chooses between variants of the SQL as well as being bound: its variant is part of the
 * shape of every query it is a parameter of, and SQL_VALUE is what is bound for it. A tenant scope is one (every
 * tenant: no condition; some: their ids as a JSON list).
 */
export const SQL_VARIANT: unique symbol = Symbol('sql variant');
export const SQL_VALUE: unique symbol = Symbol('sql value');

export interface VariantParameter {
  readonly [SQL_VARIANT]: string;
  readonly [SQL_VALUE]: unknown;
}

/** A named placeholder in a query being built, with the variant of the value it stands for in this shape. */
class Slot {
  constructor(
    readonly name: string,
    readonly variant: string | undefined,
  ) {}
}

function isVariant(value: unknown): value is VariantParameter {
  return typeof value === 'object' && value !== null && SQL_VARIANT in value;
}

/** The variant of a parameter value, or of the value a placeholder stands for; undefined for a plain value. */
export function variantOf(value: unknown): string | undefined {
  if (value instanceof Slot) return value.variant;
  return isVariant(value) ? value[SQL_VARIANT] : undefined;
}

/** What to put into a query for a value: a placeholder stays (bound at each run), a variant parameter gives its SQL_VALUE. */
export function boundOf(value: unknown): unknown {
  return isVariant(value) ? value[SQL_VALUE] : value;
}

/**
 * `column IN (the numbers of one JSON array parameter)`: a list of any length in a query of one shape, one
 * statement for every length (src/db/portable.ts writes it for each engine).
 */
export function inJsonList(column: string, value: unknown): RawBuilder<SqlBool> {
  return inJsonListOf(column, boundOf(value));
}

/**
 * The WHERE condition of a variant parameter on a column (a tenant scope, src/access/tenant-filter.ts): no
 * condition for the 'all' variant, `column = value` for 'one', `column IN (the JSON list)` for 'some'.
 */
export function variantCondition(value: unknown, column: string): Expression<SqlBool> {
  const variant = variantOf(value);
  if (variant === 'all') return sql<SqlBool>`1 = 1`;
  if (variant === 'one') return sql<SqlBool>`${sql.ref(column)} = ${boundOf(value)}`;
  return inJsonList(column, value);
}

/**
 * Applies a page window to a query builder (SQLite needs a LIMIT before an OFFSET; no limit, no LIMIT). The two
 * numbers are written into the SQL, not bound: SQLite (built with STAT4, as better-sqlite3 is) prepares a
 * statement again whenever a parameter of its LIMIT is bound, on every run, which doubled the time of a
 * page query (21 us instead of 10). They are integers the query schema has checked.
 */
export function limitOffset<Q extends { limit(n: Expression<number>): Q; offset(n: Expression<number>): Q }>(
  query: Q,
  limit: number | null,
  offset: number,
): Q {
  if (limit === null) return query;
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset)) throw new Error(`page window ${limit}, ${offset}: integers expected`);
  return query.limit(sql.lit(limit)).offset(sql.lit(offset));
}

type Compilable<R> = CompiledQuery<R> | { compile(): CompiledQuery<R> };

/** Shapes kept per query (a shape includes its page: LIMIT and OFFSET are written into the SQL, see access/paging.ts). */
const SHAPES_KEPT = 200;

/** A SELECT compiled once per shape and run with named values. */
export interface ShapedQuery<S, P, R> {
  all(db: Db, shape: S, values: P): Promise<R[]>;
  first(db: Db, shape: S, values: P): Promise<R | undefined>;
}

/** A SELECT of one shape (apart from the variants of its values), compiled once and run with named values. */
export interface Query<P, R> {
  all(db: Db, values: P): Promise<R[]>;
  first(db: Db, values: P): Promise<R | undefined>;
}

/**
 * A query whose shape varies (which filters it has, its page): `build` makes the query of one shape, with
 * placeholders p.name where the values go; it is built once per key (keyOf(shape) and the variants of the
 * values) and then run with each call's values. Everything build reads of `shape` must be in keyOf.
 */
export function defineShapedQuery<S, P extends object, R>(
  keyOf: (shape: S) => string,
  build: (db: Db, p: Params<P>, shape: S) => Compilable<R>,
): ShapedQuery<S, P, R> {
  const shapes = new Lru<CompiledQuery<R>>(SHAPES_KEPT);
  const all = async (db: Db, shape: S, values: P): Promise<R[]> => {
    const named = values as Readonly<Record<string, unknown>>;
    // Keyed by engine too: a process holding both (tars db copy, a test) must not run one engine's SQL on the other.
    const query = shapes.get(`${engineOf(db)}|${keyOf(shape)}|${variantsKey(named)}`, () =>
      compiledOf(build(db, placeholders<P>(named), shape)),
    );
    return readRows(
      db,
      query,
      query.parameters.map((s) => valueOf(query, s, named)),
    );
  };
  return { all, first: async (db, shape, values) => (await all(db, shape, values))[0] };
}

/** defineShapedQuery for a query of one shape. */
export function defineQuery<P extends object, R>(build: (db: Db, p: Params<P>) => Compilable<R>): Query<P, R> {
  const shaped = defineShapedQuery<undefined, P, R>(
    () => '',
    (db, p) => build(db, p),
  );
  return { all: (db, values) => shaped.all(db, undefined, values), first: (db, values) => shaped.first(db, undefined, values) };
}

function variantsKey(values: Readonly<Record<string, unknown>>): string {
  let key = '';
  for (const name in values) {
    const variant = variantOf(values[name]);
    if (variant !== undefined) key += `${name}=${variant};`;
  }
  return key;
}

function placeholders<P>(values: Readonly<Record<string, unknown>>): Params<P> {
  return new Proxy({} as Params<P>, { get: (_, name) => new Slot(String(name), variantOf(values[String(name)])) });
}

function valueOf(query: CompiledQuery, parameter: unknown, values: Readonly<Record<string, unknown>>): unknown {
  if (!(parameter instanceof Slot)) return parameter;
  const value = boundOf(values[parameter.name]);
  if (value === undefined) throw new Error(`${query.sql}: no value for ${parameter.name}`);
  return value;
}

const compiledOf = <R>(built: Compilable<R>): CompiledQuery<R> => ('compile' in built ? built.compile() : built);
