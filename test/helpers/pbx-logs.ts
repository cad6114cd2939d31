import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenDatabase, Sqlite } from '../../src/db/database';
import { Validator } from '../../src/validation/validation';
import { openDataDir } from '../../src/runtime';
import { copyRows } from '../../src/db/copy';
import { CdrImporter } from '../../src/modules/pbx-logs/cdr-importer';
import { importFile } from '../../src/modules/pbx-logs/file-import';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { startTestApp, type TestApp } from './app';
import { tokenFor } from './factories';
import { ACME, FIXTURES } from './fixtures';
import { rawSqlite } from './engine';

export { FIXTURES };
export const QUEUE_LOG_SAMPLE = join(FIXTURES, 'queue_log.sample');
export const CDR_SAMPLE = join(FIXTURES, 'Master.csv.sample');

/**
 * Seeds `fixture` and imports the logs with the importers the CLI uses; answers the queue_log import's summary.
 * On PostgreSQL, where the importer does not run yet (design step 6), both are done in a SQLite file beside it and
 * every row is copied over by `tars db copy`'s code (src/db/copy.ts): the same rows the import would have made.
 */
async function seedAndImport(app: TestApp, fixture: string, queueLog: string, cdr: string): Promise<Record<string, unknown>> {
  const { database, validator } = app.deps;
  if (database.engine === 'sqlite') {
    await seedFixture(database, validator, await readFixtureFile(fixture), new Date());
    const summary = await importFile(new QueueLogImporter(rawSqlite(database)), queueLog);
    await importFile(new CdrImporter(rawSqlite(database)), cdr);
    return summary.toJSON() as unknown as Record<string, unknown>;
  }
  const staging = mkdtempSync(join(tmpdir(), 'tars-pg-staging-'));
  const sqlite = await openDataDir(staging);
  try {
    await seedFixture(sqlite, validator, await readFixtureFile(fixture), new Date());
    const summary = await importFile(new QueueLogImporter(sqlite.sqlite), queueLog);
    await importFile(new CdrImporter(sqlite.sqlite), cdr);
    const copies = await copyRows(sqlite.db, database.db);
    const bad = copies.filter((c) => !c.ok).map((c) => c.table);
    if (bad.length > 0) throw new Error(`the copy into PostgreSQL differs in ${bad.join(', ')}`);
    return summary.toJSON() as unknown as Record<string, unknown>;
  } finally {
    await sqlite.close();
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Seeds acme.json and imports the two sample logs with the importers the CLI uses. */
export async function seedAcmeWithSampleLogs(app: TestApp): Promise<void> {
  await seedAndImport(app, ACME, QUEUE_LOG_SAMPLE, CDR_SAMPLE);
}

/** The recorded Asterisk 22 run (test/fixtures/asterisk): its fixture seeded, its queue_log and Master.csv imported. */
export const ASTERISK_RUN = join(FIXTURES, 'asterisk');

/** Seeds the recorded run's fixture and imports its two logs as the CLI would; answers the queue_log import's summary. */
export async function seedAsteriskRun(app: TestApp): Promise<Record<string, unknown>> {
  return seedAndImport(app, join(ASTERISK_RUN, 'fixture.json'), join(ASTERISK_RUN, 'queue_log'), join(ASTERISK_RUN, 'Master.csv'));
}

/** A test app on the recorded run, its clock the day after it (2026-11-24 12:00 UTC), and its user 1's token. */
export async function startAsteriskRunApp(): Promise<{ app: TestApp; token: string; summary: Record<string, unknown> }> {
  const app = await startTestApp({ clock: { now: () => Date.parse('2026-11-24T12:00:00Z') } });
  const summary = await seedAsteriskRun(app);
  return { app, token: await tokenFor(app, { id: 1 }), summary };
}

export interface ExpectedReport {
  file: string;
  request: { queueId: number | number[]; startDate: string; endDate: string; distribution?: string };
  response: unknown;
}

export function expectedReports(): ExpectedReport[] {
  const dir = join(FIXTURES, 'expected');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<ExpectedReport, 'file'>) }));
}

/**
 * Every stored and derived reporting row, in a canonical order and without what depends on import order
 * (seq, row ids, the numbers agents were interned as: peers are shown instead).
 */
export function dumpReporting(sqlite: Sqlite): Record<string, unknown[]> {
  const all = (q: string) => sqlite.prepare(q).raw().all();
  const peer = (column: string) => `(SELECT peer FROM agents WHERE id = ${column}) AS peer_${column.replace(/\W/g, '')}`;
  return {
    events: all(
      `SELECT queue_id, anchor, time, line_key, event, callid, ${peer('agent')}, wait_time, talk_time, ring_ms, pause_reason FROM queue_events ORDER BY time, line_key`,
    ),
    hourStats: all('SELECT * FROM queue_hour_stats ORDER BY queue_id, hour'),
    dayStats: all('SELECT * FROM queue_day_stats ORDER BY queue_id, day_start'),
    agentTalk: all(`SELECT queue_id, hour, ${peer('agent')}, talk FROM agent_talk_hour ORDER BY 1, 2, 3`),
    outbound: all('SELECT * FROM queue_outbound_hour ORDER BY queue_id, hour'),
    sessions: all(`SELECT queue_id, ${peer('agent')}, start_at, end_at FROM agent_sessions ORDER BY 1, 2, 3`),
    pauses: all(`SELECT queue_id, ${peer('agent')}, start_at, end_at, reason FROM agent_pauses ORDER BY 1, 2, 3`),
    calls: all(
      `SELECT tenant_id, start_at, line_key, direction, outbound_r9, queue_id, extension, ${peer('src_agent')}, ${peer('dst_agent')} FROM cdr_calls ORDER BY start_at, line_key`,
    ),
    pending: all('SELECT queue_id FROM queue_report_state WHERE rebuild_from IS NOT NULL OR outbound_from IS NOT NULL'),
  };
}

/** A migrated database seeded with acme.json, outside any app: for importer tests. */
export async function acmeDatabase(): Promise<{ database: OpenDatabase; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tars-import-'));
  const database = await openDataDir(dir);
  await seedFixture(database, new Validator(), await readFixtureFile(ACME), new Date());
  return {
    database,
    close: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const sampleLines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);
