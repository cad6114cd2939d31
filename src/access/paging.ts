import type { Expression } from 'kysely';
import { limitOffset } from '../db/query';

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

/** Applies a page window to a query builder (its LIMIT and OFFSET: db/query.ts's limitOffset). */
export function windowed<Q extends { limit(n: Expression<number>): Q; offset(n: Expression<number>): Q }>(query: Q, w: PageWindow): Q {
  return limitOffset(query, w.limit, w.offset);
}

/** The response of a list: a page past the last one has no records but keeps its number. */
export function pageOf<T>(records: T[], total: number, q: PageQuery): Page<T> {
  if (q.paginated === 0) return { records, page: 1, maxPage: 1, total };
  const per = q.recordsPerPage ?? DEFAULT_RECORDS_PER_PAGE;
  return { records, page: q.page ?? 1, maxPage: Math.max(1, Math.ceil(total / per)), total };
}
