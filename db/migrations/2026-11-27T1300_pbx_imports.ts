import { sql, type Kysely } from 'kysely';

/**
 * The record of PBX log imports (issue 31, the console's "Recent imports"): one row per import, whichever way it
 * came (`tars import` of a file, `--follow`, the HTTP ingest routes, the console's "Import again"), written by the
 * import itself when it finishes (a followed file's row is brought up to date after every batch).
 *
 * `tenant_id` is the tenant the import was scoped to when it was one (an ingest by a tenant's user), else NULL: the
 * whole installation (the CLI), seen by platform admins only. `path` is the file read on the server (NULL for lines
 * sent over HTTP): "Import again" reads that path and no other. `summary` is the import's summary as the ingest
 * routes answer it (JSON: lines read, imported, duplicates, skipped by reason, unknown names and their mapping).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE pbx_imports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id INTEGER REFERENCES tenants(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    path TEXT,
    timezone TEXT NOT NULL,
    cdr_columns TEXT,
    again_of INTEGER REFERENCES pbx_imports(id) ON DELETE SET NULL,
    started_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    summary TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX pbx_imports_tenant ON pbx_imports (tenant_id, id)`.execute(db);
}
