import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { expectError } from '../helpers/errors';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { SseClient } from '../helpers/sse';
import { until } from '../helpers/until';

/** The recorded run's site: tenant 1, queues sales (1), support (2), billing (3). */
describe('wallboard links: a read-only token to the live state of some queues of one tenant (TV mode, issue 30)', function () {
  this.timeout(60_000);
  let site: LiveSite;
  let manager: string;
  const clients: SseClient[] = [];
  const app = () => site.app;
  const make = (body: unknown, token = manager) => app().request('POST', '/v2/wallboard-links', { token, body });
  const read = (linkToken: string) => app().request('GET', '/v2/wallboard/live', { headers: { authorization: `Bearer ${linkToken}` } });
  const stream = async (linkToken: string) => {
    const c = await SseClient.open(`${app().url}/v2/wallboard/live/stream`, linkToken);
    clients.push(c);
    return c;
  };

  before(async () => {
    site = await startLiveSite(); // streams checked every 10 s: a revoked link must end them at once, not at a check
    manager = await tokenFor(app(), await buildUser(app().deps.database.db, 1, ROLE.queues));
  });
  after(async () => {
    for (const c of clients) c.close();
    await site.close();
  });

  it('when a queue manager makes a link, then its token (shown once, kept as a hash) reads those queues only, in that order, with the PBX unnamed', async () => {
    const res = await make({ name: 'Sales floor TV', queueIds: [3, 1] });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ tenantId: 1, name: 'Sales floor TV', lastUsedAt: null });
    expect(res.body.queueIds).to.deep.equal([3, 1]);
    expect(res.body.token).to.match(/^tarswb_[A-Za-z0-9_-]{43}$/);
    expect(res.body.tvPath).to.equal(`/tv#${res.body.token}`);
    const stored = await app()
      .deps.database.db.selectFrom('wallboard_links')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.token_hash).to.equal(createHash('sha256').update(res.body.token).digest('hex'));
    expect(JSON.stringify(stored)).not.to.include(res.body.token);

    const listed = await app().request('GET', '/v2/wallboard-links', { token: manager, query: { tenantId: 1 } });
    expect(listed.status).to.equal(200);
    expect(listed.text).not.to.include('tarswb_');
    expect(listed.body.map((l: { id: number }) => l.id)).to.include(res.body.id);

    const live = await read(res.body.token);
    expect(live.status, live.text).to.equal(200);
    expect(live.body.name).to.equal('Sales floor TV');
    expect(live.body.live.queues.map((q: { logName: string }) => q.logName)).to.deep.equal(['billing', 'sales']);
    expect(live.body.live.pbx).to.have.length(1);
    expect(live.body.live.pbx[0]).to.include({ label: 'PBX 1', state: 'connected', reason: null });
    expect(live.text).not.to.include('127.0.0.1'); // the AMI address
    const used = await app().request('GET', '/v2/wallboard-links', { token: manager });
    expect(used.body.find((l: { id: number }) => l.id === res.body.id).lastUsedAt).to.equal(new Date(site.clock.now()).toISOString());
  });

  it('when the stream is read with the token, then it gets the link queues whole and changes of those queues only', async () => {
    const { body } = await make({ name: 'Support only', queueIds: [2] });
    const c = await stream(body.token);
    expect(c.status).to.equal(200);
    const first = await c.nth(1);
    expect(first.event).to.equal('state');
    expect(first.data.queues.map((q: { queueId: number }) => q.queueId)).to.deep.equal([2]);
    expect(first.data.pbx[0].label).to.equal('PBX 1');
    site.peer.playTo(6);
    await site.settle();
    await until(() => c.events.length > 1, { what: 'a change of support' });
    await site.settle();
    for (const e of c.events.slice(1))
      expect(e.event === 'state' ? e.data.queues.map((q: any) => q.queueId) : [e.data.queueId]).to.deep.equal([2]);
  });

  it('when the link is revoked, then its token is refused at once and every open stream of it ends', async () => {
    const { body } = await make({ name: 'Revoked soon', queueIds: [1] });
    const a = await stream(body.token);
    const b = await stream(body.token);
    await a.nth(1);
    await b.nth(1);
    const revoked = await app().request('DELETE', `/v2/wallboard-links/${body.id}`, { token: manager });
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.include({ id: body.id, name: 'Revoked soon' });
    await until(() => a.ended && b.ended, { what: 'both streams to end', ms: 2000 });
    expectError(await read(body.token), 401);
    const again = await stream(body.token);
    expect(again.status).to.equal(401);
    expectError(await app().request('DELETE', `/v2/wallboard-links/${body.id}`, { token: manager }), 404);
  });

  it('when the token is sent to any other route, or an access token or a malformed one to the wallboard routes, then 401', async () => {
    const { body } = await make({ name: 'Only live state', queueIds: [1] });
    for (const [method, path] of [
      ['GET', '/v2/reporting/queues/live?tenantId=1'],
      ['GET', '/v2/reporting/queues/live/stream?tenantId=1'],
      ['GET', '/v2/users/me'],
      ['GET', '/v2/wallboard-links'],
      ['POST', '/v2/queues/agent-pause'],
      ['GET', '/v2/queues/1'],
    ] as const)
      expectError(await app().request(method, path, { headers: { authorization: `Bearer ${body.token}` } }), 401);
    expectError(await read(manager), 401);
    expectError(await read(`${body.token}x`), 401);
    expectError(await app().request('GET', '/v2/wallboard/live'), 401);
    expectError(await app().request('GET', '/v2/wallboard/live', { headers: { authorization: body.token } }), 401);
  });

  it("when a link names a queue of another tenant or none, then 400 naming queueIds and nothing is stored; another tenant's link cannot be revoked", async () => {
    const db = app().deps.database.db;
    const other = await buildTenant(db);
    const foreignQueue = await db
      .insertInto('queues')
      .values({ tenant_id: other.id, name: 'Theirs', log_name: 'theirs' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const before = await db.selectFrom('wallboard_links').select('id').execute();
    expectError(await make({ name: 'Bad', queueIds: [1, foreignQueue.id] }), 400, ['queueIds']);
    expectError(await make({ name: 'Bad', queueIds: [987654] }), 400, ['queueIds']);
    expectError(await make({ name: 'Bad', queueIds: [] }), 400, ['queueIds']);
    expectError(await make({ name: 'Line\nbreak', queueIds: [1] }), 400, ['name']);
    expectError(await make({ tenantId: other.id, name: 'Theirs', queueIds: [foreignQueue.id] }), 403);
    expect(await db.selectFrom('wallboard_links').select('id').execute()).to.deep.equal(before);

    const otherManager = await tokenFor(app(), await buildUser(db, other.id, ROLE.queues));
    const theirs = await make({ name: 'Theirs', queueIds: [foreignQueue.id] }, otherManager);
    expect(theirs.status).to.equal(201);
    expectError(await app().request('DELETE', `/v2/wallboard-links/${theirs.body.id}`, { token: manager }), 404);
    expect((await read(theirs.body.token)).status).to.equal(200);
    const basic = await tokenFor(app(), await buildUser(db, 1, ROLE.basic));
    expectError(await make({ name: 'Not mine to make', queueIds: [1] }, basic), 403);
  });
});
