import { expect } from 'chai';
import { LocalCoordinator, lockKey, PgCoordinator, TARS_LOCK_SPACE } from '../../src/db/coordination';
import { sharedPostgres, type PostgresCluster } from '../helpers/postgres';
import { until } from '../helpers/until';

/*
 * The coordinator on a real PostgreSQL server: each PgCoordinator is its own session, as another instance's would
 * be. The session that holds a lock is ended from outside (pg_terminate_backend), as PostgreSQL ends the session of
 * a killed process.
 */
describe('coordination between instances (src/db/coordination.ts)', function () {
  this.timeout(60_000);
  let cluster: PostgresCluster;
  let url: string;
  let database: string;
  const open: PgCoordinator[] = [];
  const coordinator = () => {
    const c = new PgCoordinator(url, { retryMs: 50 });
    open.push(c);
    return c;
  };

  before(async () => {
    cluster = await sharedPostgres();
    database = `tars_coordination_${process.pid}`;
    url = await cluster.createDatabase(database);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });

  /** Ends every coordinator session on the test database, as the server does when their process dies. */
  const terminateSessions = () =>
    cluster.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tars coordinator'`, [
      database,
    ]);

  /** Who holds the lock `name`, from pg_locks: the sessions' pids. */
  const holders = async (name: string) =>
    (
      await cluster.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND granted`,
        [TARS_LOCK_SPACE, lockKey(name) >>> 0],
      )
    ).map((r) => r.pid);

  it('when three instances try the same lock at once, then exactly one holds it, and pg_locks shows it under TARS’s class id', async () => {
    const [a, b, c] = [coordinator(), coordinator(), coordinator()];
    const got = await Promise.all([a, b, c].map((x) => x.tryHold('ami:pbx1')));
    expect(got.filter(Boolean)).to.have.length(1);
    expect([a, b, c].filter((x) => x.holds('ami:pbx1'))).to.have.length(1);
    expect(await holders('ami:pbx1')).to.have.length(1);
    // Another name is free for the others; asking again keeps what one holds.
    const other = [a, b, c].find((x) => !x.holds('ami:pbx1'))!;
    expect(await other.tryHold('ami:pbx2')).to.equal(true);
    const holder = [a, b, c].find((x) => x.holds('ami:pbx1'))!;
    expect(await holder.tryHold('ami:pbx1')).to.equal(true);
    expect(await holders('ami:pbx1')).to.have.length(1);
  });

  it('when the holder releases the lock, then another instance gets it', async () => {
    const [a, b] = [coordinator(), coordinator()];
    expect(await a.tryHold('import:x')).to.equal(true);
    expect(await b.tryHold('import:x')).to.equal(false);
    await a.release('import:x');
    expect(a.holds('import:x')).to.equal(false);
    expect(await b.tryHold('import:x')).to.equal(true);
  });

  it('when the holder’s session ends, then it is told it lost the lock and another instance takes it', async () => {
    const [a, b] = [coordinator(), coordinator()];
    expect(await a.tryHold('ami:pbx1')).to.equal(true);
    const lost = new Promise<string[]>((resolve) => a.once('lost', resolve));
    await terminateSessions();
    expect(await lost).to.deep.equal(['ami:pbx1']);
    expect(a.holds('ami:pbx1')).to.equal(false);
    expect(await b.tryHold('ami:pbx1')).to.equal(true);
    // The first instance, asking again on a new session, finds it taken.
    expect(await a.tryHold('ami:pbx1')).to.equal(false);
  });

  it('when a ping is not answered in time (the server process stopped), then the holder gives its locks up at once (fencing)', async () => {
    const a = coordinator();
    expect(await a.tryHold('ami:pbx1')).to.equal(true);
    expect(await a.ping(2_000)).to.equal(true);
    expect(a.holds('ami:pbx1')).to.equal(true);
    const lost = new Promise<string[]>((resolve) => a.once('lost', resolve));
    // Its server process stopped (as a hung server or a cut network looks from here): no answer within 500 ms.
    const [session] = await cluster.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tars coordinator'`,
      [database],
    );
    process.kill(session!.pid, 'SIGSTOP');
    try {
      expect(await a.ping(500)).to.equal(false);
    } finally {
      process.kill(session!.pid, 'SIGCONT');
    }
    expect(await lost).to.deep.equal(['ami:pbx1']);
    expect(a.holds('ami:pbx1')).to.equal(false);
    await until(async () => (await holders('ami:pbx1')).length === 0, { what: 'the closed session’s lock released by the server' });
  });

  it('when one instance notifies a channel, then every listener gets the payload, and one that stopped listening does not', async () => {
    const [a, b, c] = [coordinator(), coordinator(), coordinator()];
    const atB: string[] = [];
    const atC: string[] = [];
    await b.listen('tars_live', (p) => atB.push(p));
    const stopC = await c.listen('tars_live', (p) => atC.push(p));
    await a.notify('tars_live', 'pbx1|sales|7');
    await until(() => atB.length === 1 && atC.length === 1, { what: 'both listeners notified' });
    expect(atB).to.deep.equal(['pbx1|sales|7']);
    await stopC();
    await a.notify('tars_live', 'pbx1|*|8');
    await until(() => atB.length === 2, { what: 'the listener notified again' });
    await b.notify('tars_other', 'x'); // another channel reaches no one here
    await a.notify('tars_live', 'pbx1|*|9');
    await until(() => atB.length === 3, { what: 'the third signal' });
    expect(atB).to.deep.equal(['pbx1|sales|7', 'pbx1|*|8', 'pbx1|*|9']);
    expect(atC).to.deep.equal(['pbx1|sales|7']);
  });

  it('when a listener’s session ends, then it connects again, says so, and gets the signals sent after', async () => {
    const [a, b] = [coordinator(), coordinator()];
    const got: string[] = [];
    await b.listen('tars_live', (p) => got.push(p));
    const reconnected = new Promise<void>((resolve) => b.once('reconnected', () => resolve()));
    await terminateSessions();
    await reconnected;
    await a.notify('tars_live', 'after');
    await until(() => got.includes('after'), { what: 'the signal after the new session' });
    expect(got).to.deep.equal(['after']);
  });

  it('when a channel name is not a plain identifier, then it is refused before anything is sent', async () => {
    const a = coordinator();
    for (const bad of ['tars live', 'x; DROP TABLE users', 'Upper', '']) {
      let error: Error | undefined;
      await a.listen(bad, () => undefined).catch((err: Error) => (error = err));
      expect(error?.message, bad).to.match(/is not a channel name/);
    }
  });

  it('when on SQLite (one process), then every lock is granted and a signal goes round in the process', async () => {
    const local = new LocalCoordinator();
    expect(await local.tryHold('ami:pbx1')).to.equal(true);
    expect(local.holds('ami:pbx1')).to.equal(true);
    const got: string[] = [];
    await local.listen('tars_live', (p) => got.push(p));
    await local.notify('tars_live', 'x');
    expect(got, 'not within the notify call').to.deep.equal([]);
    await until(() => got.length === 1, { what: 'the signal' });
    await local.close();
  });

  it('when lock names are hashed, then the keys are stable 32-bit values', () => {
    expect(lockKey('ami:pbx1')).to.equal(lockKey('ami:pbx1'));
    expect(lockKey('ami:pbx1')).to.not.equal(lockKey('ami:pbx2'));
    for (const name of ['', 'ami:pbx1', 'import:queue_log:ab12', 'é']) {
      const k = lockKey(name);
      expect(Number.isInteger(k) && k >= -(2 ** 31) && k < 2 ** 31, name).to.equal(true);
    }
    expect(lockKey(''), 'FNV-1a offset basis').to.equal(0x811c9dc5 | 0);
    expect(lockKey('a'), 'FNV-1a of "a"').to.equal(0xe40c292c | 0);
  });
});
