import { sql, type Expression } from 'kysely';

/**
 * Paging of every list (decisions.md §5b): `page` (1-based, default 1), `recordsPerPage` (default 50), and
 * `paginated=0` for every record on one page. The defaults are applied here: ajv does not fill in a default
 * that a query schema reaches through $ref (schemas/common.json, $defs/paging).
 */
export interface PageQuery {
  readonly page?: number;
  readonly recordsPerPage?: number;
  readonly paginated?: number;
}

export interface Page<T> {
  records: T[];
  page: number;
  maxPage: number;
  total: number;
}

/** The rows a repository reads for one page: no limit when the list is not paginated. */
export interface PageWindow {
  readonly limit: number | null;
  readonly offset: number;
}

const DEFAULT_RECORDS_PER_PAGE = 50;

export function pageWindow(q: PageQuery): PageWindow {
  if (q.paginated === 0) return { limit: null, offset: 0 };
  const per = q.recordsPerPage ?? DEFAULT_RECORDS_PER_PAGE;
  return { limit: per, offset: ((q.page ?? 1) - 1) * per };
}

/**
 * Applies a window to a query builder (SQLite needs a LIMIT before an OFFSET; no window, no LIMIT). The two
 * numbers are written into the SQL, not bound: SQLite (built with STAT4, as better-sqlite3 is) prepares a
 * statement again whenever a parameter of its LIMIT is bound, on every run, which doubled the time of a
 * page query (21 us instead of 10). They are integers the query schema has checked.
 */
export function windowed<Q extends { limit(n: Expression<number>): Q; offset(n: Expression<number>): Q }>(query: Q, w: PageWindow): Q {
  if (w.limit === null) return query;
  if (!Number.isSafeInteger(w.limit) || !Number.isSafeInteger(w.offset))
    throw new Error(`page window ${w.limit}, ${w.offset}: integers expected`);
  return query.limit(sql.lit(w.limit)).offset(sql.lit(w.offset));
}

/** The response of a list: a page past the last one has no records but keeps its number. */
export function pageOf<T>(records: T[], total: number, q: PageQuery): Page<T> {
  if (q.paginated === 0) return { records, page: 1, maxPage: 1, total };
  const per = q.recordsPerPage ?? DEFAULT_RECORDS_PER_PAGE;
  return { records, page: q.page ?? 1, maxPage: Math.max(1, Math.ceil(total / per)), total };
}
