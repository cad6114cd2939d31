import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrations } from '../../db/migrations/index';
import { openDatabase, type OpenDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { CdrImporter } from '../../src/modules/pbx-logs/cdr-importer';
import { importFile } from '../../src/modules/pbx-logs/file-import';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { Validator } from '../../src/validation/validation';
import { fillEveryKind, tables } from '../helpers/every-kind';
import { ACME } from '../helpers/fixtures';
import { CDR_SAMPLE, QUEUE_LOG_SAMPLE } from '../helpers/pbx-logs';

const CASCADE_MIGRATION = '2026-11-27T1400_cascade_deletes';

describe('the ON DELETE CASCADE migration (issue 32) on a database with rows', () => {
  let dir: string;
  let handle: OpenDatabase;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-cascade-'));
    handle = openDatabase(join(dir, 'tars.sqlite'));
  });
  after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a database of the version before, with rows of every kind, is migrated, then every row, id counter and index stays and deletes cascade', async () => {
    const s = handle.sqlite;
    const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < CASCADE_MIGRATION));
    await migrateToLatest(handle, earlier);
    await seedFixture(handle, new Validator(), await readFixtureFile(ACME), new Date());
    await importFile(new QueueLogImporter(s), QUEUE_LOG_SAMPLE);
    await importFile(new CdrImporter(s), CDR_SAMPLE);
    for (const tenant of [1, 2]) fillEveryKind(s, tenant);
    fillEveryKind(s, 3);
    // The newest rows of some AUTOINCREMENT tables deleted: their counters are above max(id) and must stay so.
    s.exec(`DELETE FROM campaign_destinations WHERE campaign_id = (SELECT max(id) FROM call_campaigns);
      DELETE FROM campaign_numbers WHERE campaign_id = (SELECT max(id) FROM call_campaigns);
      DELETE FROM call_campaigns WHERE id = (SELECT max(id) FROM call_campaigns);
      DELETE FROM report_runs; DELETE FROM webhook_attempts;
      DELETE FROM webhook_deliveries WHERE id = (SELECT max(id) FROM webhook_deliveries)`);

    const counts = () => Object.fromEntries(tables(s).map((t) => [t, s.prepare(`SELECT count(*) FROM "${t}"`).pluck().get()]));
    const sequences = () => s.prepare('SELECT name, seq FROM sqlite_sequence ORDER BY name').all();
    const indexes = () => s.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all();
    const rows = () =>
      Object.fromEntries(
        ['users', 'queues', 'report_runs', 'webhook_deliveries'].map((t) => [t, s.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()]),
      );
    const countsBefore = counts();
    const sequencesBefore = sequences();
    const indexesBefore = indexes();
    const rowsBefore = rows();
    expect(countsBefore.report_runs).to.equal(0);
    expect(s.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'report_runs'").pluck().get()).to.equal(3); // all deleted

    // Up to the cascade migration (a later one is tested on its own).
    const upToCascade = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= CASCADE_MIGRATION));
    expect(await migrateToLatest(handle, upToCascade)).to.deep.equal([CASCADE_MIGRATION]);

    expect({ ...counts(), schema_migrations: countsBefore.schema_migrations }).to.deep.equal(countsBefore);
    expect(sequences()).to.deep.equal(sequencesBefore);
    expect(indexes()).to.deep.equal(indexesBefore);
    expect(rows()).to.deep.equal(rowsBefore);
    expect(s.pragma('foreign_key_check')).to.deep.equal([]);
    expect(s.pragma('integrity_check', { simple: true })).to.equal('ok');

    const onDelete = (table: string) =>
      Object.fromEntries(
        (s.pragma(`foreign_key_list(${table})`) as { from: string; on_delete: string }[]).map((f) => [f.from, f.on_delete]),
      );
    expect(onDelete('users')).to.deep.equal({ tenant_id: 'CASCADE', branch_id: 'NO ACTION' });
    expect(onDelete('phone_numbers')).to.deep.equal({ tenant_id: 'CASCADE', branch_id: 'NO ACTION', sms_ext_id: 'NO ACTION' });
    expect(onDelete('saved_filters')).to.deep.equal({ tenant_id: 'CASCADE', user_id: 'NO ACTION' });
    expect(onDelete('report_runs')).to.deep.equal({ tenant_id: 'CASCADE', filter_id: 'CASCADE' });
    // Every reference to tenants cascades now; the bulk tables have no foreign key (triggers instead).
    for (const table of tables(s)) {
      const toTenants = (s.pragma(`foreign_key_list(${table})`) as { table: string; on_delete: string }[]).filter(
        (f) => f.table === 'tenants',
      );
      for (const fk of toTenants) expect(fk.on_delete, table).to.equal('CASCADE');
    }
    for (const table of ['queue_events', 'queue_hour_stats', 'agent_sessions', 'cdr_calls', 'pbx_starts'])
      expect(s.pragma(`foreign_key_list(${table})`), table).to.deep.equal([]);

    // A new row never gets a deleted one's id.
    const next = s
      .prepare("INSERT INTO call_campaigns (tenant_id, name, type) VALUES (1, 'After', 'SCHEDULED') RETURNING id")
      .pluck()
      .get();
    expect(next).to.equal((sequencesBefore as { name: string; seq: number }[]).find((r) => r.name === 'call_campaigns')!.seq + 1);
  });

  it('when the stored CREATE TABLE is not as the migrations made it, then the migration throws and the file is as it was', async () => {
    const other = openDatabase(join(dir, 'changed.sqlite'));
    try {
      const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < CASCADE_MIGRATION));
      await migrateToLatest(other, earlier);
      // A webhooks table whose tenant reference is written otherwise (as a hand-made change would leave it).
      other.sqlite.exec(`PRAGMA foreign_keys = OFF; ALTER TABLE webhooks RENAME TO webhooks_old;
        CREATE TABLE "webhooks" ("id" integer primary key autoincrement, tenant_id INTEGER NOT NULL REFERENCES tenants(id), "type" text not null);
        DROP TABLE webhooks_old; PRAGMA foreign_keys = ON;`);
      const schema = () => other.sqlite.prepare('SELECT sql FROM sqlite_master ORDER BY name').pluck().all();
      const before = schema();
      let error: unknown;
      await migrateToLatest(other).catch((err: unknown) => (error = err));
      expect(String(error)).to.match(/migration 2026-11-27T1400_cascade_deletes failed: table webhooks is not as its migrations made it/);
      expect(schema()).to.deep.equal(before);
    } finally {
      await other.close();
    }
  });
});
