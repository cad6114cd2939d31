import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { AppDeps } from '../../src/deps';
import { Dispatcher, retryDelay } from '../../src/modules/webhooks/dispatcher';
import { enqueueEvent, type WebhookEvent } from '../../src/modules/webhooks/outbox.repository';
import { insertWebhook, type WebhookInput } from '../../src/modules/webhooks/webhooks.repository';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { buildTenant } from '../helpers/factories';
import { rawSqlite } from '../helpers/engine';

/** The receiver listens on loopback, which webhooks may reach only when the operator names it (issue 16). */
const RECEIVER_ALLOWED = { TARS_WEBHOOK_ALLOW: '127.0.0.1' };

describe('webhook delivery (outbox and dispatcher)', function () {
  this.timeout(60_000);
  const clock = new TestClock();
  let app: TestApp;
  let receiver: HttpReceiver;
  let tenantId: number;

  const hook = async (over: Partial<WebhookInput> = {}) => {
    const id = await insertWebhook(
      app.deps.database.db,
      { tenantId, type: 'ENDCALL', url: `${receiver.url}/hook`, ...over },
      new Date().toISOString(),
    );
    const row = await app.deps.database.db.selectFrom('webhooks').select('secret').where('id', '=', id).executeTakeFirstOrThrow();
    return { id, secret: row.secret };
  };
  const emit = (deps: AppDeps, data: unknown, type = 'ENDCALL') => {
    const event: WebhookEvent = { tenantId, type, occurredAt: new Date(clock.now()).toISOString(), data };
    return rawSqlite(deps.database).transaction(() => enqueueEvent(rawSqlite(deps.database), event, clock.now()))();
  };
  const deliveries = (webhookId: number) =>
    app.deps.database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id').execute();
  const drain = (deps: AppDeps = app.deps) => new Dispatcher(deps).drain();

  beforeEach(async () => {
    receiver = await startReceiver();
    app = await startTestApp({ clock, env: { TARS_WEBHOOK_TIMEOUT: '1s', TARS_WEBHOOK_ATTEMPTS: '4', ...RECEIVER_ALLOWED } });
    tenantId = (await buildTenant(app.deps.database.db)).id;
  });
  afterEach(async () => {
    await app.close();
    await receiver.close();
  });

  it('when an event is delivered, then it is a signed JSON POST with Basic auth that standardwebhooks verifies', async () => {
    const { id, secret } = await hook({ username: 'hookuser', password: 'hookpass' });
    expect(emit(app.deps, { uniqueId: '1793427703.100' })).to.equal(1);
    expect(await drain()).to.equal(1);
    const [req] = receiver.requests;
    expect(req?.path).to.equal('/hook');
    expect(req?.headers.authorization).to.equal(`Basic ${Buffer.from('hookuser:hookpass').toString('base64')}`);
    expect(req?.headers['content-type']).to.equal('application/json');
    const verified = new Webhook(secret).verify(req?.body as string, {
      'webhook-id': String(req?.headers['webhook-id']),
      'webhook-timestamp': String(req?.headers['webhook-timestamp']),
      'webhook-signature': String(req?.headers['webhook-signature']),
    }) as Record<string, unknown>;
    expect(verified).to.deep.include({ type: 'ENDCALL', tenantId, data: { uniqueId: '1793427703.100' } });
    expect(verified.id).to.equal(req?.headers['webhook-id']);
    expect((await deliveries(id))[0]).to.include({ status: 'delivered', attempts: 1, last_status_code: 200 });
  });

  it('when only an authtoken is set, then it is sent as a Bearer token; a webhook of another type or tenant gets nothing', async () => {
    await hook({ authtoken: 'tok-123' });
    const other = await hook({ type: 'STARTCALL' });
    emit(app.deps, {});
    await drain();
    expect(receiver.requests).to.have.length(1);
    expect(receiver.requests[0]?.headers.authorization).to.equal('Bearer tok-123');
    expect(await deliveries(other.id)).to.deep.equal([]);
  });

  it('when the receiver answers 500 and then recovers, then the delivery is retried with the same webhook-id after the backoff', async () => {
    const { id } = await hook();
    receiver.status = 500;
    emit(app.deps, { n: 1 });
    expect(await drain()).to.equal(1);
    const [first] = await deliveries(id);
    expect(first).to.include({ status: 'retry', attempts: 1, last_status_code: 500 });
    expect(await drain(), 'not before the backoff has passed').to.equal(0);
    receiver.status = 204;
    clock.advance((first?.next_attempt_at ?? 0) - clock.now());
    expect(await drain()).to.equal(1);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).to.deep.equal([first?.message_id, first?.message_id]);
    const attempts = await app.deps.database.db
      .selectFrom('webhook_attempts')
      .select(['attempt', 'status_code'])
      .where('delivery_id', '=', first?.id as number)
      .orderBy('attempt')
      .execute();
    expect(attempts).to.deep.equal([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 204 },
    ]);
  });

  it('when the receiver is down, then deliveries wait and, once it is back, arrive in order', async () => {
    const { id } = await hook();
    await receiver.stop();
    for (let n = 1; n <= 3; n++) emit(app.deps, { n });
    expect(await drain()).to.equal(1);
    expect(
      (await deliveries(id)).map((d) => d.status),
      'only the head was tried',
    ).to.deep.equal(['retry', 'pending', 'pending']);
    await receiver.start();
    clock.advance(10 * 60 * 1000);
    expect(await drain()).to.equal(3);
    expect(receiver.requests.map((r) => JSON.parse(r.body).data.n)).to.deep.equal([1, 2, 3]);
  });

  it('when the receiver answers 410 Gone, then the webhook is disabled, its queue given up, and new events skip it', async () => {
    const { id } = await hook();
    receiver.status = 410;
    emit(app.deps, { n: 1 });
    emit(app.deps, { n: 2 });
    await drain();
    expect((await deliveries(id)).map((d) => d.status)).to.deep.equal(['gone', 'failed']);
    const row = await app.deps.database.db
      .selectFrom('webhooks')
      .select(['disabled_at', 'disabled_reason'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.disabled_reason).to.include('410');
    expect(emit(app.deps, { n: 3 })).to.equal(0);
    expect(receiver.requests).to.have.length(1);
  });

  it('when the receiver answers another 4xx, then that delivery is final and the next one goes out', async () => {
    const { id } = await hook();
    receiver.respond = (r) => (JSON.parse(r.body).data.n === 1 ? 422 : 200);
    emit(app.deps, { n: 1 });
    emit(app.deps, { n: 2 });
    await drain();
    expect((await deliveries(id)).map((d) => d.status)).to.deep.equal(['failed', 'delivered']);
  });

  it('when every attempt fails (timeouts), then the delivery is marked failed after the configured attempts', async () => {
    const { id } = await hook();
    receiver.respond = () => 'hang';
    emit(app.deps, {});
    for (let i = 0; i < 4; i++) {
      await drain();
      clock.advance(2 * 60 * 60 * 1000);
    }
    const [d] = await deliveries(id);
    expect(d).to.include({ status: 'failed', attempts: 4 });
    expect(d?.last_error).to.include('no answer within 1000 ms');
  });

  it('when the server restarts with deliveries pending, then they are delivered once', async () => {
    await hook();
    emit(app.deps, { n: 1 });
    const restarted = await startTestApp({ clock, dataDir: app.dataDir, env: RECEIVER_ALLOWED });
    try {
      expect(await drain(restarted.deps)).to.equal(1);
      expect(await drain(app.deps)).to.equal(0);
    } finally {
      await restarted.close();
    }
    expect(receiver.requests).to.have.length(1);
  });

  it('when two processes share the data directory, then each delivery is sent once', async () => {
    await hook();
    for (let n = 0; n < 20; n++) emit(app.deps, { n });
    const second = await startTestApp({ clock, dataDir: app.dataDir, env: RECEIVER_ALLOWED });
    try {
      await Promise.all([drain(), drain(second.deps)]);
    } finally {
      await second.close();
    }
    expect(receiver.requests.map((r) => JSON.parse(r.body).data.n)).to.deep.equal([...Array(20).keys()]);
  });

  it('when a webhook points at a metadata address, then nothing is sent and the delivery fails, saying why', async () => {
    const { id } = await hook({ url: 'http://169.254.169.254/latest/meta-data' });
    emit(app.deps, {});
    await drain();
    const [d] = await deliveries(id);
    expect(d).to.include({ status: 'failed' });
    expect(d?.last_error).to.include('deny list');
  });

  it('when 1,000 events flood one webhook, then all arrive in order while the API keeps answering', async () => {
    await hook();
    rawSqlite(app.deps.database).transaction(() => {
      for (let n = 0; n < 1000; n++)
        enqueueEvent(
          rawSqlite(app.deps.database),
          { tenantId, type: 'ENDCALL', occurredAt: new Date().toISOString(), data: { n } },
          clock.now(),
        );
    })();
    let answered = 0;
    let draining = true;
    const probes = (async () => {
      while (draining) {
        const res = await app.request('GET', '/healthz');
        if (res.status === 200) answered++;
      }
    })();
    await drain();
    draining = false;
    await probes;
    expect(receiver.requests.map((r) => JSON.parse(r.body).data.n)).to.deep.equal([...Array(1000).keys()]);
    expect(answered, 'health checks answered during the flood').to.be.greaterThan(10);
  });

  it('when backoff is computed, then it doubles from the base with jitter and stops at an hour', () => {
    expect(retryDelay(10_000, 1, () => 0)).to.equal(5_000);
    expect(retryDelay(10_000, 1, () => 1)).to.equal(10_000);
    expect(retryDelay(10_000, 4, () => 1)).to.equal(80_000);
    expect(retryDelay(10_000, 30, () => 1)).to.equal(3_600_000);
  });
});
