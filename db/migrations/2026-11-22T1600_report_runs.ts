import { sql, type Kysely } from 'kysely';

/**
 * Every run of a saved filter's report (issue: scheduled filter reports). A scheduled period is claimed by
 * inserting its row: the unique index makes a period impossible to send twice, across restarts and across
 * two processes sharing the data directory. Manual runs ("run now") are recorded too but not unique.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('report_runs')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('filter_id', 'integer', (c) => c.notNull().references('saved_filters.id'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('scheduled', 'manual')`))
    .addColumn('frequency', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    // pending → running → sent | retry → running … → failed; cancelled when the filter went away meanwhile.
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('pending', 'running', 'sent', 'retry', 'failed', 'cancelled')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'integer', (c) => c.notNull())
    .addColumn('lease_until', 'integer')
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('rows', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX report_runs_scheduled_period ON report_runs (filter_id, frequency, period_start) WHERE kind = 'scheduled'`.execute(
    db,
  );
  await db.schema.createIndex('report_runs_due').on('report_runs').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('report_runs_filter').on('report_runs').columns(['filter_id', 'id']).execute();
}
