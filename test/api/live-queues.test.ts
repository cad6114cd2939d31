import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { importFile } from '../../src/modules/pbx-logs/file-import';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import type { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript, type Checkpoint } from '../helpers/ami-transcript';
import { startTestApp, type TestApp, type TestClock } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { FIXTURES } from '../helpers/fixtures';
import { ASTERISK_FIXTURE, startLiveSite, type LiveSite } from '../helpers/live-site';
import { until } from '../helpers/until';

const RUN = join(FIXTURES, 'asterisk');

interface LiveMember {
  extensionId: number | null;
  extNum: number | null;
  name: string;
  interface: string;
  state: string;
  paused: boolean;
  pauseReason: string;
}
interface LiveQueueBody {
  queueId: number;
  logName: string;
  live: boolean;
  serviceLevelSeconds: number;
  callersWaiting: number;
  callers: { position: number; callerIdNum: string; waitSeconds: number }[];
  members: LiveMember[];
  today: { date: string; offered: number; answered: number; abandoned: number; serviceLevelPercent: number | null };
}

/** A QueueStatus answer as the live route words it: members (interface, paused, reason) and callers (position, number). */
function expected(c: Checkpoint, queue: string) {
  const of = c.answer.filter((m) => m.Queue === queue);
  return {
    members: of
      .filter((m) => m.Event === 'QueueMember')
      .map((m) => `${m.Location} paused=${m.Paused === '1'} ${m.Paused === '1' ? m.PausedReason : ''}`)
      .sort(),
    callers: of
      .filter((m) => m.Event === 'QueueEntry')
      .map((m) => `${m.Position} ${m.CallerIDNum}`)
      .sort(),
  };
}

const shown = (q: LiveQueueBody) => ({
  members: q.members
    .filter((m) => m.state !== 'loggedOut')
    .map((m) => `${m.interface} paused=${m.paused} ${m.pauseReason}`)
    .sort(),
  callers: q.callers.map((c) => `${c.position} ${c.callerIdNum}`).sort(),
});

describe('GET /v2/reporting/queues/live (the live layer, over AMI from a replayed Asterisk 22 run)', function () {
  this.timeout(60_000);
  const transcript = amiTranscript();
  let site: LiveSite;
  let clock: TestClock;
  let peer: AmiPeer;
  let app: TestApp;
  let token: string;
  const lines = readFileSync(join(RUN, 'queue_log'), 'utf8').split('\n');
  const count = (queue: string, event: string) => lines.filter((l) => l.split('|')[2] === queue && l.split('|')[4] === event).length;

  before(async () => {
    site = await startLiveSite();
    ({ app, peer, clock } = site);
    await importFile(new QueueLogImporter(app.deps.database.sqlite), join(RUN, 'queue_log'));
    token = await tokenFor(app, { id: 1 });
  });
  after(() => site.close());

  const live = async () => {
    const res = await app.request('GET', '/v2/reporting/queues/live', { token, query: { tenantId: 1 } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as {
      connected: boolean;
      configured: boolean;
      pbx: { state: string; reason: string | null }[];
      queues: LiveQueueBody[];
    };
  };
  const settle = () => site.settle();

  it("when the live view is read, then members are resolved to the tenant's extensions (member names, reporting.md R14) and callers' waits are given", async () => {
    // At the recording's pace: each event reaches TARS when it reached the recording client (TARS counts from then).
    await peer.replayTo(3, (at) => (clock.ms = at.getTime()), settle);
    const c = transcript.checkpoints[3] as Checkpoint;
    clock.ms = c.at.getTime();
    const body = await live();
    const members = body.queues.flatMap((q) => q.members);
    expect(members.length).to.be.greaterThan(5);

    for (const m of members) expect(m.extNum, m.name).to.equal(Number(/^Local\/(\d+)@/.exec(m.interface)?.[1]));
    const waits = c.answer.filter((m) => m.Event === 'QueueEntry').map((m) => Number(m.Wait));
    expect(waits.length).to.be.greaterThan(0);
    const shownWaits = body.queues.flatMap((q) => q.callers.map((x) => x.waitSeconds));
    expect(shownWaits.length).to.equal(waits.length);
    for (const [i, w] of [...waits].sort().entries()) expect(Math.abs(([...shownWaits].sort()[i] as number) - w)).to.be.at.most(1);
  });

  it("when the recorded run is replayed, then each queue shows what Asterisk's QueueStatus did at every point: members, their pause and reason, callers waiting", async () => {
    for (let i = 4; i < transcript.checkpoints.length; i++) {
      const c = transcript.checkpoints[i] as Checkpoint;
      peer.playTo(i);
      await settle();
      clock.ms = c.at.getTime();
      const body = await live();
      expect(body).to.include({ configured: true, connected: true });
      for (const q of body.queues) expect(shown(q), `${q.logName} at ${c.at.toISOString()}`).to.deep.equal(expected(c, q.logName));
    }
  });

  it("when today's queue_log lines are stored, then today's counters come from them, in the tenant's timezone, at the queue's own service level", async () => {
    const body = await live();
    for (const q of body.queues) {
      expect(q.today.date).to.equal('2026-11-23');
      expect(q.today.offered, q.logName).to.equal(count(q.logName, 'ENTERQUEUE'));
      expect(q.today.abandoned, q.logName).to.equal(count(q.logName, 'ABANDON'));
      expect(q.serviceLevelSeconds).to.equal(30);
      expect(q.today.serviceLevelPercent).to.be.within(1, 100);
    }
  });

  it("when a configured member is not in the PBX's queue, then it is listed as logged out; a queue of no tenant's is never shown", async () => {
    const ext = await app.deps.database.db
      .selectFrom('extensions')
      .select(['id', 'ext_num'])
      .where('ext_num', '=', 204)
      .executeTakeFirstOrThrow();
    const patched = await app.request('PATCH', '/v2/queues/3', { token, body: { members: [ext.id] } });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    peer.write(
      'Event: QueueCallerJoin\r\nQueue: nobodys-queue\r\nUniqueid: 1.1\r\nChannel: PJSIP/x-1\r\nCallerIDNum: 1\r\nPosition: 1\r\nCount: 1\r\n\r\n',
    );
    await settle();
    const body = await live();
    expect(body.queues.map((q) => q.logName)).to.deep.equal(['sales', 'support', 'billing']);
    const billing = body.queues.find((q) => q.logName === 'billing');
    expect(billing?.members.find((m) => m.extNum === 204)).to.include({ state: 'loggedOut', interface: '', extensionId: ext.id });
  });

  it('when /metrics is scraped, then it says which state each AMI link is in and how old its last event is', async () => {
    const res = await app.request('GET', '/metrics');
    const pbx = app.deps.live.pbxs[0]?.label ?? '';
    expect(res.text).to.include(`tars_ami_link{pbx="${pbx}",state="connected"} 1`);
    expect(res.text, 'one process on SQLite holds every link').to.include(`tars_ami_link_held{pbx="${pbx}"} 1`);
    expect(res.text).to.match(new RegExp(`tars_ami_last_event_age_seconds\\{pbx="${pbx.replace(/[.]/g, '\\.')}"\\} \\d`));
    expect(res.text).to.not.include('tars-ami-secret');
  });

  it('when the PBX is down, then the view says so and shows no stale callers or members', async () => {
    peer.goDown();
    await until(() => app.deps.live.pbxs[0]?.status.state !== 'connected');
    const body = await live();
    expect(body.connected).to.equal(false);
    expect(body.pbx[0]?.state).to.be.oneOf(['down', 'connecting']);
    for (const q of body.queues) expect(q).to.include({ live: false, callersWaiting: 0 });
    peer.comeBack();
    await until(() => app.deps.live.pbxs[0]?.status.state === 'connected');
  });

  it("when another tenant's user names the tenant (403) or a caller of several tenants names none (400), then it is refused like every report", async () => {
    const other = await buildTenant(app.deps.database.db);
    const stranger = await buildUser(app.deps.database.db, other.id, ROLE.account);
    const res = await app.request('GET', '/v2/reporting/queues/live', { token: await tokenFor(app, stranger), query: { tenantId: 1 } });
    expect(res.status).to.equal(403);
    const own = await app.request('GET', '/v2/reporting/queues/live', { token: await tokenFor(app, stranger) });
    expect(own.status).to.equal(200);
    expect(own.body).to.include({ tenantId: other.id });
    expect(own.body.queues).to.deep.equal([]);
    const admin = await buildUser(app.deps.database.db, other.id, ROLE.platform);
    const all = await app.request('GET', '/v2/reporting/queues/live', { token: await tokenFor(app, admin) });
    expect(all.status).to.equal(400);
    expect(all.body.message).to.equal('tenantId is required: the caller may see several tenants');
  });
});

describe('GET /v2/reporting/queues/live without a PBX configured', () => {
  it("when no PBX is configured, then the tenant's queues are listed with today's counters and the view says so", async () => {
    const app = await startTestApp();
    try {
      await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(ASTERISK_FIXTURE), new Date());
      const res = await app.request('GET', '/v2/reporting/queues/live', { token: await tokenFor(app, { id: 1 }), query: { tenantId: 1 } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ configured: false, connected: false, lastEventAt: null });
      expect(res.body.pbx).to.deep.equal([]);
      expect(res.body.queues.map((q: LiveQueueBody) => [q.logName, q.live, q.today.offered])).to.deep.equal([
        ['sales', false, 0],
        ['support', false, 0],
        ['billing', false, 0],
      ]);
    } finally {
      await app.close();
    }
  });
});

describe("waits and times in state on TARS's own clock, whatever the PBX's clock says (issue 30)", function () {
  this.timeout(60_000);
  let site: LiveSite;
  before(async () => {
    site = await startLiveSite();
  });
  after(() => site.close());

  it('when a recording is replayed hours after it was made (its events stamped hours ago), then callers wait and members stay in their state from when TARS learned it', async () => {
    const { app, peer, clock } = site;
    const token = await tokenFor(app, await buildUser(app.deps.database.db, 1, ROLE.queues));
    const c = amiTranscript().checkpoints[5] as Checkpoint;
    clock.ms = c.at.getTime() + 6 * 3_600_000; // TARS's clock six hours past the recording (a PBX clock six hours behind)
    const replayedAt = clock.ms;
    peer.playTo(5);
    await site.settle();
    clock.advance(30_000);
    const res = await app.request('GET', '/v2/reporting/queues/live', { token, query: { tenantId: 1 } });
    const queues = res.body.queues as { callers: { waitSeconds: number; waitingSince: string }[]; members: any[] }[];
    const callers = queues.flatMap((q) => q.callers);
    expect(callers.length).to.be.greaterThan(0);
    // Callers who joined during the replay wait 30 s; those in the first snapshot waited their Wait then, plus the hours since.
    const joined = callers.filter((x) => Date.parse(x.waitingSince) >= replayedAt);
    expect(joined.length).to.be.greaterThan(0);
    for (const x of joined) expect(x.waitSeconds).to.equal(30);
    const members = queues.flatMap((q) => q.members).filter((m) => m.state !== 'loggedOut');
    const changed = members.filter((m) => Date.parse(m.stateSince) === replayedAt);
    expect(changed.length, 'members whose state changed during the replay').to.be.greaterThan(0);
    // Either learned at the first snapshot (the site's start) or during the replay: never a PBX time stamp.
    const learned = [(amiTranscript().checkpoints[0] as Checkpoint).at.getTime(), replayedAt];
    for (const m of members) expect(learned, `${m.name} ${m.state}`).to.include(Date.parse(m.stateSince));
    const paused = members.filter((x) => x.paused);
    expect(paused.length).to.be.greaterThan(0);
    for (const m of paused) expect(learned, `${m.name} paused`).to.include(Date.parse(m.pausedSince));
  });
});
