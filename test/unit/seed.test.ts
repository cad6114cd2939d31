import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OpenDatabase } from '../../src/db/database';
import { Validator } from '../../src/validation/validation';
import { verifyPassword } from '../../src/modules/auth/passwords';
import { openDataDir } from '../../src/runtime';
import { readFixtureFile, SeedError, seedFixture } from '../../src/seed/seed';
import { ACME } from '../helpers/fixtures';

const TABLES = [
  'tenants',
  'branches',
  'users',
  'extensions',
  'queues',
  'phone_numbers',
  'emergency_locations',
  'call_campaigns',
  'webhooks',
  'saved_filters',
] as const;

describe('seeding a fixture file', () => {
  let dir: string;
  let database: OpenDatabase;
  const validator = new Validator();
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const t of TABLES) out[t] = (database.sqlite.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return out;
  };
  const problemsOf = async (data: unknown): Promise<string[]> => {
    try {
      await seedFixture(database, validator, data, new Date());
    } catch (err) {
      if (err instanceof SeedError) return err.problems;
      throw err;
    }
    expect.fail('the fixture was accepted');
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-seed-'));
    database = await openDataDir(dir);
  });
  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when acme.json is loaded, then every record is stored with its id and passwords only as hashes', async () => {
    const summary = await seedFixture(database, validator, await readFixtureFile(ACME), new Date());
    expect(summary).to.deep.include({
      tenants: 3,
      branches: 4,
      users: 8,
      extensions: 4,
      queues: 3,
      phoneNumbers: 4,
      emergencyLocations: 2,
      callCampaigns: 2,
      webhooks: 3,
      savedFilters: 2,
    });
    expect(await counts()).to.deep.equal({
      tenants: 3,
      branches: 4,
      users: 8,
      extensions: 4,
      queues: 3,
      phone_numbers: 4,
      emergency_locations: 2,
      call_campaigns: 2,
      webhooks: 3,
      saved_filters: 2,
    });
    const admin = database.sqlite.prepare('SELECT password_hash, peer_secret, mfa_app_secret FROM users WHERE id = 2').get() as Record<
      string,
      string
    >;
    expect(admin.password_hash).to.match(/^scrypt\$/);
    expect(await verifyPassword('acme-admin-pass', admin.password_hash as string)).to.equal(true);
    expect(admin.peer_secret).to.equal('s1p-secret-101');
    const dests = database.sqlite
      .prepare('SELECT dest_type FROM phone_number_destinations WHERE phone_number_id = 1 ORDER BY list, position')
      .all();
    expect(dests).to.deep.equal([{ dest_type: 'queue' }, { dest_type: 'extension' }]);
    const secrets = database.sqlite.prepare('SELECT secret FROM webhooks').all() as { secret: string }[];
    expect(secrets.every((s) => s.secret.startsWith('whsec_'))).to.equal(true);
  });

  it('when a fixture breaks several rules, then each is reported as key[index].field and nothing is written', async () => {
    const problems = await problemsOf({
      tenants: [{ id: 1, name: 'One' }],
      branches: [
        { id: 1, tenantId: 1, name: 'Ab' },
        { id: 2, tenantId: 9, name: 'Orphan' },
      ],
      users: [
        { id: 1, email: 'a@example.test', password: 'pw', tenantId: 1, userRole: 3 },
        { id: 2, email: 'A@example.test', password: 'pw', tenantId: 1, userRole: 3 },
      ],
    });
    expect(problems).to.deep.equal(['branches[0].name: must be at least 3 characters long']);
    const more = await problemsOf({
      tenants: [
        { id: 1, name: 'One' },
        { id: 2, name: 'Two' },
      ],
      branches: [
        { id: 1, tenantId: 9, name: 'Orphan' },
        { id: 2, tenantId: 2, name: 'Second' },
      ],
      users: [
        { id: 1, email: 'a@example.test', password: 'pw', tenantId: 1, userRole: 3, branchId: 2 },
        { id: 2, email: 'A@example.test', password: 'pw', tenantId: 1, userRole: 3 },
      ],
    });
    expect(more).to.have.members([
      'branches[0].tenantId: no tenant with id 9',
      'users[0].branchId: branch 2 belongs to tenant 2, not to tenant 1',
      'users[1].email: e-mail "a@example.test" is already used',
    ]);
    expect(Object.values(await counts()).every((n) => n === 0)).to.equal(true);
  });

  it('when the same fixture is loaded twice, then the second load reports the existing ids and changes nothing', async () => {
    const data = await readFixtureFile(ACME);
    await seedFixture(database, validator, data, new Date());
    const before = await counts();
    const problems = await problemsOf(data);
    expect(problems).to.include('tenants[0].id: a record with id 1 already exists in the database');
    expect(problems).to.include('users[0].email: e-mail "root@tars.local" is already used');
    expect(await counts()).to.deep.equal(before);
  });

  it('when the file is not JSON, then the problem names the file', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"tenants": [');
    try {
      await readFixtureFile(file);
      expect.fail('read a broken file');
    } catch (err) {
      expect(err).to.be.instanceOf(SeedError);
      expect((err as SeedError).problems[0]).to.include('broken.json: not valid JSON');
    }
  });
});
