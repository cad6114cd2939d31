import type { TenantScope } from '../../access/scope';
import type { Db } from '../../db/database';
import type { Period, ReportRange } from '../../time/report-range';
import { localDay, startOfDay } from '../../time/zone';
import { dayRows, edgeOutbound, edgeStats, hourOutbound, hourRange, hourStats, type DayRow } from './queue-stats.repository';
import { addOutbound, addStats, emptySums, splitPieces, type Piece, type Sums } from './spans';

interface QueueRef {
  readonly id: number;
}

/**
 * The statistics of each period of queues of one timezone. Whole local days come from the day rows when
 * one exists for exactly that day in this timezone; the rest of each period (days without a row, the
 * parts of days at the range's edges) from whole hours and the stored rows (spans.ts).
 */
export async function periodSums(
  db: Db,
  scope: TenantScope,
  queues: readonly QueueRef[],
  tz: string,
  range: ReportRange,
  periods: readonly Period[],
): Promise<Map<number, Sums[]>> {
  const days = await wholeDays(
    db,
    scope,
    queues.map((q) => q.id),
    tz,
    range,
  );
  const out = new Map<number, Sums[]>();
  for (const queue of queues) out.set(queue.id, await queueSums(db, scope, queue, days.get(queue.id) ?? [], periods));
  return out;
}

async function queueSums(
  db: Db,
  scope: TenantScope,
  queue: QueueRef,
  days: readonly DayRow[],
  periods: readonly Period[],
): Promise<Sums[]> {
  const sums = periods.map(() => emptySums());
  const pieces: Piece[] = [];
  const owners: number[] = [];
  const rest = (i: number, from: number, to: number) => {
    if (from >= to) return;
    pieces.push({ queueId: queue.id, from, to });
    owners.push(i);
  };
  let d = 0;
  periods.forEach((p, i) => {
    let cursor = p.from;
    for (; d < days.length && (days[d] as DayRow).start < p.to; d++) {
      const day = days[d] as DayRow;
      if (day.start < p.from || day.end > p.to) continue;
      rest(i, cursor, day.start);
      addStats(sums[i] as Sums, day.stats);
      addOutbound(sums[i] as Sums, day.outbound);
      cursor = day.end;
    }
    rest(i, cursor, p.to);
  });
  (await sumPieces(db, scope, pieces)).forEach((s, k) => {
    addStats(sums[owners[k] as number] as Sums, s);
    addOutbound(sums[owners[k] as number] as Sums, { total: s.outboundTotal, answered: s.outbound, talk: s.outboundTalk });
  });
  return sums;
}

/** The day rows, by queue, that are exactly local days of `tz` lying inside the range. */
async function wholeDays(
  db: Db,
  scope: TenantScope,
  queueIds: readonly number[],
  tz: string,
  range: ReportRange,
): Promise<Map<number, DayRow[]>> {
  if (range.start >= range.end) return new Map();
  const ends = new Map<number, number>(); // start → end of each local day of the range
  for (let day = localDay(tz, range.start), last = localDay(tz, range.end - 1); day <= last; day++)
    ends.set(startOfDay(tz, day), startOfDay(tz, day + 1));
  const byQueue = await dayRows(db, scope, queueIds, range.start, range.end);
  for (const [id, rows] of byQueue)
    byQueue.set(
      id,
      rows.filter((r) => r.end <= range.end && ends.get(r.start) === r.end),
    );
  return byQueue;
}

/** The statistics of pieces of one queue: whole hours and edges, call figures and outbound figures. */
async function sumPieces(db: Db, scope: TenantScope, pieces: readonly Piece[]): Promise<Sums[]> {
  const sums = pieces.map(() => emptySums());
  const { hours, edges } = splitPieces(pieces);
  for (const row of [...(await hourStats(db, scope, hours)), ...(await edgeStats(db, scope, edges))]) addStats(sums[row.span] as Sums, row);
  for (const row of [...(await hourOutbound(db, scope, hours)), ...(await edgeOutbound(db, scope, edges))])
    addOutbound(sums[row.span] as Sums, row);
  return sums;
}

/**
 * The statistics of many short spans of queues (the interval distributions, R20: an hourly month, the hours of
 * the day over a year), per queue in the order of `spans`, which must not overlap: their whole hours from one
 * range read of the per-hour rows, the parts of hours at their edges from the stored rows.
 */
export async function spanSums(
  db: Db,
  scope: TenantScope,
  queues: readonly QueueRef[],
  spans: readonly { readonly from: number; readonly to: number }[],
): Promise<Map<number, Sums[]>> {
  const hourSpan = new Map<number, number>();
  const edges: { span: number; from: number; to: number }[] = [];
  const edge = (span: number, from: number, to: number) => {
    if (from < to) edges.push({ span, from, to });
  };
  let first = Infinity;
  let last = -Infinity;
  spans.forEach((s, i) => {
    const fromHour = Math.ceil(s.from / 3600);
    const toHour = Math.floor(s.to / 3600);
    if (fromHour >= toHour) return edge(i, s.from, s.to);
    for (let h = fromHour; h < toHour; h++) hourSpan.set(h, i);
    first = Math.min(first, fromHour);
    last = Math.max(last, toHour);
    edge(i, s.from, fromHour * 3600);
    edge(i, toHour * 3600, s.to);
  });
  const out = new Map(queues.map((q) => [q.id, spans.map(() => emptySums())]));
  const at = (queueId: number, hour: number) => {
    const i = hourSpan.get(hour);
    return i === undefined ? undefined : out.get(queueId)?.[i];
  };
  const { stats, outbound } = await hourRange(
    db,
    scope,
    queues.map((q) => q.id),
    first,
    last,
  );
  for (const r of stats) {
    const into = at(r.queue_id, r.hour);
    if (into) addStats(into, r);
  }
  for (const r of outbound) {
    const into = at(r.queue_id, r.hour);
    if (into) addOutbound(into, r);
  }
  const pieces = queues.flatMap((q) => edges.map((e) => ({ queueId: q.id, from: e.from, to: e.to, span: e.span })));
  (await sumPieces(db, scope, pieces)).forEach((s, k) => {
    const p = pieces[k] as (typeof pieces)[number];
    const into = out.get(p.queueId)?.[p.span] as Sums;
    addStats(into, s);
    addOutbound(into, { total: s.outboundTotal, answered: s.outbound, talk: s.outboundTalk });
  });
  return out;
}
