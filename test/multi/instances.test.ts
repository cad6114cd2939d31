import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript } from '../helpers/ami-transcript';
import { send } from '../helpers/app';
import { startServe, type RunningServer } from '../helpers/cli';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { ASTERISK_FIXTURE } from '../helpers/live-site';
import { sharedPostgres, startPostgres, type PostgresCluster } from '../helpers/postgres';
import { until } from '../helpers/until';

/*
 * Several instances (issue 32): three real `tars serve` processes on one PostgreSQL database, each with its own
 * data directory, as three hosts behind a load balancer would run them; a PBX on loopback replaying the recorded
 * Asterisk 22 run; a real HTTP receiver for webhooks. Instances are killed with SIGKILL, as a crash kills them.
 */
const ADMIN = { email: 'admin@asterisk-lab.test', password: 'ast22-lab-admin' };

interface Site {
  readonly instances: RunningServer[];
  readonly peer: AmiPeer;
  readonly receiver: HttpReceiver;
  readonly url: string;
  token: string;
  /** Starts one more instance on the same database. */
  start(): Promise<RunningServer>;
}

describe('several instances on one PostgreSQL database (three tars serve processes)', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  let site: Site | undefined;
  let own: PostgresCluster | undefined;

  afterEach(async () => {
    for (const s of site?.instances ?? []) await s.stop('SIGKILL');
    await site?.peer.close();
    await site?.receiver.close();
    site = undefined;
    await own?.stop();
    own = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function startSite(cluster?: PostgresCluster): Promise<Site> {
    const pg = cluster ?? (await sharedPostgres());
    const url = await pg.createDatabase();
    const peer = new AmiPeer(amiTranscript());
    await peer.listen();
    const receiver = await startReceiver();
    const env = { TARS_DATABASE_URL: url, TARS_AMI_URL: peer.url, TARS_WEBHOOK_ALLOW: '127.0.0.1', TARS_LOG_LEVEL: 'info' };
    const instances: RunningServer[] = [];
    const start = async (extra: string[] = []) => {
      const dir = mkdtempSync(join(tmpdir(), 'tars-multi-'));
      dirs.push(dir);
      const server = await startServe(['--data-dir', dir, ...extra], { env });
      instances.push(server);
      return server;
    };
    // The first seeds the database (and migrates it); the others start on it as it is.
    await start(['--seed', ASTERISK_FIXTURE]);
    await Promise.all([start(), start()]);
    const login = await send(instances[0]!.url, 'POST', '/v2/authentication/', { body: ADMIN });
    expect(login.status, JSON.stringify(login.body)).to.equal(201);
    return { instances, peer, receiver, url, token: login.body.accessToken, start: () => start() };
  }

  const alive = (s: Site) => s.instances.filter((x) => x.child.exitCode === null && x.child.signalCode === null);

  /** Which instances hold the PBX's AMI link, by their own /metrics. */
  async function holders(s: Site): Promise<RunningServer[]> {
    const held: RunningServer[] = [];
    for (const i of alive(s)) {
      // An instance killed a moment ago may still look alive: it answers nothing.
      const res = await send(i.url, 'GET', '/metrics').catch(() => undefined);
      if (res && /tars_ami_link_held\{pbx="[^"]+"\} 1/.test(res.text)) held.push(i);
    }
    return held;
  }

  it('when three instances run, then a token from one is accepted by the others, one holds the AMI link, and every one shows the live queues', async () => {
    site = await startSite();
    const s = site;
    for (const i of s.instances) {
      const me = await send(i.url, 'GET', '/v2/users/me', { token: s.token });
      expect(me.status, i.url).to.equal(200);
    }
    await until(async () => (await holders(s)).length === 1, { what: 'one holder' });
    expect(s.peer.clients, 'the PBX sees one AMI login').to.equal(1);
    for (const i of s.instances) {
      const body = await until(async () => {
        const res = await send(i.url, 'GET', '/v2/reporting/queues/live', { token: s.token, query: { tenantId: 1 } });
        return res.body.connected ? res.body : undefined;
      });
      const sales = (body.queues as { logName: string; live: boolean; members: { extNum: number | null }[] }[]).find(
        (q) => q.logName === 'sales',
      );
      expect(sales?.live, i.url).to.equal(true);
      expect(sales?.members.map((m) => m.extNum).sort(), i.url).to.deep.equal([201, 202, 203]);
    }
  });

  it('when an agent is paused through an instance that does not hold the link, then the PBX gets the pause once', async () => {
    site = await startSite();
    const s = site;
    await until(async () => (await holders(s)).length === 1, { what: 'one holder' });
    const [holder] = await holders(s);
    const follower = s.instances.find((i) => i !== holder)!;
    await until(
      async () => (await send(follower.url, 'GET', '/v2/reporting/queues/live', { token: s.token, query: { tenantId: 1 } })).body.connected,
      {
        what: 'the follower connected',
      },
    );
    const before = s.peer.received.filter((a) => a.Action === 'QueuePause').length;
    const res = await send(follower.url, 'POST', '/v2/queues/agent-pause', {
      token: s.token,
      body: { peerName: 'PJSIP/201', paused: 1, pauseReason: 'Lunch' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.message).to.match(/^paused in /);
    const pauses = s.peer.received.filter((a) => a.Action === 'QueuePause').slice(before);
    expect(pauses.length).to.be.greaterThan(0);
    expect(new Set(pauses.map((p) => `${p.Queue}|${p.Interface}`)).size, 'each queue paused once').to.equal(pauses.length);
  });

  it('when 100 calls start and an instance is killed mid-way, then each STARTCALL webhook arrives at least once, a repeat with the same webhook-id', async () => {
    site = await startSite();
    const s = site;
    const hook = await send(s.instances[0]!.url, 'POST', '/v2/webhooks', {
      token: s.token,
      body: { tenantId: 1, type: 'STARTCALL', url: `${s.receiver.url}/start` },
    });
    expect(hook.status).to.equal(201);
    await until(async () => (await holders(s)).length === 1, { what: 'one holder' });
    const [holder] = await holders(s);
    const victim = s.instances.find((i) => i !== holder)!;
    for (let n = 1; n <= 100; n++) {
      s.peer.write(
        `Event: QueueCallerJoin\r\nChannel: PJSIP/trunk-${n}\r\nCallerIDNum: +1555${String(n).padStart(4, '0')}\r\nCallerIDName: Multi\r\nUniqueid: multi.${n}\r\nQueue: sales\r\nPosition: 1\r\nCount: 1\r\n\r\n`,
      );
      if (n === 30) {
        await until(() => s.receiver.requests.length >= 10, { what: 'deliveries under way' });
        victim.child.kill('SIGKILL');
      }
    }
    const callIds = () => new Set(s.receiver.requests.map((r) => (JSON.parse(r.body) as { data: { callId: string } }).data.callId));
    await until(() => callIds().size === 100, { what: '100 calls delivered', ms: 120_000 });
    const idsByCall = new Map<string, Set<string>>();
    for (const r of s.receiver.requests) {
      const call = (JSON.parse(r.body) as { data: { callId: string } }).data.callId;
      const set = idsByCall.get(call) ?? new Set<string>();
      set.add(String(r.headers['webhook-id']));
      idsByCall.set(call, set);
    }
    for (const [call, ids] of idsByCall) expect(ids.size, `${call}: one webhook-id`).to.equal(1);
  });

  it('when the instance holding the AMI link is killed, then another holds it within 10 s and the others show the PBX connected', async () => {
    site = await startSite();
    const s = site;
    await until(async () => (await holders(s)).length === 1, { what: 'one holder' });
    const [holder] = await holders(s);
    holder!.child.kill('SIGKILL');
    const killedAt = Date.now();
    await until(async () => (await holders(s)).length === 1 && (await holders(s))[0] !== holder, { what: 'a new holder', ms: 10_000 });
    expect(Date.now() - killedAt).to.be.lessThan(10_000);
    for (const i of alive(s)) {
      await until(
        async () => (await send(i.url, 'GET', '/v2/reporting/queues/live', { token: s.token, query: { tenantId: 1 } })).body.connected,
        {
          what: `${i.url} connected`,
          ms: 10_000,
        },
      );
    }
    expect(s.peer.clients, 'one AMI login again').to.equal(1);
  });

  it('when PostgreSQL is restarted under load, then requests fail with 503 while it is away and succeed after, and no acknowledged write is lost', async () => {
    own = await startPostgres({ durable: true });
    site = await startSite(own);
    const s = site;
    const acknowledged: string[] = [];
    let stop = false;
    const statuses: number[] = [];
    const load = (async () => {
      for (let n = 0; !stop; n++) {
        const i = s.instances[n % s.instances.length]!;
        const name = `multi-${n}`;
        const res = await send(i.url, 'POST', '/v2/admin/branches', { token: s.token, body: { tenantId: 1, name } }).catch(() => undefined);
        if (!res) continue;
        statuses.push(res.status);
        if (res.status === 201) acknowledged.push(name);
        else expect(res.status, JSON.stringify(res.body)).to.equal(503);
      }
    })();
    await until(() => acknowledged.length >= 20, { what: 'writes before the stop' });
    await own.stopServer('immediate');
    await until(() => statuses.slice(-5).every((x) => x === 503) && statuses.slice(-5).length === 5, { what: '503 while away' });
    await own.startServer();
    const after = acknowledged.length;
    await until(() => acknowledged.length >= after + 20, { what: 'writes after the restart', ms: 60_000 });
    stop = true;
    await load;
    for (const i of s.instances)
      expect(i.child.exitCode, `an instance ended while the database was away:\n${i.output().slice(-3000)}`).to.equal(null);
    const names = new Set<string>();
    for (let page = 1; ; page++) {
      const res = await send(s.instances[0]!.url, 'GET', '/v2/admin/branches', {
        token: s.token,
        query: { tenantId: 1, page, recordsPerPage: 100 },
      });
      expect(res.status).to.equal(200);
      for (const b of res.body.records as { name: string }[]) names.add(b.name);
      if (page >= res.body.maxPage) break;
    }
    for (const name of acknowledged) expect(names.has(name), name).to.equal(true);
  });

  it('when 40 wrong passwords for one e-mail are spread over three instances at once, then exactly 10 are judged and the rest refused with 429', async () => {
    site = await startSite();
    const s = site;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        send(s.instances[n % 3]!.url, 'POST', '/v2/authentication/', {
          body: { email: ADMIN.email, password: `wrong-${n}` },
          headers: { 'x-forwarded-for': `10.0.0.${n + 1}` },
        }),
      ),
    );
    const counts = new Map<number, number>();
    for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    expect(Object.fromEntries(counts)).to.deep.equal({ 401: 10, 429: 30 });
  });
});
