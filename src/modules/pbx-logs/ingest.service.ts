import type { AnyDatabase } from '../../db/engine';
import type { Caller } from '../../access/caller';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { SchemaTypes } from '../../validation/schema-types';
import { CdrImporter } from './cdr-importer';
import type { ImportSummaryJson } from './import-summary';
import { pbxEventHook } from './pbx-events';
import { QueueLogImporter } from './queue-log-importer';

/** Its `timezone` is the PBX's zone (reporting.md R16), checked by the schema. */
export type IngestBody = SchemaTypes['ingest-lines'];

/** What this service uses (docs/architecture.md, "The service shape"): the raw connection the importers write through. */
export interface IngestDeps {
  readonly database: AnyDatabase;
  readonly clock: Clock;
  readonly config: Pick<Config, 'pbxTimezone'>;
}

/**
 * POST /v2/reporting/ingest/queue-log and /cdr: the lines of one request are imported like a small file
 * (one transaction, then derived data brought up to date; a Master.csv header row names the columns of the
 * request's lines, and lines none of which can be read are refused with 400, nothing stored). Tenant scope:
 * only the queues and extensions of tenants the caller may act in exist for it; a line naming anything else
 * is skipped like an unknown queue, so the summary reveals nothing about other tenants. Lines sent here
 * arrive live: they fire webhook events (STARTCALL, ENDCALL, …) in the same transaction.
 */
export async function ingestLines(
  deps: IngestDeps,
  caller: Caller,
  kind: 'queue-log' | 'cdr',
  body: IngestBody,
): Promise<ImportSummaryJson> {
  const { database, clock } = deps;
  // The importer writes through the raw connection: holding Kysely's connection keeps every other
  // query of this process (and its transactions) out of the way meanwhile.
  return database.db.connection().execute(async () => {
    const opts = {
      scope: caller.scope,
      onChunk: pbxEventHook(() => clock.now(), true).onChunk,
      timezone: body.timezone ?? deps.config.pbxTimezone,
      record: { source: 'ingest', kind: kind === 'queue-log' ? 'queue_log' : 'cdr', now: () => clock.now() },
    } as const;
    const importer = kind === 'queue-log' ? new QueueLogImporter(database, opts) : new CdrImporter(database, opts);
    await importer.importLines(body.lines);
    return (await importer.finish()).toJSON();
  });
}
