import type { Db } from '../../db/database';
import type { Caller } from '../../http/caller';
import { parseReportDate, periodsOf, resolveRange, type Distribution, type Period, type ReportDate } from '../../time/report-range';
import { getQueuesInScope, type QueueRow } from '../queues/queues.repository';
import { tenantTimezone } from '../tenants/tenants.repository';
import { toStatsRow, type QueueStatsResponse } from './queue-reports';
import { edgeOutbound, edgeStats, hourOutbound, hourStats } from './queue-stats.repository';
import { addOutbound, addStats, emptySums, splitPieces, type Piece, type Sums } from './spans';

export interface QueueStatsBody {
  queueId: number[];
  startDate: string;
  endDate: string;
  distribution?: Distribution;
}

/** The range of a report as read, before a timezone makes instants of it. */
export interface DateBody {
  startDate: string;
  endDate: string;
}

export function readDates(body: DateBody): { start: ReportDate; end: ReportDate } {
  return { start: parseReportDate('startDate', body.startDate), end: parseReportDate('endDate', body.endDate) };
}

/**
 * POST /v2/reporting/queues/stats (api.md §4.3, decisions.md §6, reporting.md R5–R12): one row per queue
 * and period, each queue in its own tenant's timezone, sorted by queue id then date.
 */
export async function queueStats(db: Db, caller: Caller, body: QueueStatsBody): Promise<QueueStatsResponse> {
  const { start, end } = readDates(body);
  const distribution = body.distribution ?? 'totals';
  const ids = [...new Set(body.queueId)].sort((a, b) => a - b);
  const queues = await getQueuesInScope(db, caller.scope, ids);
  const timezones = new Map<number, string>();
  const periodsOfQueue = new Map<number, Period[]>();
  for (const q of queues) {
    if (!timezones.has(q.tenantId)) timezones.set(q.tenantId, await tenantTimezone(db, q.tenantId));
    const tz = timezones.get(q.tenantId) as string;
    periodsOfQueue.set(q.id, periodsOf(tz, resolveRange(tz, start, end), distribution));
  }
  const pieces: (Piece & { queue: QueueRow; period: Period })[] = queues.flatMap((queue) =>
    (periodsOfQueue.get(queue.id) ?? []).map((period) => ({ queueId: queue.id, tenantId: queue.tenantId, from: period.from, to: period.to, queue, period })),
  );
  const sums = await sumPieces(db, pieces);
  return {
    queueIds: body.queueId,
    results: pieces.map((p, i) => toStatsRow(p.queue, p.period.date, distribution, sums[i] as Sums)),
  };
}

/** The statistics of each piece: whole hours and edges, call figures and outbound figures. */
export async function sumPieces(db: Db, pieces: readonly Piece[]): Promise<Sums[]> {
  const sums = pieces.map(() => emptySums());
  const { hours, edges } = splitPieces(pieces);
  const [h, ho, e, eo] = await Promise.all([hourStats(db, hours), hourOutbound(db, hours), edgeStats(db, edges), edgeOutbound(db, edges)]);
  for (const row of [...h, ...e]) addStats(sums[row.span] as Sums, row);
  for (const row of [...ho, ...eo]) addOutbound(sums[row.span] as Sums, row);
  return sums;
}
