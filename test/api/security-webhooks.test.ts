import { expect } from 'chai';
import type { AppDeps } from '../../src/deps';
import { Dispatcher } from '../../src/modules/webhooks/dispatcher';
import { enqueueEvent } from '../../src/modules/webhooks/outbox.repository';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { twoTenants } from '../helpers/factories';
import { rawSqlite } from '../helpers/engine';

const LOOPBACK_URLS = [
  'http://127.0.0.1:9/x',
  'http://127.8.9.10/',
  'http://[::1]:80/',
  'http://[::]:8080/',
  'http://0.0.0.0:22/',
  'http://[::ffff:127.0.0.1]:80/',
  'http://[::ffff:7f00:1]/',
  'http://[::127.0.0.1]/',
];

async function appWith(env: Record<string, string>, clock = new TestClock()) {
  const app = await startTestApp({ clock, env: { TARS_WEBHOOK_TIMEOUT: '1s', TARS_WEBHOOK_ATTEMPTS: '3', ...env } });
  return { app, cast: await twoTenants(app) };
}

const create = (app: TestApp, token: string, tenantId: number, over: Record<string, unknown>) =>
  app.request('POST', '/v2/webhooks', { token, body: { tenantId, type: 'ENDCALL', url: 'https://hooks.example.test/in', ...over } });

function emit(deps: AppDeps, tenantId: number, now: number): void {
  const event = { tenantId, type: 'ENDCALL', occurredAt: new Date(now).toISOString(), data: { n: 1 } };
  rawSqlite(deps.database).transaction(() => enqueueEvent(rawSqlite(deps.database), event, now))();
}

const deliveryOf = (app: TestApp, webhookId: number) =>
  app.deps.database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();

describe('security: webhooks cannot reach loopback by default (issue 16, point 5)', function () {
  this.timeout(60_000);
  let receiver: HttpReceiver;
  let open: TestApp | undefined;

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await open?.close();
    open = undefined;
    await receiver.close();
  });

  it('when nothing is configured, then loopback and unspecified URLs (IPv4, IPv6, IPv4-mapped) are refused with 400 naming url; LAN addresses are allowed', async () => {
    const { app, cast } = await appWith({});
    open = app;
    for (const url of LOOPBACK_URLS) expectError(await create(app, cast.tokenA, cast.a.id, { url }), 400, ['url']);
    for (const url of ['http://10.1.2.3/hook', 'http://192.168.1.20:8080/crm', 'http://172.16.0.5/'])
      expect((await create(app, cast.tokenA, cast.a.id, { url })).status, url).to.equal(201);
  });

  it('when a webhook names localhost or a *.localhost name, then it is refused when saved (RFC 6761: always loopback), with 400 naming url (issue 30)', async () => {
    const { app, cast } = await appWith({});
    open = app;
    for (const url of [
      'http://localhost:8080/hook',
      'https://LOCALHOST/',
      'http://localhost./x',
      'http://crm.localhost/in',
      'http://a.b.Localhost:9/',
    ]) {
      const res = await create(app, cast.tokenA, cast.a.id, { url });
      expectError(res, 400, ['url']);
      expect(res.body.message, url).to.match(/loopback \(RFC 6761\)/);
    }
    const hook = await create(app, cast.tokenA, cast.a.id, { url: 'https://hooks.example.test/in' });
    expectError(
      await app.request('PATCH', `/v2/webhooks/${hook.body.id}`, { token: cast.tokenA, body: { url: 'http://localhost/' } }),
      400,
      ['url'],
    );
    // Names that only look like it are not loopback.
    for (const url of ['http://localhost.example.test/', 'http://mylocalhost/', 'http://localhost-crm.example.test/'])
      expect((await create(app, cast.tokenA, cast.a.id, { url })).status, url).to.equal(201);
  });

  it('when a webhook saved before that rule names localhost, then the delivery is still refused at connect time for the loopback address it resolves to, and the receiver gets nothing', async () => {
    const { app, cast } = await appWith({});
    open = app;
    const hook = await create(app, cast.tokenA, cast.a.id, { url: 'https://hooks.example.test/in' });
    await app.deps.database.db
      .updateTable('webhooks')
      .set({ url: `http://localhost:${receiver.port}/hook` })
      .where('id', '=', hook.body.id)
      .execute();
    emit(app.deps, cast.a.id, app.deps.clock.now());
    await new Dispatcher(app.deps).drain();
    const d = await deliveryOf(app, hook.body.id);
    expect(d.status).to.equal('failed');
    expect(d.last_error).to.match(/(127\.0\.0\.1|::1) is not a permitted webhook destination/);
    expect(receiver.requests).to.deep.equal([]);
  });

  it('when TARS_WEBHOOK_ALLOW names 127.0.0.1 or localhost, then a localhost webhook is saved', async () => {
    for (const allow of ['127.0.0.1', 'localhost']) {
      const { app, cast } = await appWith({ TARS_WEBHOOK_ALLOW: allow });
      try {
        expect((await create(app, cast.tokenA, cast.a.id, { url: `http://localhost:${receiver.port}/hook` })).status, allow).to.equal(201);
      } finally {
        await app.close();
      }
    }
  });

  it('when TARS_WEBHOOK_ALLOW names 127.0.0.1, then a receiver there gets the delivery (the explicit allow wins over the default deny)', async () => {
    const { app, cast } = await appWith({ TARS_WEBHOOK_ALLOW: '127.0.0.1' });
    open = app;
    const hook = await create(app, cast.tokenA, cast.a.id, { url: `${receiver.url}/hook` });
    expect(hook.status).to.equal(201);
    expectError(await create(app, cast.tokenA, cast.a.id, { url: 'http://[::1]:80/' }), 400, ['url']);
    emit(app.deps, cast.a.id, app.deps.clock.now());
    await new Dispatcher(app.deps).drain();
    expect(receiver.requests).to.have.length(1);
  });

  it('when TARS_WEBHOOK_DENY is set, then it adds to the default list, and it wins over TARS_WEBHOOK_ALLOW', async () => {
    const added = await appWith({ TARS_WEBHOOK_DENY: '10.9.9.0/24' });
    try {
      expectError(await create(added.app, added.cast.tokenA, added.cast.a.id, { url: 'http://10.9.9.9/' }), 400, ['url']);
      expectError(await create(added.app, added.cast.tokenA, added.cast.a.id, { url: 'http://127.0.0.1/' }), 400, ['url']);
      expectError(await create(added.app, added.cast.tokenA, added.cast.a.id, { url: 'http://169.254.169.254/' }), 400, ['url']);
    } finally {
      await added.app.close();
    }
    const both = await appWith({ TARS_WEBHOOK_ALLOW: '127.0.0.1', TARS_WEBHOOK_DENY: '127.0.0.0/8' });
    open = both.app;
    expectError(await create(both.app, both.cast.tokenA, both.cast.a.id, { url: `${receiver.url}/hook` }), 400, ['url']);
  });
});

describe('security: a webhook credential cannot jam its deliveries (issue 16, point 6)', function () {
  this.timeout(60_000);
  const clock = new TestClock();
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  let receiver: HttpReceiver;

  before(async () => {
    receiver = await startReceiver();
    ({ app, cast } = await appWith({ TARS_WEBHOOK_ALLOW: '127.0.0.1' }, clock));
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  const BAD = ['tok\r\nX-Evil: 1', 'tok\u0000', 'tok\n', 'tök€n', 'jeton 🙂', '\u0085'];

  it('when authtoken, username or password holds CR/LF, NUL or text beyond Latin-1, then create and update answer 400 naming the field and nothing changes', async () => {
    for (const field of ['authtoken', 'username', 'password']) {
      for (const value of BAD) expectError(await create(app, cast.tokenA, cast.a.id, { [field]: value }), 400, [field]);
    }
    const hook = await create(app, cast.tokenA, cast.a.id, { authtoken: 'Latin-1 is fine: café' });
    expect(hook.status).to.equal(201);
    for (const value of BAD)
      expectError(await app.request('PATCH', `/v2/webhooks/${hook.body.id}`, { token: cast.tokenA, body: { authtoken: value } }), 400, [
        'authtoken',
      ]);
    expect((await app.request('GET', `/v2/webhooks/${hook.body.id}`, { token: cast.tokenA })).body.authtoken).to.equal(
      'Latin-1 is fine: café',
    );
  });

  it('when a stored credential makes every delivery throw, then each attempt ends with lastError set and the attempts stop at the maximum', async () => {
    // Stored before this check existed: written straight into the table.
    const hook = await create(app, cast.tokenA, cast.a.id, { url: `${receiver.url}/hook`, authtoken: 'placeholder' });
    await app.deps.database.db.updateTable('webhooks').set({ authtoken: 'tok\r\nX-Evil: 1' }).where('id', '=', hook.body.id).execute();
    emit(app.deps, cast.a.id, clock.now());
    for (let i = 0; i < 6; i++) {
      await new Dispatcher(app.deps).drain();
      clock.advance(60 * 60 * 1000);
    }
    const d = await deliveryOf(app, hook.body.id);
    expect(d).to.include({ status: 'failed', attempts: 3 });
    expect(d.last_error).to.match(/Invalid character|ERR_INVALID_CHAR|the delivery failed/i);
    const attempts = await app.deps.database.db
      .selectFrom('webhook_attempts')
      .select(['attempt', 'error'])
      .where('delivery_id', '=', d.id)
      .orderBy('attempt')
      .execute();
    expect(attempts.map((a) => a.attempt)).to.deep.equal([1, 2, 3]);
    expect(attempts.every((a) => typeof a.error === 'string' && a.error.length > 0)).to.equal(true);
    expect(receiver.requests).to.deep.equal([]);
  });

  it('when a delivery was left delivering with its attempts used up (a crash), then it is marked failed without a fourth attempt', async () => {
    const hook = await create(app, cast.tokenA, cast.a.id, { url: `${receiver.url}/hook` });
    emit(app.deps, cast.a.id, clock.now());
    const { db } = app.deps.database;
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'delivering', attempts: 3, lease_until: clock.now() - 1 })
      .where('webhook_id', '=', hook.body.id)
      .execute();
    await new Dispatcher(app.deps).drain();
    const d = await deliveryOf(app, hook.body.id);
    expect(d).to.include({ status: 'failed', attempts: 3 });
    expect(d.last_error).to.match(/gave up after 3 attempts/);
    expect(receiver.requests).to.deep.equal([]);
  });
});
