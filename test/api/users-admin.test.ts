import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { rowCount } from '../helpers/engine';

// acme.json: user 2 account admin of tenant 1, 4 a basic user of tenant 1, 6 account admin of tenant 2, 3 reports admin of tenant 1.
describe("a tenant's users over the API (issue 18): /v2/admin/users", () => {
  let app: TestApp;
  let admin: string;
  let reports: string;
  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-11-22T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    admin = await tokenFor(app, { id: 2 });
    reports = await tokenFor(app, { id: 3 });
  });
  after(() => app.close());

  it('when an account admin creates a user with a branch and extension, then it can sign in with the role given', async () => {
    const made = await app.request('POST', '/v2/admin/users', {
      token: admin,
      body: { tenantId: 1, email: 'new.agent@acme.example', password: 'new agent pass', userRole: 7, branchId: 2, extId: 3 },
    });
    expect(made.status).to.equal(201);
    expect(made.body).to.deep.include({
      email: 'new.agent@acme.example',
      userRole: 7,
      tenantId: 1,
      extNum: 103,
      peerName: 'PJSIP/103',
      branchName: 'Denver Office',
    });
    const login = await app.request('POST', '/v2/authentication/', {
      body: { email: 'new.agent@acme.example', password: 'new agent pass' },
    });
    expect(login.body.user.id).to.equal(made.body.id);
    const listed = await app.request('GET', '/v2/admin/users', { token: admin, query: { paginated: 0 } });
    expect(listed.body.records.every((u: { tenantId: number }) => u.tenantId === 1)).to.equal(true);
    expect(listed.body.records.some((u: { id: number }) => u.id === made.body.id)).to.equal(true);
  });

  it('when a role above the caller is given or taken, a user of another tenant named, or an e-mail taken, then 403, 404, 409 or 400 and nothing changes', async () => {
    const count = () => rowCount(app.deps.db, 'users');
    const n = await count();
    const post = (body: object) =>
      app.request('POST', '/v2/admin/users', { token: admin, body: { tenantId: 1, password: 'long enough', ...body } });
    expectError(await post({ email: 'boss@acme.example', userRole: 1 }), 403);
    expectError(await post({ email: 'boss@acme.example', userRole: 11 }), 403);
    expectError(await post({ email: 'ADMIN@acme.example', userRole: 5 }), 409);
    expectError(await post({ email: 'x@acme.example', userRole: 5, branchId: 3, extId: 4 }), 400, ['branchId', 'extId']);
    expectError(
      await app.request('POST', '/v2/admin/users', {
        token: admin,
        body: { tenantId: 2, email: 'y@acme.example', password: 'long enough', userRole: 5 },
      }),
      403,
    );
    expectError(await app.request('PATCH', '/v2/admin/users/6', { token: admin, body: { userRole: 5 } }), 404);
    expectError(await app.request('PATCH', '/v2/admin/users/1', { token: admin, body: { userRole: 5 } }), 403); // a platform admin of tenant 1
    expectError(await app.request('PATCH', '/v2/admin/users/2', { token: admin, body: { userRole: 1 } }), 403); // its own role, raised
    expectError(await app.request('DELETE', '/v2/admin/users/2', { token: admin }), 409); // itself
    expectError(await app.request('GET', '/v2/admin/users', { token: reports }), 403);
    expect(await count()).to.equal(n);
  });

  it("when a user's role changes, then its tokens end; a deleted user cannot sign in", async () => {
    const basic = await tokenFor(app, { id: 4 });
    expect((await app.request('GET', '/v2/users/me', { token: basic })).status).to.equal(200);
    const changed = await app.request('PATCH', '/v2/admin/users/4', { token: admin, body: { userRole: 9, extId: null } });
    expect(changed.body).to.deep.include({ userRole: 9, extNum: 0, peerName: '' });
    expectError(await app.request('GET', '/v2/users/me', { token: basic }), 401);
    const made = await app.request('POST', '/v2/admin/users', {
      token: admin,
      body: { tenantId: 1, email: 'leaver@acme.example', password: 'leaver pass', userRole: 5 },
    });
    expect((await app.request('DELETE', `/v2/admin/users/${made.body.id}`, { token: admin })).body.email).to.equal('leaver@acme.example');
    expectError(await app.request('POST', '/v2/authentication/', { body: { email: 'leaver@acme.example', password: 'leaver pass' } }), 401);
  });

  it('when a user owns a saved filter, then its delete is refused until the filter is deleted; its deleted filters do not hold it', async () => {
    const made = await app.request('POST', '/v2/admin/users', {
      token: admin,
      body: { tenantId: 1, email: 'filters@acme.example', password: 'filters pass', userRole: 9 },
    });
    expect(made.status, made.text).to.equal(201);
    const own = await tokenFor(app, { id: made.body.id });
    const saved = await app.request('POST', '/v2/reporting/saved', {
      token: own,
      body: { tenantId: 1, url: '/v2/reporting/calls', module: 'calls', name: 'Mine' },
    });
    expect(saved.status, saved.text).to.equal(201);
    const filterId = saved.body[0].id;
    const refused = await app.request('DELETE', `/v2/admin/users/${made.body.id}`, { token: admin });
    expectError(refused, 409);
    expect(refused.body.message).to.equal(`User ${made.body.id} owns 1 saved filter: delete it first`);
    expect((await app.request('GET', `/v2/admin/users/${made.body.id}`, { token: admin })).status).to.equal(200);
    expect((await app.request('DELETE', `/v2/reporting/saved/${filterId}`, { token: own })).status).to.equal(200);
    const gone = await app.request('DELETE', `/v2/admin/users/${made.body.id}`, { token: admin });
    expect(gone.status, gone.text).to.equal(200);
    expect(gone.body.email).to.equal('filters@acme.example');
    expectError(await app.request('GET', `/v2/admin/users/${made.body.id}`, { token: admin }), 404);
  });
});
