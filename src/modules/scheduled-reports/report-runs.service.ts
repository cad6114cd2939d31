import { badRequest, notFound } from '../../errors';
import type { ResponseBody } from '../../http/route';
import type { Caller } from '../../access/caller';
import { scopeOfStoredRow } from '../../access/scope';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { findSavedFilter } from '../saved-filters/saved-filters.repository';
import { timezoneOfTenant } from '../tenants/tenants.repository';
import { lastEndedPeriod, periodContaining, type Frequency } from './periods';
import { insertManualRun, pageOfRuns, type ReportRun } from './report-runs.repository';
import { dayOf, ReportScheduler } from './scheduler';
import type { FilterRow, ReportDeps } from './run-filter';

export type { ReportDeps };

/** A run of a saved filter's report, as the API shows it. */
export type ApiReportRun = ResponseBody<'report-run'>;

export function toApiRun(r: ReportRun): ApiReportRun {
  return {
    id: r.id,
    filterId: r.filter_id,
    kind: r.kind,
    frequency: r.frequency,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    status: r.status,
    attempts: r.attempts,
    rows: r.rows,
    error: r.error,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    nextAttemptAt: r.status === 'pending' || r.status === 'retry' ? new Date(r.next_attempt_at).toISOString() : null,
  };
}

/**
 * Runs a filter's report now and e-mails it, like the scheduled run does: the period of the filter's
 * frequency (daily when it has none) that contains `forDate`, or else the period that just ended. The run is
 * recorded whatever its outcome; a failure also sets the filter's error.
 */
export async function runFilterNow(deps: ReportDeps, filter: FilterRow, forDate: string | undefined): Promise<ReportRun> {
  const { db } = deps.database;
  const tz = await timezoneOfTenant(db, scopeOfStoredRow(filter));
  const frequency = (filter.frequency ?? 'daily') as Frequency;
  let period = lastEndedPeriod(frequency, deps.clock.now(), tz);
  if (forDate !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(forDate)) throw badRequest(`for must be a date such as 2026-11-21, got "${forDate}"`);
    period = periodContaining(frequency, dayOf(forDate), tz);
  }
  const run = await insertManualRun(db, filter, period, deps.clock.now());
  return new ReportScheduler(deps).execute(run);
}

async function visibleFilter(deps: ReportDeps, caller: Caller, id: number): Promise<FilterRow> {
  const filter = await findSavedFilter(deps.database.db, caller.scope, id);
  if (!filter) throw notFound(`Saved filter ${id}`);
  return filter;
}

export async function runNow(deps: ReportDeps, caller: Caller, id: number, forDate: string | undefined): Promise<ApiReportRun> {
  return toApiRun(await runFilterNow(deps, await visibleFilter(deps, caller, id), forDate));
}

export async function filterRuns(deps: ReportDeps, caller: Caller, id: number, q: PageQuery): Promise<Page<ApiReportRun>> {
  await visibleFilter(deps, caller, id); // 404 for a filter the caller cannot see, rather than an empty page
  const { rows, total } = await pageOfRuns(deps.database.db, caller.scope, id, pageWindow(q));
  return pageOf(rows.map(toApiRun), total, q);
}
