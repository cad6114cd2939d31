import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import { windowed, type PageWindow } from '../../access/paging';
import type { Db, Sqlite } from '../../db/database';
import type { PbxImportTable } from '../../db/schema-reporting';
import { preparedStatements, statement } from '../../db/statements';

/*
 * The record of imports (db/migrations/2026-11-27T1300_pbx_imports.ts): written by ImportRun on the raw
 * connection the import writes through (a statement each time an import finishes a batch), read by the API
 * through Kysely, always within the caller's tenant scope.
 */

export type ImportSource = PbxImportTable['source'];
export type ImportKind = PbxImportTable['kind'];

/** A recorded import as stored. */
export interface PbxImportRow {
  readonly id: number;
  readonly tenant_id: number | null;
  readonly source: ImportSource;
  readonly kind: ImportKind;
  readonly path: string | null;
  readonly timezone: string;
  readonly cdr_columns: string | null;
  readonly again_of: number | null;
  readonly started_at: number;
  readonly finished_at: number;
  readonly summary: string;
}

export interface NewPbxImport {
  tenantId: number | null;
  source: ImportSource;
  kind: ImportKind;
  path: string | null;
  timezone: string;
  cdrColumns: string | null;
  againOf: number | null;
  startedAt: number;
  finishedAt: number;
  summary: string;
}

const statementsOf = preparedStatements({
  insert: statement<NewPbxImport, never>(
    `INSERT INTO pbx_imports (tenant_id, source, kind, path, timezone, cdr_columns, again_of, started_at, finished_at, summary)
     VALUES (@tenantId, @source, @kind, @path, @timezone, @cdrColumns, @againOf, @startedAt, @finishedAt, @summary)`,
  ),
  // The index pbx_imports_tenant (tenant_id, id) finds the oldest rows of the scope beyond the newest `keep`.
  prune: statement<{ tenantId: number | null; keep: number }, never>(
    `DELETE FROM pbx_imports WHERE tenant_id IS @tenantId AND id <= (
       SELECT id FROM pbx_imports WHERE tenant_id IS @tenantId ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
  ),
  update: statement<{ id: number; finishedAt: number; summary: string }, never>(
    'UPDATE pbx_imports SET finished_at = @finishedAt, summary = @summary WHERE id = @id',
  ),
});

/**
 * The records kept per tenant (and for the whole installation): the newest. Lines sent over HTTP by a script, one
 * request a second, would otherwise add 86,400 rows a day; a thousand imports is weeks of files.
 */
export const IMPORTS_KEPT = 1000;

/** Records an import, and forgets the oldest of its tenant beyond `keep`; answers its id. */
export function recordImport(sqlite: Sqlite, row: NewPbxImport, keep = IMPORTS_KEPT): number {
  const s = statementsOf(sqlite);
  const id = Number(s.insert.run(row).lastInsertRowid);
  s.prune.run({ tenantId: row.tenantId, keep });
  return id;
}

/** Brings an import's record up to date (a followed file, after each batch). */
export function updateImportRecord(sqlite: Sqlite, id: number, finishedAt: number, summary: string): void {
  statementsOf(sqlite).update.run({ id, finishedAt, summary });
}

/** A page of the imports of a scope, newest first. Imports of the whole installation (tenant_id NULL) only for every tenant's scope. */
export async function pageOfImports(db: Db, scope: TenantScope, w: PageWindow): Promise<{ rows: PbxImportRow[]; total: number }> {
  const base = db.selectFrom('pbx_imports').where(tenantIn(scope));
  const rows = await windowed(base.selectAll().orderBy('id', 'desc'), w).execute();
  const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** One import of a scope, or undefined. */
export async function findImport(db: Db, scope: TenantScope, id: number): Promise<PbxImportRow | undefined> {
  return db.selectFrom('pbx_imports').selectAll().where(tenantIn(scope)).where('id', '=', id).executeTakeFirst();
}
