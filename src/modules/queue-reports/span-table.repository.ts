import type { RawBuilder } from 'kysely';
import type { Db } from '../../db/database';
import { reportSql } from '../../db/report-sql';

/**
 * The spans of a report query as a table `sp` (span, queue_id, lo, hi and any named extra field), read once from
 * one JSON parameter and ordered by span (the SQL per engine: db/report-sql.ts spanTable). Joining queue_events on
 * `sp` rather than on json_each's rows directly matters over a year: on SQLite a condition on `p.value ->> 'to'`
 * parses the span's JSON again at every row the index range visits, and GROUP BY the span then sorts every row
 * (7,300 daily spans of 20 queues took 20 s that way, under 3 s this way: the rows come grouped by span, no sort).
 */
export function withSpans(db: Db, spans: readonly object[], extra: readonly string[] = []): RawBuilder<unknown> {
  return reportSql(db).spanTable(spans, extra);
}
