import type { Caller } from '../../access/caller';
import { pageOf, pageWindow } from '../../access/paging';
import { ALL_TENANTS, listScope, scopeOfStoredRow } from '../../access/scope';
import type { Clock } from '../../clock';
import type { AnyDatabase } from '../../db/engine';
import { AppError, conflict, forbidden, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { CdrImporter } from './cdr-importer';
import { importFile, type LineImporter } from './file-import';
import { ImportRefused, type ImportOptions } from './import-run';
import type { ImportSummaryJson } from './import-summary';
import { findImport, pageOfImports, type PbxImportRow } from './pbx-imports.repository';
import { QueueLogImporter } from './queue-log-importer';

/*
 * The record of PBX log imports (GET /v2/pbx/imports) and "Import again" (POST /v2/pbx/imports/{id}/again): the
 * console's recent imports, with their unknown names and what maps each (docs/console.md, "The PBX").
 */

export type ApiImport = SchemaTypes['pbx-import'];
export type ImportPage = SchemaTypes['pbx-import-page'];
type ListQuery = SchemaTypes['list-query'];

/** What these use: the database (the record through Kysely, an import again on the raw connection) and the clock. */
export interface PbxImportDeps {
  readonly database: AnyDatabase;
  readonly clock: Clock;
}

function toApi(row: PbxImportRow, earlier?: PbxImportRow): ApiImport {
  const summary = JSON.parse(row.summary) as ImportSummaryJson;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    source: row.source,
    kind: row.kind,
    path: row.path,
    againOf: row.again_of,
    startedAt: new Date(row.started_at).toISOString(),
    finishedAt: new Date(row.finished_at).toISOString(),
    summary,
    nowMapped: earlier ? nowMapped(JSON.parse(earlier.summary) as ImportSummaryJson, summary) : {},
  };
}

/** Names the earlier import did not know and the later one did, with the earlier's line counts. */
function nowMapped(before: ImportSummaryJson, after: ImportSummaryJson): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [names, now] of [
    [before.unknownAgents, after.unknownAgents],
    [before.unknownQueues, after.unknownQueues],
  ] as const)
    for (const [name, lines] of Object.entries(names)) if (!Object.hasOwn(now, name)) out[name] = lines;
  return out;
}

/**
 * A page of the imports the caller may see, newest first: a tenant's user sees the imports scoped to its tenant
 * (what it sent), never another tenant's nor the installation's (the CLI's, which name every tenant's queues and
 * agents); a platform admin sees them all.
 */
export async function listImports(deps: PbxImportDeps, caller: Caller, q: ListQuery): Promise<ImportPage> {
  const scope = listScope(caller.scope, q.tenantId);
  const { rows, total } = await pageOfImports(deps.database.db, scope, pageWindow(q));
  const records: ApiImport[] = [];
  for (const r of rows) records.push(toApi(r, r.again_of === null ? undefined : await findImport(deps.database.db, scope, r.again_of)));
  return pageOf(records, total, q);
}

/** One "Import again" at a time per database: it holds the connection while it reads the file. */
const running = new WeakSet<AnyDatabase>();

/**
 * Imports the file of a recorded import again, from the path recorded then (never one a request names), in the
 * same scope, zone and columns, and records it as a new import. Lines stored before are duplicates; lines of a
 * queue added since are stored now; agent names mapped since count for their agent (nowMapped). Platform admins
 * only: it reads a file of the server. Lines sent over HTTP have no file: 409.
 */
export async function importAgain(deps: PbxImportDeps, caller: Caller, id: number): Promise<ApiImport> {
  if (!caller.scope.all) throw forbidden('Only a platform admin may import a file of the server again');
  const { database, clock } = deps;
  const row = await findImport(database.db, ALL_TENANTS, id);
  if (!row) throw notFound('Import');
  if (row.path === null)
    throw conflict(`Import ${id} was of lines sent over HTTP: there is no file to read again. Send the lines again instead.`);
  if (running.has(database)) throw conflict('Another import is being read again: try again when it has finished');
  running.add(database);
  try {
    const opts: ImportOptions = {
      scope: row.tenant_id === null ? ALL_TENANTS : scopeOfStoredRow({ tenant_id: row.tenant_id }),
      timezone: row.timezone,
      cdrColumns: row.cdr_columns === null ? undefined : (JSON.parse(row.cdr_columns) as string[]),
      record: { source: 'again', kind: row.kind, path: row.path, againOf: row.id, now: () => clock.now() },
    };
    const path = row.path;
    const newId = await database.db.connection().execute(async () => {
      const importer: LineImporter & { recordId: number | undefined } =
        row.kind === 'queue_log' ? new QueueLogImporter(database, opts) : new CdrImporter(database, opts);
      try {
        await importFile(importer, path);
      } catch (err) {
        if (err instanceof ImportRefused) throw conflict(`${path}: ${err.message}`);
        const code = (err as NodeJS.ErrnoException).code;
        if (typeof code === 'string' && !(err instanceof AppError)) throw conflict(`${path} cannot be read now (${code})`);
        throw err;
      }
      return importer.recordId;
    });
    const made = newId === undefined ? undefined : await findImport(database.db, ALL_TENANTS, newId);
    if (!made) throw new Error(`import ${id} again: no record written`);
    return toApi(made, row);
  } finally {
    running.delete(database);
  }
}
