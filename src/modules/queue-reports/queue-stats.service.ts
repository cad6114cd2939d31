import type { Db } from '../../db/database';
import type { SchemaTypes } from '../../validation/schema-types';
import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import {
  parseReportDate,
  periodsOf,
  resolveRange,
  type Distribution,
  type Period,
  type ReportDate,
  type ReportRange,
} from '../../time/report-range';
import { isCalendar, reportRows } from '../../time/report-rows';
import { isoInZone } from '../../time/zone';
import { getQueuesInScope, type QueueRow } from '../queues/queues.repository';
import { timezoneOfTenant } from '../tenants/tenants.repository';
import { periodSums, spanSums } from './period-sums';
import { toStatsRow, type QueueStatsResponse, type QueueStatsRow } from './queue-reports';
import { addSums, emptySums, type Sums } from './spans';

export type QueueStatsBody = SchemaTypes['queue-stats-request'];

/** What the queue reports use (docs/architecture.md, "The service shape"). */
export interface QueueReportDeps {
  readonly db: Db;
}

/** The range of a report as read, before a timezone makes instants of it (every report request's, schemas/report-range.json). */
export type DateBody = Pick<QueueStatsBody, 'startDate' | 'endDate'>;

export function readDates(body: DateBody): { start: ReportDate; end: ReportDate } {
  return { start: parseReportDate('startDate', body.startDate), end: parseReportDate('endDate', body.endDate) };
}

/**
 * POST /v2/reporting/queues/stats (api.md §4.3, decisions.md §6, reporting.md R5–R12): one row per queue
 * and period, each queue in its own tenant's timezone, sorted by queue id then date.
 */
export async function queueStats(deps: QueueReportDeps, caller: Caller, body: QueueStatsBody): Promise<QueueStatsResponse> {
  const { db } = deps;
  const { start, end } = readDates(body);
  const distribution = body.distribution ?? 'totals';
  const ids = [...new Set(body.queueId)].sort((a, b) => a - b);
  const queues = await getQueuesInScope(db, caller.scope, ids);
  const rows = new Map<number, QueueStatsRow[]>();
  for (const tenantId of new Set(queues.map((q) => q.tenantId))) {
    const ofTenant = queues.filter((q) => q.tenantId === tenantId);
    const tz = await timezoneOfTenant(db, requireTenant(caller.scope, tenantId));
    const range = resolveRange(tz, start, end);
    if (!isCalendar(distribution)) {
      for (const [id, list] of await intervalRows(db, caller, ofTenant, tz, range, distribution)) rows.set(id, list);
      continue;
    }
    const periods = periodsOf(tz, range, distribution);
    const sums = await periodSums(db, caller.scope, ofTenant, tz, range, periods);
    for (const q of ofTenant)
      rows.set(
        q.id,
        periods.map((p, i) => toStatsRow(q, p.date, distribution, sums.get(q.id)?.[i] as Sums)),
      );
  }
  return { queueIds: body.queueId, results: queues.flatMap((q) => rows.get(q.id) ?? []) };
}

/** Rows of the distributions that are additions (R20): each row's spans summed, then added up; rows carry `start`. */
async function intervalRows(
  db: Db,
  caller: Caller,
  queues: readonly QueueRow[],
  tz: string,
  range: ReportRange,
  distribution: Distribution,
): Promise<Map<number, QueueStatsRow[]>> {
  const rows = reportRows(tz, range, distribution);
  const starts = rows.map((r) => (r.start === null ? null : isoInZone(tz, r.start))); // once, for every queue
  const sums = await spanSums(
    db,
    caller.scope,
    queues,
    rows.flatMap((r) => r.spans),
  );
  const out = new Map<number, QueueStatsRow[]>();
  for (const q of queues) {
    const ofQueue = sums.get(q.id) ?? [];
    let k = 0;
    out.set(
      q.id,
      rows.map((r, index) => {
        let total = ofQueue[k] ?? emptySums(); // a row of one span (an interval): its sums as they are
        if (r.spans.length !== 1) {
          total = emptySums();
          for (let i = 0; i < r.spans.length; i++) addSums(total, ofQueue[k + i] as Sums);
        }
        k += r.spans.length;
        return toStatsRow(q, r.date, distribution, total, starts[index]);
      }),
    );
  }
  return out;
}

/**
 * The stored lines' sums of some queues of one tenant over periods of a range, in the tenant's zone (what the live
 * view's today is made of: src/modules/live-queues). Each queue's list has one element per period.
 */
export async function queuePeriodSums(
  deps: QueueReportDeps,
  caller: Caller,
  queues: Parameters<typeof periodSums>[2],
  tz: string,
  range: ReportRange,
  periods: readonly Period[],
): Promise<Map<number, Sums[]>> {
  return periodSums(deps.db, caller.scope, queues, tz, range, periods);
}
