import { expect } from 'chai';
import { Dispatcher } from '../../src/modules/webhooks/dispatcher';
import { enqueueEvent } from '../../src/modules/webhooks/outbox.repository';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { rawSqlite } from '../helpers/engine';

/** POST /v2/webhooks/{webhookId}/deliveries/{deliveryId}/retry, against a real HTTP receiver on loopback. */
describe('retrying a failed webhook delivery (issue 31)', function () {
  this.timeout(30_000);
  const clock = new TestClock();
  let app: TestApp;
  let receiver: HttpReceiver;
  let tenantId: number;
  let token: string;
  let webhookId: number;

  const drain = () => new Dispatcher(app.deps).drain();
  const emit = (data: unknown) => {
    const event = { tenantId, type: 'ENDCALL', occurredAt: new Date(clock.now()).toISOString(), data };
    rawSqlite(app.deps.database).transaction(() => enqueueEvent(rawSqlite(app.deps.database), event, clock.now()))();
  };
  const deliveries = async () =>
    (await app.request('GET', `/v2/webhooks/${webhookId}/deliveries`, { token })).body.records as Array<Record<string, unknown>>;
  const retry = (deliveryId: unknown, as = token, hook = webhookId) =>
    app.request('POST', `/v2/webhooks/${hook}/deliveries/${String(deliveryId)}/retry`, { token: as });

  beforeEach(async () => {
    receiver = await startReceiver();
    app = await startTestApp({ clock, env: { TARS_WEBHOOK_TIMEOUT: '1s', TARS_WEBHOOK_ATTEMPTS: '3', TARS_WEBHOOK_ALLOW: '127.0.0.1' } });
    tenantId = (await buildTenant(app.deps.database.db)).id;
    token = await tokenFor(app, await buildUser(app.deps.database.db, tenantId, ROLE.account));
    const made = await app.request('POST', '/v2/webhooks', { token, body: { tenantId, type: 'ENDCALL', url: `${receiver.url}/hook` } });
    webhookId = made.body.id;
  });
  afterEach(async () => {
    await app.close();
    await receiver.close();
  });

  it('when a delivery the receiver refused is retried, then it arrives again with the same webhook-id and body and is delivered', async () => {
    receiver.status = 400;
    emit({ n: 1 });
    await drain();
    const [failed] = await deliveries();
    expect(failed).to.include({ status: 'failed', attempts: 1, lastStatusCode: 400 });
    receiver.status = 204;
    const res = await retry(failed?.id);
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ id: failed?.id, messageId: failed?.messageId, status: 'retry', attempts: 0 });
    expect(await drain()).to.equal(1);
    const [first, second] = receiver.requests;
    expect(second?.headers['webhook-id']).to.equal(failed?.messageId);
    expect(second?.headers['webhook-id']).to.equal(first?.headers['webhook-id']);
    expect(second?.body).to.equal(first?.body);
    expect((await deliveries())[0]).to.include({ status: 'delivered', attempts: 1, lastStatusCode: 204 });
  });

  it('when two retries of one delivery come at once, then one re-queues it and the other is 409; it is sent once', async () => {
    receiver.status = 404;
    emit({ n: 2 });
    await drain();
    const [failed] = await deliveries();
    receiver.status = 200;
    const answers = await Promise.all([retry(failed?.id), retry(failed?.id)]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 409]);
    await drain();
    expect(receiver.requests).to.have.length(2);
  });

  it("when a delivered or waiting delivery, another tenant's, or one of another webhook is retried, then 409 or 404 and nothing changes", async () => {
    emit({ n: 3 });
    await drain();
    const [delivered] = await deliveries();
    expect(delivered?.status).to.equal('delivered');
    const before = await deliveries();
    expectError(await retry(delivered?.id), 409);
    const stranger = await buildTenant(app.deps.database.db);
    const strangerToken = await tokenFor(app, await buildUser(app.deps.database.db, stranger.id, ROLE.account));
    expectError(await retry(delivered?.id, strangerToken), 404);
    const own = await app.request('POST', '/v2/webhooks', {
      token: strangerToken,
      body: { tenantId: stranger.id, type: 'ENDCALL', url: `${receiver.url}/other` },
    });
    expectError(await retry(delivered?.id, strangerToken, own.body.id), 404);
    const reader = await tokenFor(app, await buildUser(app.deps.database.db, tenantId, ROLE.reports));
    expectError(await retry(delivered?.id, reader), 403);
    expect(await deliveries()).to.deep.equal(before);
    expect(receiver.requests).to.have.length(1);
  });

  it('when the receiver answered 410 and disabled the webhook, then a retry is 409 until the webhook is saved again', async () => {
    receiver.status = 410;
    emit({ n: 4 });
    await drain();
    const [gone] = await deliveries();
    expect(gone?.status).to.equal('gone');
    const refused = await retry(gone?.id);
    expectError(refused, 409);
    expect(refused.body.message).to.match(/disabled .*save it again/);
    await app.request('PATCH', `/v2/webhooks/${webhookId}`, { token, body: { url: `${receiver.url}/hook` } });
    receiver.status = 200;
    expect((await retry(gone?.id)).status).to.equal(201);
    await drain();
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).to.deep.equal([gone?.messageId, gone?.messageId]);
  });
});
