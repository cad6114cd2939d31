import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { AmiError, parseAmiUrls } from '../../src/ami/ami-client';
import { PgCoordinator } from '../../src/db/coordination';
import { openPostgres, type PostgresDatabase } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import { silentLogger } from '../../src/log';
import { checkInstallation } from '../../src/ops/check';
import { LiveQueues, type LivePbx } from '../../src/modules/live-queues/live-queues';
import { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript, fromAnswer, fromState } from '../helpers/ami-transcript';
import { sharedPostgres, type PostgresCluster } from '../helpers/postgres';
import { until } from '../helpers/until';

/*
 * The live layer of three instances on one PostgreSQL database, each with its own pool and coordinator session (as
 * three processes would have), and one PBX on loopback replaying the recorded Asterisk 22 run: one instance holds
 * the AMI link, the others serve what it publishes, actions asked of any reach the PBX once, and when the holder's
 * session dies another takes the link.
 */
describe('the live layer across instances (one PostgreSQL database, one PBX)', function () {
  this.timeout(60_000);
  const transcript = amiTranscript();
  let cluster: PostgresCluster;
  let peer: AmiPeer;
  let url: string;
  let instances: { live: LiveQueues; coordinator: PgCoordinator; pg: PostgresDatabase }[];

  before(async () => {
    cluster = await sharedPostgres();
  });
  beforeEach(async () => {
    peer = new AmiPeer(transcript);
    await peer.listen();
    url = await cluster.createDatabase();
    const migrating = openPostgres(url, { poolSize: 2 });
    await migrateToLatest(migrating);
    await migrating.close();
    instances = [1, 2, 3].map((n) => {
      const pg = openPostgres(url, { poolSize: 3 });
      const coordinator = new PgCoordinator(url, { retryMs: 50 });
      const live = new LiveQueues(parseAmiUrls(peer.url), silentLogger, {
        minBackoffMs: 20,
        maxBackoffMs: 200,
        actionTimeoutMs: 2000,
        sharing: { coordinator, db: pg.db, holder: `instance ${n}`, campaignMs: 200, publishDelayMs: 20 },
      });
      return { live, coordinator, pg };
    });
    for (const i of instances) i.live.start();
  });
  afterEach(async () => {
    for (const i of instances) i.live.stop();
    await Promise.all(
      instances.map(async (i) => {
        await i.coordinator.close();
        await i.pg.close();
      }),
    );
    await peer.close();
  });

  const pbxOf = (i: { live: LiveQueues }) => i.live.pbxs[0] as LivePbx;
  const holders = () => instances.filter((i) => pbxOf(i).holdsLink);
  /** Every instance shows the PBX connected with the queues of the recording's checkpoint `index`. */
  const allShow = (index: number) =>
    until(
      () =>
        instances.every(
          (i) =>
            pbxOf(i).status.state === 'connected' &&
            JSON.stringify(fromState(pbxOf(i).queues)) === JSON.stringify(fromAnswer(transcript.checkpoints[index]!)),
        ),
      { what: `every instance showing checkpoint ${index}` },
    );

  it('when three instances start, then one holds the link, the PBX sees one login, and all three show its queues as they change', async () => {
    await allShow(0);
    expect(holders()).to.have.length(1);
    expect(peer.clients).to.equal(1);
    expect(peer.received.filter((a) => a.Action === 'Login')).to.have.length(1);
    const changes: (string | undefined)[] = [];
    const follower = instances.find((i) => !pbxOf(i).holdsLink)!;
    follower.live.on('change', (_pbx, queue) => changes.push(queue));
    for (let i = 1; i < transcript.checkpoints.length; i++) {
      peer.playTo(i);
      await allShow(i);
    }
    expect(changes.length, 'the follower told its listeners (the streams) of the changes').to.be.greaterThan(0);
    expect(pbxOf(follower).lastEventAt?.getTime()).to.equal(pbxOf(holders()[0]!).lastEventAt?.getTime());
  });

  it('when an agent action is asked of a follower, then the PBX receives it once, and Asterisk’s refusal comes back as its message', async () => {
    await allShow(0);
    const follower = instances.find((i) => !pbxOf(i).holdsLink)!;
    const member = [...[...pbxOf(follower).queues.values()][0]!.members.values()][0]!;
    const before = peer.received.filter((a) => a.Action === 'QueuePause').length;
    await pbxOf(follower).action({ Action: 'QueuePause', Interface: member.interface, Paused: 'true', Reason: 'Lunch' });
    expect(peer.received.filter((a) => a.Action === 'QueuePause')).to.have.length(before + 1);
    // The pause the PBX announced reaches every instance's state.
    await until(
      () => instances.every((i) => [...pbxOf(i).queues.values()].some((q) => q.members.get(member.interface)?.pausedReason === 'Lunch')),
      {
        what: 'the pause on every instance',
      },
    );
    let error: unknown;
    await pbxOf(follower)
      .action({ Action: 'QueuePause', Interface: 'PJSIP/nobody', Paused: 'true' })
      .catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(AmiError);
    expect((error as Error).message).to.equal('Interface not found');
  });

  it('when tars check looks at the database, then it names the session holding each PBX’s link, and none once the holder stopped', async () => {
    await allShow(0);
    const dataDir = mkdtempSync(join(tmpdir(), 'tars-check-'));
    try {
      const check = () => checkInstallation({ TARS_DATABASE_URL: url, TARS_AMI_URL: peer.url }, { 'data-dir': dataDir });
      const links = async () => (await check()).find((f) => f.what === 'AMI links');
      const label = pbxOf(instances[0]!).label;
      expect(await links()).to.deep.include({ ok: true });
      expect((await links())?.detail).to.satisfy((d: string) =>
        d.startsWith(`${label}: held by the instance at a local socket (server pid `),
      );
      for (const i of instances) i.live.stop();
      await until(async () => (await links())?.detail === `${label}: held by no instance`, { what: 'no holder after a clean stop' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('when the holder’s database session dies, then another instance takes the link within 10 s and the queues go on', async () => {
    await allShow(0);
    const [old] = holders();
    // As when its process is killed: PostgreSQL ends its session, which frees the lock, and its AMI socket closes.
    await cluster.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = $1)`,
      [dbName(url)],
    );
    old!.live.stop();
    const rest = instances.filter((i) => i !== old);
    const started = Date.now();
    await until(() => rest.some((i) => pbxOf(i).holdsLink && pbxOf(i).status.state === 'connected'), {
      what: 'a new holder connected',
      ms: 10_000,
    });
    expect(Date.now() - started).to.be.lessThan(10_000);
    expect(rest.filter((i) => pbxOf(i).holdsLink)).to.have.length(1);
    peer.playTo(2);
    await until(
      () => rest.every((i) => JSON.stringify(fromState(pbxOf(i).queues)) === JSON.stringify(fromAnswer(transcript.checkpoints[2]!))),
      { what: 'the remaining instances at checkpoint 2' },
    );
  });

  /** The database a URL names (the socket URLs of the test cluster carry it as their path). */
  function dbName(u: string): string {
    return /\/([a-z0-9_]+)(\?|$)/.exec(u)?.[1] ?? '';
  }
});
