import type { Selectable } from 'kysely';
import type { Db } from '../../db/database';
import type { ReportRunTable } from '../../db/schema';
import { windowed, type PageWindow } from '../../access/paging';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Period } from './periods';

export type ReportRun = Selectable<ReportRunTable>;

/** How long a claimed run may take before another process may take it over (it died). */
export const LEASE_MS = 10 * 60 * 1000;

/**
 * Records the scheduled runs that are due, once each: the unique index on (filter, period) turns a second
 * insert (a restart, another process) into a no-op.
 */
export async function enqueueScheduled(
  db: Db,
  filter: { id: number; tenant_id: number },
  periods: readonly Period[],
  now: number,
): Promise<void> {
  if (periods.length === 0) return;
  await db
    .insertInto('report_runs')
    .values(
      periods.map((p) => ({
        filter_id: filter.id,
        tenant_id: filter.tenant_id,
        kind: 'scheduled' as const,
        frequency: p.frequency,
        period_start: p.startDate,
        period_end: p.endDate,
        status: 'pending' as const,
        next_attempt_at: now,
        created_at: new Date(now).toISOString(),
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function insertManualRun(db: Db, filter: { id: number; tenant_id: number }, period: Period, now: number): Promise<ReportRun> {
  return db
    .insertInto('report_runs')
    .values({
      filter_id: filter.id,
      tenant_id: filter.tenant_id,
      kind: 'manual',
      frequency: period.frequency,
      period_start: period.startDate,
      period_end: period.endDate,
      status: 'running',
      attempts: 1,
      next_attempt_at: now,
      lease_until: now + LEASE_MS,
      started_at: new Date(now).toISOString(),
      created_at: new Date(now).toISOString(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Runs that may be attempted now: pending or retrying and due, or running with an expired lease. */
export async function dueRuns(db: Db, now: number): Promise<ReportRun[]> {
  return db
    .selectFrom('report_runs')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', ['pending', 'retry']), eb('next_attempt_at', '<=', now)]),
        eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
      ]),
    )
    .orderBy('next_attempt_at')
    .orderBy('id')
    .execute();
}

/**
 * Takes a run for this process: one conditional UPDATE, so when two processes see the same due run only
 * one of them gets it. Returns the run as claimed, or undefined when another process was first.
 */
export async function claimRun(db: Db, run: ReportRun, now: number): Promise<ReportRun | undefined> {
  const res = await db
    .updateTable('report_runs')
    .set({ status: 'running', attempts: run.attempts + 1, lease_until: now + LEASE_MS, started_at: new Date(now).toISOString() })
    .where('id', '=', run.id)
    .where('status', '=', run.status)
    .where('attempts', '=', run.attempts)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return undefined;
  return { ...run, status: 'running', attempts: run.attempts + 1, lease_until: now + LEASE_MS, started_at: new Date(now).toISOString() };
}

export async function finishRun(
  db: Db,
  runId: number,
  outcome: { status: 'sent' | 'retry' | 'failed' | 'cancelled'; rows?: number | null; error?: string | null; nextAttemptAt?: number },
  now: number,
): Promise<void> {
  await db
    .updateTable('report_runs')
    .set({
      status: outcome.status,
      rows: outcome.rows ?? null,
      error: outcome.error ?? null,
      lease_until: null,
      finished_at: new Date(now).toISOString(),
      ...(outcome.nextAttemptAt !== undefined ? { next_attempt_at: outcome.nextAttemptAt } : {}),
    })
    .where('id', '=', runId)
    .execute();
}

/**
 * Every live scheduled filter of every tenant: the scheduler is the system itself, not a caller, so this
 * one read is deliberately not tenant-scoped; each run then executes under its filter's owner.
 */
export async function scheduledFilters(db: Db) {
  return db
    .selectFrom('saved_filters')
    .select(['id', 'tenant_id', 'frequency', 'created_at'])
    .where('scheduled', '=', 1)
    .where('deleted_at', 'is', null)
    .where('frequency', 'is not', null)
    .orderBy('id')
    .execute();
}

/** A failed run sets the filter's error flag and sentence; a later success clears them. */
export async function setFilterError(db: Db, scope: TenantScope, id: number, description: string | null): Promise<void> {
  await db
    .updateTable('saved_filters')
    .set({ error: description === null ? 0 : 1, error_description: description })
    .where(tenantIn(scope))
    .where('id', '=', id)
    .execute();
}

export async function pageOfRuns(
  db: Db,
  scope: TenantScope,
  filterId: number,
  w: PageWindow,
): Promise<{ rows: ReportRun[]; total: number }> {
  const base = db.selectFrom('report_runs').where(tenantIn(scope)).where('filter_id', '=', filterId);
  const rows = await windowed(base.selectAll().orderBy('id', 'desc'), w).execute();
  const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** How many runs there are of each kind and status (the metrics' gauge). */
export async function reportRunCounts(db: Db): Promise<{ kind: string; status: string; n: number }[]> {
  return db
    .selectFrom('report_runs')
    .select((eb) => ['kind', 'status', eb.fn.countAll<number>().as('n')])
    .groupBy(['kind', 'status'])
    .execute();
}
