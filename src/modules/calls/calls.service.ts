import type { Db } from '../../db/database';
import type { Caller } from '../../access/caller';
import { listScope, scopeIds, type TenantScope } from '../../access/scope';
import { instantOf, parseReportDate, resolveRange, type ReportDate } from '../../time/report-range';
import { tenantTimezones } from '../tenants/tenants.repository';
import { toCallRecord, type CallRecord, type CallsFilters, type CallsPage } from './calls';

export { toCallRecord, type CallRecord, type CallsFilters } from './calls';
/** The calls report as a workbook (the scheduled reports attach it): calls-sheet.ts. */
export { callsWorkbook } from './calls-sheet';
import { callsBefore, countCalls, listCalls, type CallsWhere } from './calls.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface CallsDeps {
  readonly db: Db;
}

/**
 * The calls report (decisions.md §6b): the imported CDR rows of the tenants the caller may see (or the one
 * it names: 403 when it may not act in it), newest first, paged as in §5b. Dates are read in each tenant's
 * own timezone. GET and POST /v2/reporting/calls call this, and so do saved filters of module `calls`.
 */
export async function callsReport(deps: CallsDeps, caller: Caller, filters: CallsFilters): Promise<CallsPage> {
  const { db } = deps;
  const where = await callsWhere(db, caller, filters);
  const all = filters.paginated === 0;
  const perPage = filters.recordsPerPage ?? 50;
  const page = all ? 1 : (filters.page ?? 1);
  const total = await countCalls(db, where);
  const rows = await listCalls(db, where, (page - 1) * perPage, all ? null : perPage);
  return { records: rows.map(toCallRecord), page, maxPage: all ? 1 : Math.max(1, Math.ceil(total / perPage)), total };
}

/** Records read a batch at a time for an export. */
const EXPORT_BATCH = 2000;

/**
 * Every record of the filters (all pages: an export, reporting.md R24), newest first, a batch at a time with the
 * timezone of each record's tenant (a spreadsheet shows its times in that zone).
 */
export async function callRecordBatches(deps: CallsDeps, caller: Caller, filters: CallsFilters) {
  const { db } = deps;
  const where = await callsWhere(db, caller, filters);
  const zones = await tenantTimezones(db, where.scope);
  async function* batches(): AsyncGenerator<{ record: CallRecord; timezone: string }[]> {
    let before: { start: number; id: number } | null = null;
    for (;;) {
      const rows = await callsBefore(db, where, before, EXPORT_BATCH);
      if (rows.length === 0) return;
      yield rows.map((r) => ({ record: toCallRecord(r), timezone: zones.get(r.tenant_id) ?? 'UTC' }));
      const last = rows[rows.length - 1] as (typeof rows)[number];
      before = { start: last.start_at, id: last.id };
    }
  }
  return batches();
}

async function callsWhere(db: Db, caller: Caller, filters: CallsFilters): Promise<CallsWhere> {
  const scope = listScope(caller.scope, filters.tenantId);
  const start = filters.startDate === undefined ? undefined : parseReportDate('startDate', filters.startDate);
  const end = filters.endDate === undefined ? undefined : parseReportDate('endDate', filters.endDate);
  const tenantIds = scopeIds(scope);
  const digits = filters.number?.replace(/\D+/g, '');
  return {
    scope,
    tenants: start || end ? await rangesByTimezone(db, scope, start, end) : [{ tenantIds }],
    direction: filters.direction,
    disposition: filters.disposition,
    extension: filters.extension,
    digits: digits || undefined,
    queueId: filters.queueId,
  };
}

/** One start-time range per timezone among the tenants (400 for a reversed or over-long range). */
async function rangesByTimezone(db: Db, scope: TenantScope, start?: ReportDate, end?: ReportDate): Promise<CallsWhere['tenants']> {
  const byZone = new Map<string, number[]>();
  for (const [tenantId, tz] of await tenantTimezones(db, scope)) byZone.set(tz, [...(byZone.get(tz) ?? []), tenantId]);
  if (byZone.size === 0) return [{ tenantIds: [] }];
  return [...byZone].map(([tz, ids]) => {
    if (start && end) {
      const range = resolveRange(tz, start, end);
      return { tenantIds: ids, from: range.start, to: range.end };
    }
    return { tenantIds: ids, from: start && instantOf(tz, start, false), to: end && instantOf(tz, end, true) };
  });
}
