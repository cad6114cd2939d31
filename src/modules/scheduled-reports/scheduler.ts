import { transaction } from '../../db/database';
import { sqliteOf } from '../../db/engine';
import { scopeOfStoredRow } from '../../access/scope';
import { findSavedFilter } from '../saved-filters/saved-filters.repository';
import { timezoneOfTenant } from '../tenants/tenants.repository';
import { OPERATOR } from '../../access/caller';
import { raiseEvent } from '../webhooks/events.service';
import { parseReportDate } from '../../time/report-range';
import { periodContaining, periodsDueBetween, type Frequency, type Period } from './periods';
import { claimRun, dueRuns, enqueueScheduled, finishRun, scheduledFilters, setFilterError, type ReportRun } from './report-runs.repository';
import { ReportError, sendFilterReport, type FilterRow, type ReportDeps } from './run-filter';

/** Waits before the 2nd, 3rd … attempt of a failed run. */
const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 4 * 60 * 60_000];

/**
 * Keeps the promise of a scheduled filter: every period's report goes out once, at the configured local
 * hour after the period ends; periods that fell due while the server was down go out when it is back
 * (within the catch-up window); failures are retried with backoff and shown on the filter.
 */
export class ReportScheduler {
  constructor(private readonly deps: ReportDeps) {}

  /** One tick of the job: record the periods that fell due, then attempt every run that is due. */
  async tick(): Promise<void> {
    const { db } = this.deps.database;
    await this.enqueueDue();
    for (const run of await dueRuns(db, this.deps.clock.now())) {
      const claimed = await claimRun(db, run, this.deps.clock.now());
      if (claimed) await this.execute(claimed);
    }
  }

  private async enqueueDue(): Promise<void> {
    const { db } = this.deps.database;
    const { config, clock } = this.deps;
    const now = clock.now();
    for (const f of await scheduledFilters(db)) {
      const tz = await timezoneOfTenant(db, scopeOfStoredRow(f));
      // Nothing from before the filter existed, nothing older than the catch-up window.
      const from = Math.max(Date.parse(f.created_at), now - config.reportCatchUpDays * 86_400_000);
      await enqueueScheduled(db, f, periodsDueBetween(f.frequency as Frequency, from, now, config.reportHour, tz), now);
    }
  }

  /** Runs one claimed run to its outcome and records it; returns the run as it ended. */
  async execute(run: ReportRun): Promise<ReportRun> {
    const { db } = this.deps.database;
    // The run's own tenant, from its row: a filter of another tenant with the same id is not this run's.
    const scope = scopeOfStoredRow(run);
    const filter = await findSavedFilter(db, scope, run.filter_id);
    if (!filter || (run.kind === 'scheduled' && (filter.scheduled !== 1 || filter.frequency !== run.frequency))) {
      await finishRun(db, run.id, { status: 'cancelled', error: 'the filter was deleted or its schedule changed' }, this.deps.clock.now());
      return { ...run, status: 'cancelled' };
    }
    const period = periodContaining(run.frequency as Frequency, dayOf(run.period_start), await timezoneOfTenant(db, scope));
    try {
      const rows = await sendFilterReport(this.deps, filter, period);
      return await this.record(run, filter, period, { status: 'sent', rows });
    } catch (err) {
      const message =
        err instanceof ReportError ? err.message : 'The report could not be made because of an internal error (see the server log)';
      if (!(err instanceof ReportError)) this.deps.log.error({ err, runId: run.id, filterId: filter.id }, 'report run failed');
      const final = run.kind === 'manual' || run.attempts >= this.deps.config.reportAttempts;
      return this.record(run, filter, period, final ? { status: 'failed', error: message } : { status: 'retry', error: message });
    }
  }

  /**
   * The outcome, the filter's error fields and the webhook event (REPORTSENT, or REPORTFAILED once a run
   * is given up) are written in one transaction.
   */
  private async record(
    run: ReportRun,
    filter: FilterRow,
    period: Period,
    outcome: { status: 'sent' | 'retry' | 'failed'; rows?: number; error?: string },
  ): Promise<ReportRun> {
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    const next = outcome.status === 'retry' ? now + (RETRY_DELAYS_MS[run.attempts - 1] ?? (RETRY_DELAYS_MS.at(-1) as number)) : undefined;
    await transaction(db, async (trx) => {
      await finishRun(
        trx,
        run.id,
        { status: outcome.status, rows: outcome.rows ?? null, error: outcome.error ?? null, ...(next ? { nextAttemptAt: next } : {}) },
        now,
      );
      await setFilterError(trx, scopeOfStoredRow(filter), filter.id, outcome.status === 'sent' ? null : (outcome.error ?? null));
      if (outcome.status !== 'retry') {
        const data = {
          filterId: filter.id,
          name: filter.name,
          runId: run.id,
          frequency: period.frequency,
          periodStart: period.startDate,
          periodEnd: period.endDate,
          ...(outcome.status === 'sent' ? { rows: outcome.rows ?? 0 } : { error: outcome.error ?? '', attempts: run.attempts }),
        };
        raiseEvent(
          { sqlite: sqliteOf(this.deps.database, 'The webhook events of scheduled reports'), clock: { now: () => now } },
          OPERATOR,
          {
            tenantId: filter.tenant_id,
            type: outcome.status === 'sent' ? 'REPORTSENT' : 'REPORTFAILED',
            occurredAt: new Date(now).toISOString(),
            data,
          },
        );
      }
    });
    return {
      ...run,
      status: outcome.status,
      rows: outcome.rows ?? null,
      error: outcome.error ?? null,
      next_attempt_at: next ?? run.next_attempt_at,
      finished_at: new Date(now).toISOString(),
    };
  }
}

/** The day number of a YYYY-MM-DD date. */
export function dayOf(date: string): number {
  const d = parseReportDate('date', date);
  if (d.kind !== 'date') throw new Error(`${date} is not a date`);
  return d.day;
}
