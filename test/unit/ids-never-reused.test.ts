import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { migrations } from '../../db/migrations/index';
import { openDatabase, type OpenDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';

describe('migration 2026-11-22T1800_ids_never_reused', () => {
  let dir: string;
  let database: OpenDatabase;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-migration-'));
    database = openDatabase(join(dir, 'tars.db'));
    // A database of the first schema, with data, as an earlier install left it.
    const initial = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations }, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock' });
    expect((await initial.migrateTo('2026-11-22T1700_webhook_deliveries')).error).to.equal(undefined);
    database.sqlite.exec(`
      INSERT INTO tenants (id, name) VALUES (1, 'Acme');
      INSERT INTO call_campaigns (id, tenant_id, name, type) VALUES (1, 1, 'First', 'SCHEDULED'), (2, 1, 'Second', 'SCHEDULED');
      INSERT INTO campaign_numbers (campaign_id, position, number) VALUES (2, 0, '+15550100');
      INSERT INTO emergency_locations (id, tenant_id, name, city, state, street_num, postal_code, street_info) VALUES (3, 1, 'HQ', 'C', 'IL', '1', '60606', 'Main');
      INSERT INTO notification_groups (id, location_id, position, name, number, email, peer_name) VALUES (5, 3, 0, 'Desk', '1', 'd@x.test', 'PJSIP/1');
      INSERT INTO webhooks (id, tenant_id, type, url, secret, created_at) VALUES (7, 1, 'ENDCALL', 'https://x.test', 'whsec_x', '2026-01-01T00:00:00.000Z');
      INSERT INTO webhook_deliveries (id, webhook_id, tenant_id, message_id, event_type, payload, status, next_attempt_at, created_at)
        VALUES (1, 7, 1, 'msg_1', 'ENDCALL', '{}', 'retry', 0, 'now');
      INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms) VALUES (1, 1, 'now', 5);`);
    await migrateToLatest(database);
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = (table: string) => (database.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

  it('when an existing database is upgraded, then every row and every child row, down to webhook attempts, is kept', () => {
    const tables = ['call_campaigns', 'campaign_numbers', 'emergency_locations', 'notification_groups', 'webhooks', 'webhook_deliveries', 'webhook_attempts'];
    expect(tables.map(count)).to.deep.equal([2, 1, 1, 1, 1, 1, 1]);
  });

  it('when a webhook is deleted, then its deliveries and their attempts go with it (the foreign keys survived)', () => {
    database.sqlite.exec('DELETE FROM webhooks WHERE id = 7');
    expect([count('webhook_deliveries'), count('webhook_attempts')]).to.deep.equal([0, 0]);
  });

  it('when the newest record is deleted, then a new record gets a new id, never the deleted one', () => {
    const s = database.sqlite;
    s.exec('DELETE FROM notification_groups WHERE id = 5; DELETE FROM call_campaigns WHERE id = 2');
    const webhook = s.prepare("INSERT INTO webhooks (tenant_id, type, url, secret, created_at) VALUES (1, 'ENDCALL', 'https://y.test', 'whsec_y', 'now') RETURNING id").get() as { id: number };
    const group = s.prepare("INSERT INTO notification_groups (location_id, position, name, number, email, peer_name) VALUES (3, 0, 'N', '1', 'e', 'p') RETURNING id").get() as { id: number };
    const campaign = s.prepare("INSERT INTO call_campaigns (tenant_id, name, type) VALUES (1, 'Third', 'SCHEDULED') RETURNING id").get() as { id: number };
    expect([webhook.id, group.id, campaign.id]).to.deep.equal([8, 6, 3]);
  });

  it('when a campaign or a location is deleted, then its child rows still go with it (the foreign keys survived)', () => {
    const s = database.sqlite;
    s.exec("INSERT INTO campaign_numbers (campaign_id, position, number) VALUES (1, 0, '+15550101')");
    s.exec('DELETE FROM call_campaigns WHERE id = 1; DELETE FROM emergency_locations WHERE id = 3');
    expect(s.prepare('SELECT count(*) AS n FROM campaign_numbers').get()).to.deep.equal({ n: 0 });
    expect(s.prepare('SELECT count(*) AS n FROM notification_groups').get()).to.deep.equal({ n: 0 });
    expect(s.prepare('PRAGMA foreign_key_check').all()).to.deep.equal([]);
  });
});
