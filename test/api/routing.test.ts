import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

// Routes are looked up in a radix tree (find-my-way, src/http/route.ts): every answer stays the one Express gave.
describe('the route table', () => {
  let app: TestApp;
  let token: string;
  before(async () => {
    app = await startTestApp();
    const db = app.deps.database.db;
    token = await tokenFor(app, await buildUser(db, (await buildTenant(db)).id, ROLE.account));
  });
  after(() => app.close());

  it('when a path parameter is %-encoded or empty, then the route gets it decoded, and an empty one matches no route', async () => {
    const db = app.deps.database.db;
    const tenant = await buildTenant(db);
    const branch = await buildBranch(db, tenant.id, { name: 'Encoded' });
    const admin = await tokenFor(app, await buildUser(db, tenant.id, ROLE.account));
    const digits = [...String(branch.id)].map((d) => `%${d.charCodeAt(0).toString(16)}`).join('');
    const encoded = await app.request('GET', `/v2/admin/branches/${digits}`, { token: admin });
    expect([encoded.status, encoded.body.id, encoded.body.name]).to.deep.equal([200, branch.id, 'Encoded']);
    const empty = await app.request('GET', '/v2/webhooks//deliveries', { token: admin });
    expect([empty.status, empty.body.message]).to.deep.equal([404, 'Route GET /v2/webhooks//deliveries not found']);
  });

  it('when a fixed path is declared before a parameterised one of its group, then the fixed one still answers', async () => {
    const res = await app.request('GET', '/v2/webhooks/list-types', { token });
    expect(res.status).to.equal(200);
    expect(res.body).to.be.an('array').that.is.not.empty;
    expect(res.body[0]).to.have.keys(['type', 'description']);
  });

  it('when asked with OPTIONS, HEAD or a method the path has no route for, then it answers as Express did', async () => {
    const options = await app.request('OPTIONS', '/v2/webhooks/1');
    expect([options.status, options.headers.get('allow'), options.text]).to.deep.equal([
      200,
      'DELETE, GET, HEAD, PATCH',
      'DELETE, GET, HEAD, PATCH',
    ]);
    expect((await app.request('OPTIONS', '/v2/nothing/here')).status).to.equal(404);
    const head = await app.request('HEAD', '/v2/webhooks/list-types', { token });
    expect([head.status, head.headers.get('content-type'), head.text]).to.deep.equal([200, 'application/json; charset=utf-8', '']);
    const put = await app.request('PUT', '/v2/webhooks/1', { token, body: {} });
    expect([put.status, put.body.message]).to.deep.equal([404, 'Route PUT /v2/webhooks/1 not found']);
  });

  it('when a path parameter has a malformed %-escape, then the answer is a 400 in the error shape', async () => {
    const res = await app.request('GET', '/v2/webhooks/%zz', { token });
    expect([res.status, res.body.name, res.body.code]).to.deep.equal([400, 'BadRequest', 400]);
  });

  it('when a record is answered, then as res.json would: JSON with its charset and the length in bytes', async () => {
    const db = app.deps.database.db;
    const tenant = await buildTenant(db);
    const branch = await buildBranch(db, tenant.id, { name: 'Zürich Ünïcode' });
    const admin = await tokenFor(app, await buildUser(db, tenant.id, ROLE.account));
    const res = await app.request('GET', `/v2/admin/branches/${branch.id}`, { token: admin });
    expect([res.status, res.body.name]).to.deep.equal([200, 'Zürich Ünïcode']);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length')))
      .to.equal(Buffer.byteLength(res.text))
      .and.be.greaterThan(res.text.length);
  });

  it('when a path has a trailing slash, another case, a doubled slash or no route in its group, then it is answered as before', async () => {
    expect((await app.request('GET', '/healthz/')).status).to.equal(200);
    expect((await app.request('GET', '/v2/webhooks/list-types/', { token })).status).to.equal(200);
    for (const path of ['/V2/webhooks/list-types', '//v2/webhooks/list-types', '/v2/webhooks/1/nothing', '/v2/nothing', '/v2']) {
      const res = await app.request('GET', path, { token });
      expect([path, res.status, res.body.message]).to.deep.equal([path, 404, `Route GET ${path} not found`]);
    }
  });
});
