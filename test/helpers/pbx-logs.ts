import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CdrImporter } from '../../src/modules/pbx-logs/cdr-importer';
import { importFile } from '../../src/modules/pbx-logs/file-import';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import type { TestApp } from './app';

/** The shared fixtures beside the checkout (shared/fixtures/README.md). */
export const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
export const QUEUE_LOG_SAMPLE = join(FIXTURES, 'queue_log.sample');
export const CDR_SAMPLE = join(FIXTURES, 'Master.csv.sample');

/** Seeds acme.json and imports the two sample logs with the importers the CLI uses. */
export async function seedAcmeWithSampleLogs(app: TestApp): Promise<void> {
  const { database, validator } = app.deps;
  await seedFixture(database, validator, await readFixtureFile(join(FIXTURES, 'acme.json')), new Date());
  await importFile(new QueueLogImporter(database.sqlite), QUEUE_LOG_SAMPLE);
  await importFile(new CdrImporter(database.sqlite), CDR_SAMPLE);
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
