import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { Dispatcher } from '../../src/modules/webhooks/dispatcher';
import { enqueueEvent } from '../../src/modules/webhooks/outbox.repository';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { buildUser, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import { rawSqlite } from '../helpers/engine';

describe('webhook secrets, deliveries list and destination policy (additions)', () => {
  const clock = new TestClock();
  let app: TestApp;
  let receiver: HttpReceiver;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  let hookId: number;

  before(async () => {
    receiver = await startReceiver();
    app = await startTestApp({ clock, env: { TARS_WEBHOOK_ALLOW: '127.0.0.1' } }); // the receiver is on loopback (issue 16)
    cast = await twoTenants(app);
    const res = await app.request('POST', '/v2/webhooks', {
      token: cast.tokenA,
      body: { tenantId: cast.a.id, type: 'ENDCALL', url: `${receiver.url}/in` },
    });
    expect(res.status).to.equal(201);
    hookId = res.body.id;
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  const emit = (n: number) =>
    rawSqlite(app.deps.database).transaction(() =>
      enqueueEvent(
        rawSqlite(app.deps.database),
        { tenantId: cast.a.id, type: 'ENDCALL', occurredAt: new Date().toISOString(), data: { n } },
        clock.now(),
      ),
    )();
  const headersOf = (i: number) => {
    const h = receiver.requests[i]?.headers ?? {};
    return {
      'webhook-id': String(h['webhook-id']),
      'webhook-timestamp': String(h['webhook-timestamp']),
      'webhook-signature': String(h['webhook-signature']),
    };
  };

  it('when the tenant admin reads the secret, then it is whsec_…; another tenant gets 404, a basic user 403', async () => {
    const res = await app.request('GET', `/v2/webhooks/${hookId}/secret`, { token: cast.tokenA });
    expect(res.status).to.equal(200);
    expect(res.body.secret).to.match(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(res.body.previousSecretValidUntil).to.equal(null);
    expectError(await app.request('GET', `/v2/webhooks/${hookId}/secret`, { token: cast.tokenB }), 404);
    const basic = await buildUser(app.deps.database.db, cast.a.id, ROLE.basic);
    expectError(await app.request('GET', `/v2/webhooks/${hookId}/secret`, { token: await tokenFor(app, basic) }), 403);
  });

  it('when the secret is rotated, then deliveries verify with the new secret and, for 24 hours, with the old one too', async () => {
    const old = (await app.request('GET', `/v2/webhooks/${hookId}/secret`, { token: cast.tokenA })).body.secret as string;
    const rotated = await app.request('POST', `/v2/webhooks/${hookId}/secret/rotate`, { token: cast.tokenA });
    expect(rotated.status).to.equal(201);
    expect(rotated.body.secret).not.to.equal(old);
    expect(Date.parse(rotated.body.previousSecretValidUntil) - clock.now()).to.equal(24 * 3600 * 1000);
    emit(1);
    await new Dispatcher(app.deps).drain();
    const body = receiver.requests[0]?.body as string;
    expect(new Webhook(rotated.body.secret).verify(body, headersOf(0))).to.deep.include({ data: { n: 1 } });
    expect(new Webhook(old).verify(body, headersOf(0))).to.deep.include({ data: { n: 1 } });

    clock.advance(24 * 3600 * 1000 + 1);
    emit(2);
    await new Dispatcher(app.deps).drain();
    const later = receiver.requests[1]?.body as string;
    expect(new Webhook(rotated.body.secret).verify(later, headersOf(1))).to.deep.include({ data: { n: 2 } });
    expect(() => new Webhook(old).verify(later, headersOf(1))).to.throw();
  });

  it('when deliveries are listed, then they come newest first with status, attempts and response code', async () => {
    receiver.status = 503;
    emit(3);
    await new Dispatcher(app.deps).drain();
    const res = await app.request('GET', `/v2/webhooks/${hookId}/deliveries`, { token: cast.tokenA, query: { recordsPerPage: 2 } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ page: 1, total: 3, maxPage: 2 });
    expect(
      res.body.records.map((d: { status: string; lastStatusCode: number; attempts: number }) => [d.status, d.lastStatusCode, d.attempts]),
    ).to.deep.equal([
      ['retry', 503, 1],
      ['delivered', 200, 1],
    ]);
    expect(res.body.records[0].nextAttemptAt).to.be.a('string');
    receiver.status = 200;
  });

  it('when a webhook names a link-local or metadata address, then 400 naming url on create and on update', async () => {
    const create = await app.request('POST', '/v2/webhooks', {
      token: cast.tokenA,
      body: { tenantId: cast.a.id, type: 'ENDCALL', url: 'http://169.254.169.254/latest' },
    });
    expectError(create, 400, ['url']);
    expect(create.body.message).to.include('169.254.169.254');
    expectError(await app.request('PATCH', `/v2/webhooks/${hookId}`, { token: cast.tokenA, body: { url: 'http://[fe80::1]/x' } }), 400, [
      'url',
    ]);
  });
});
