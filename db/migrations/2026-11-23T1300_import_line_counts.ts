import { sql, type Kysely } from 'kysely';

/**
 * Lines of every PBX-log import, by log kind, outcome and skip reason, for `GET /metrics`
 * (`tars_import_lines`). Each import chunk adds its counts in its own write transaction, so whatever
 * process imported (a `tars import` run, --follow, the HTTP ingest route) is counted once, and a chunk that
 * rolled back is not counted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE import_line_counts (
    kind TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('imported', 'duplicate', 'skipped')),
    reason TEXT NOT NULL DEFAULT '',
    lines INTEGER NOT NULL,
    PRIMARY KEY (kind, outcome, reason)
  ) WITHOUT ROWID`.execute(db);
}
