import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import type { Db } from '../../db/database';
import { resolveRange, type Distribution, type ReportRange } from '../../time/report-range';
import { reportRows, type ReportRow } from '../../time/report-rows';
import { isoInZone } from '../../time/zone';
import { getQueuesInScope, type QueueRow } from '../queues/queues.repository';
import { timezoneOfTenant } from '../tenants/tenants.repository';
import { readDates } from './queue-stats.service';

/**
 * What every supervisor report (reporting.md R19–R23) starts from: the request's queues (404 for one outside the
 * caller's scope, as the stats report), grouped by tenant, each tenant with its zone, its range [S, E) and the rows
 * of the distribution (R6, R7, R20).
 */
export interface ReportBody {
  queueId: number[];
  startDate: string;
  endDate: string;
  distribution?: Distribution;
}

export interface TenantFrame {
  readonly distribution: Distribution;
  readonly tenantId: number;
  readonly tz: string;
  readonly range: ReportRange;
  readonly rows: readonly ReportRow[];
  /** Each row's `start` (R20: ISO 8601 in the tenant's offset, null for hourOfDay and dayOfWeek), made once for all queues. */
  readonly starts: readonly (string | null)[];
  /** The tenant's queues of the request, by id. */
  readonly queues: readonly QueueRow[];
}

export async function reportFrames(db: Db, caller: Caller, body: ReportBody, distribution: Distribution): Promise<TenantFrame[]> {
  const { start, end } = readDates(body);
  const ids = [...new Set(body.queueId)].sort((a, b) => a - b);
  const queues = await getQueuesInScope(db, caller.scope, ids);
  const frames: TenantFrame[] = [];
  for (const tenantId of new Set(queues.map((q) => q.tenantId))) {
    const tz = await timezoneOfTenant(db, requireTenant(caller.scope, tenantId));
    const range = resolveRange(tz, start, end);
    const rows = reportRows(tz, range, distribution);
    frames.push({
      distribution,
      tenantId,
      tz,
      range,
      rows,
      starts: rows.map((r) => (r.start === null ? null : isoInZone(tz, r.start))),
      queues: queues.filter((q) => q.tenantId === tenantId),
    });
  }
  return frames;
}

/** A span of one queue, numbered in the order frameSpans lists them (the key of a report query's sums). */
export interface QueueSpan {
  readonly span: number;
  readonly queueId: number;
  readonly from: number;
  readonly to: number;
}

/** Every span of every row of every queue of a frame, queue by queue, row by row (the order addUpRows reads them in). */
export function frameSpans(frame: TenantFrame): QueueSpan[] {
  const out: QueueSpan[] = [];
  for (const q of frame.queues)
    for (const row of frame.rows) for (const s of row.spans) out.push({ span: out.length, queueId: q.id, from: s.from, to: s.to });
  return out;
}

/**
 * The rows of each queue of a frame from the sums of its spans (`sums[i]` those of span i, undefined when it had
 * nothing): each row's spans added up with `add` into `empty()`, then made into a row with `make`.
 */
export function addUpRows<S, R>(
  frame: TenantFrame,
  sums: readonly (S | undefined)[],
  empty: () => S,
  add: (into: S, part: S) => void,
  make: (queue: QueueRow, row: ReportRow, total: S, index: number) => R,
): R[] {
  const out: R[] = [];
  let k = 0;
  for (const q of frame.queues)
    frame.rows.forEach((row, index) => {
      const total = empty();
      for (let i = 0; i < row.spans.length; i++, k++) {
        const part = sums[k];
        if (part !== undefined) add(total, part);
      }
      out.push(make(q, row, total, index));
    });
  return out;
}

/** 100 × part / whole with one decimal, rounded half away from zero, in integers (no binary fraction to misround); null when whole ≤ 0. */
export function percent(part: number, whole: number): number | null {
  if (whole <= 0) return null;
  const q = 1000 * part;
  const r = q % whole;
  return ((q - r) / whole + (2 * r >= whole ? 1 : 0)) / 10;
}
