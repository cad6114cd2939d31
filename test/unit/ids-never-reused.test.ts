import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenDatabase } from '../../src/db/database';
import { openDataDir } from '../../src/runtime';

describe('ids of deletable records', () => {
  let dir: string;
  let database: OpenDatabase;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-ids-'));
    database = await openDataDir(dir);
    database.sqlite.exec(`
      INSERT INTO tenants (id, name) VALUES (1, 'Acme');
      INSERT INTO call_campaigns (id, tenant_id, name, type) VALUES (1, 1, 'First', 'SCHEDULED'), (2, 1, 'Second', 'SCHEDULED');
      INSERT INTO emergency_locations (id, tenant_id, name, city, state, street_num, postal_code, street_info) VALUES (3, 1, 'HQ', 'C', 'IL', '1', '60606', 'Main');
      INSERT INTO notification_groups (id, location_id, position, name, number, email, peer_name) VALUES (5, 3, 0, 'Desk', '1', 'd@x.test', 'PJSIP/1');
      INSERT INTO webhooks (id, tenant_id, type, url, secret, created_at) VALUES (7, 1, 'ENDCALL', 'https://x.test', 'whsec_x', 'now');`);
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the newest record is deleted, then a new record gets a new id, never the deleted one', () => {
    const s = database.sqlite;
    s.exec('DELETE FROM notification_groups WHERE id = 5; DELETE FROM call_campaigns WHERE id = 2; DELETE FROM webhooks WHERE id = 7');
    const webhook = s
      .prepare(
        "INSERT INTO webhooks (tenant_id, type, url, secret, created_at) VALUES (1, 'ENDCALL', 'https://y.test', 'whsec_y', 'now') RETURNING id",
      )
      .get() as { id: number };
    const group = s
      .prepare(
        "INSERT INTO notification_groups (location_id, position, name, number, email, peer_name) VALUES (3, 0, 'N', '1', 'e', 'p') RETURNING id",
      )
      .get() as { id: number };
    const campaign = s
      .prepare("INSERT INTO call_campaigns (tenant_id, name, type) VALUES (1, 'Third', 'SCHEDULED') RETURNING id")
      .get() as { id: number };
    expect([webhook.id, group.id, campaign.id]).to.deep.equal([8, 6, 3]);
  });
});
