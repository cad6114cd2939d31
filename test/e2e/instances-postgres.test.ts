import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import { openDatabase } from '../../src/db/database';
import { openPostgres } from '../../src/db/engine';
import { lockKey, TARS_LOCK_SPACE } from '../../src/db/coordination';
import { runAlone } from '../../src/db/locks';
import { migrateToLatest } from '../../src/db/migrate';
import { deleteAttempts, insertAttempt } from '../../src/modules/auth/attempts.repository';
import { databaseJwtSecret, jwtSecretFor, TokenService } from '../../src/modules/auth/tokens';
import type { TestResponse } from '../helpers/app';
import { buildAppMfaUser, buildTenant, buildUser, ROLE } from '../helpers/factories';
import { migratePostgres, startPgInstance, type PgInstance } from '../helpers/pg-instances';
import { sharedPostgres } from '../helpers/postgres';

/*
 * Several instances on one PostgreSQL database (issue 32, design §5, step 9): each instance is the real app over its
 * own pool, as another process would be (test/helpers/pg-instances.ts). What one instance does, the others see: the
 * JWT secret is one, and the login and MFA throttles count one burst spread over all of them as one.
 */

const statuses = (all: TestResponse[]) => all.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});

describe('several instances on one PostgreSQL database: the JWT secret (tars_settings)', function () {
  this.timeout(120_000);

  it('when four instances start at once on a fresh database, then they make one secret, and a token one signs is accepted by another', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    await migratePostgres(url);
    const pools = [1, 2, 3, 4].map(() => openPostgres(url));
    try {
      const secrets = await Promise.all(pools.map((p) => databaseJwtSecret(p.db)));
      expect(new Set(secrets.map((s) => s.toString('utf8'))).size).to.equal(1);
      expect(secrets[0]?.length).to.be.at.least(32);
      const rows = await pools[0]!.db.selectFrom('tars_settings').selectAll().execute();
      expect(rows).to.deep.equal([{ name: 'jwt_secret', value: secrets[0]?.toString('utf8') }]);
      // Started again later, an instance reads the same secret.
      expect((await databaseJwtSecret(pools[3]!.db)).equals(secrets[0]!)).to.equal(true);
      const [a, b] = [new TokenService(secrets[0]!, 3600), new TokenService(secrets[1]!, 3600)];
      expect(b.verify(a.issue({ uid: 7, ver: 2 }))).to.include({ uid: 7, ver: 2 });
      expect(a.verify(b.issue({ uid: 8, ver: 1 }))).to.include({ uid: 8, ver: 1 });
      expect(new TokenService('another secret of at least thirty-two chars', 3600).verify(a.issue({ uid: 7, ver: 2 }))).to.equal(null);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  it('when TARS_JWT_SECRET is set, then it wins on PostgreSQL and no row is written; on SQLite the secret stays in the data directory file', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    await migratePostgres(url);
    const pg = openPostgres(url);
    const dir = mkdtempSync(join(tmpdir(), 'tars-secret-'));
    const sqlite = openDatabase(join(dir, 'tars.db'));
    try {
      const configured = 'a configured secret of at least thirty-two characters';
      expect((await jwtSecretFor(pg.db, dir, configured)).toString('utf8')).to.equal(configured);
      expect(await pg.db.selectFrom('tars_settings').selectAll().execute()).to.deep.equal([]);
      await migrateToLatest(sqlite);
      const fromFile = await jwtSecretFor(sqlite.db, dir, undefined);
      expect(fromFile.toString('utf8')).to.equal(readFileSync(join(dir, 'jwt-secret'), 'utf8').trim());
      expect(await sqlite.db.selectFrom('tars_settings').selectAll().execute()).to.deep.equal([]);
    } finally {
      await pg.close();
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when two instances run on one database, then a user signed in on one is served by the other', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    await migratePostgres(url);
    const [one, two] = await Promise.all([startPgInstance(url), startPgInstance(url)]);
    try {
      const user = await buildUser(one!.database.db, (await buildTenant(one!.database.db)).id, ROLE.account);
      const signedIn = await one!.request('POST', '/v2/authentication/', { body: { email: user.email, password: user.password } });
      expect(signedIn.status).to.equal(201);
      const me = await two!.request('GET', '/v2/users/me', { token: signedIn.body.accessToken });
      expect(me.status, me.text).to.equal(200);
      expect(me.body.email).to.equal(user.email);
    } finally {
      await Promise.all([one?.close(), two?.close()]);
    }
  });
});

describe('several instances on one PostgreSQL database: the login and MFA throttles', function () {
  this.timeout(180_000);
  let url: string;
  let instances: PgInstance[] = [];

  before(async () => {
    url = await (await sharedPostgres()).createDatabase();
    await migratePostgres(url);
    instances = await Promise.all([1, 2, 3].map(() => startPgInstance(url)));
  });
  after(async () => {
    await Promise.all(instances.map((i) => i.close()));
  });
  const on = (n: number) => instances[n % instances.length]!;

  it('when 30 wrong passwords for one e-mail arrive at once spread over three instances, then exactly 10 are evaluated (401) and 20 refused (429), and the right one then gets 429', async () => {
    const db = on(0).database.db;
    const user = await buildUser(db, (await buildTenant(db)).id, ROLE.account);
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        on(i).request('POST', '/v2/authentication/', { body: { email: user.email, password: `wrong-${i}` } }),
      ),
    );
    expect(statuses(burst)).to.deep.equal({ 401: 10, 429: 20 });
    for (const refused of burst.filter((r) => r.status === 429)) {
      expect(refused.body).to.include({ name: 'TooManyRequests', code: 429 });
      expect(refused.body.message).to.match(/^Too many failed logins for this account; try again in \d+ seconds$/);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 900);
    }
    const rows = await db.selectFrom('login_failures').select('key').where('key', '=', `email:${user.email}`).execute();
    expect(rows).to.have.length(10);
    const right = await on(1).request('POST', '/v2/authentication/', { body: { email: user.email, password: user.password } });
    expect(right.status).to.equal(429);
  });

  it('when 20 right passwords for one e-mail arrive at once spread over three instances, then all 20 are served (201): they wait for a place, they are not refused', async () => {
    const db = on(0).database.db;
    const user = await buildUser(db, (await buildTenant(db)).id, ROLE.account);
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        on(i).request('POST', '/v2/authentication/', { body: { email: user.email, password: user.password } }),
      ),
    );
    expect(statuses(burst)).to.deep.equal({ 201: 20 });
    expect(await db.selectFrom('login_failures').select('key').where('key', '=', `email:${user.email}`).execute()).to.deep.equal([]);
  });

  it('when another instance holds the last places with attempts still running, then a newcomer waits for one instead of 429, and is served when it is given back', async () => {
    const db = on(0).database.db;
    const user = await buildUser(db, (await buildTenant(db)).id, ROLE.account);
    const key = `email:${user.email}`;
    // Ten places held by right passwords being checked on an instance that is not among these three.
    const held: number[] = [];
    for (let i = 0; i < 10; i++) held.push(await insertAttempt(db, key, Date.now() - 1000, Date.now() + 60_000));
    const waiting = on(1).request('POST', '/v2/authentication/', { body: { email: user.email, password: user.password } });
    await deleteAttempts(db, held.slice(0, 1)); // that instance's attempt succeeded: it gives its place back
    const answer = await waiting;
    expect(answer.status, answer.text).to.equal(201);
  });

  it('when the places of an instance killed mid-attempt are held past their time, then they count as failures: 429', async () => {
    const db = on(0).database.db;
    const user = await buildUser(db, (await buildTenant(db)).id, ROLE.account);
    for (let i = 0; i < 10; i++) await insertAttempt(db, `email:${user.email}`, Date.now() - 70_000, Date.now() - 10_000);
    const answer = await on(2).request('POST', '/v2/authentication/', { body: { email: user.email, password: user.password } });
    expect(answer.status, answer.text).to.equal(429);
    expect(answer.body.message).to.match(/^Too many failed logins for this account; try again in \d+ seconds$/);
  });

  it('when 30 wrong one-time codes arrive at once spread over three instances, then exactly 10 are evaluated (401) and 20 refused (429)', async () => {
    const secret = 'JBSWY3DPEHPK3PXP';
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    const user = await buildAppMfaUser(on(0).database.db, secret);
    const challenges = await Promise.all(
      [0, 1, 2].map(async (n) => {
        const res = await on(n).request('POST', '/v2/authentication/mfa', { body: { email: user.email, password: user.password } });
        expect(res.status, res.text).to.equal(201);
        return res.body.mfaVerifyToken as string;
      }),
    );
    const right = totp.generate();
    const wrong = right === '000000' ? '111111' : '000000';
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => on(i).request('POST', '/v2/mfa/validate', { body: { token: challenges[i % 3], otp: wrong } })),
    );
    expect(statuses(burst)).to.deep.equal({ 401: 10, 429: 20 });
    for (const refused of burst.filter((r) => r.status === 429))
      expect(refused.body.message).to.match(/^Too many wrong one-time codes for this account; try again in \d+ seconds$/);
    const rows = await on(2).database.db.selectFrom('login_failures').select('key').where('key', '=', `mfa:${user.id}`).execute();
    expect(rows).to.have.length(10);
  });
});

describe('several instances on one PostgreSQL database: a job run by one at a time (runAlone)', function () {
  this.timeout(120_000);

  it('when two instances start the same job at once, then one runs it and the other skips while it runs; after it, the next run goes ahead', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const [a, b] = [openPostgres(url), openPostgres(url)];
    try {
      let release = () => undefined as void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const runs: string[] = [];
      const first = runAlone(a.db, 'job:call-events-forget', async () => {
        runs.push('a');
        started();
        await gate;
      });
      await running;
      const { rows: locks } = await sql<{ classid: number; objid: number }>`
        SELECT classid, objid FROM pg_locks WHERE locktype = 'advisory'`.execute(a.db);
      expect(locks.map((l) => [Number(l.classid), Number(l.objid) | 0])).to.deep.include([
        TARS_LOCK_SPACE,
        lockKey('job:call-events-forget'),
      ]);
      expect(await runAlone(b.db, 'job:call-events-forget', async () => void runs.push('b'))).to.equal(false);
      expect(await runAlone(b.db, 'job:another', async () => void runs.push('other'))).to.equal(true);
      release();
      expect(await first).to.equal(true);
      expect(await runAlone(b.db, 'job:call-events-forget', async () => void runs.push('b'))).to.equal(true);
      expect(runs).to.deep.equal(['a', 'other', 'b']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('when the job runs on SQLite, then it always runs (one process, no lock)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-alone-'));
    const sqlite = openDatabase(join(dir, 'tars.db'));
    try {
      let ran = 0;
      expect(await runAlone(sqlite.db, 'job:x', async () => void ran++)).to.equal(true);
      expect(ran).to.equal(1);
    } finally {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
