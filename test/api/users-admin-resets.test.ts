import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildTenant, buildUser, DEFAULT_PASSWORD, ROLE, tokenFor } from '../helpers/factories';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { rowCount } from '../helpers/engine';

/** POST /v2/admin/users/{id}/mfa-reset and /password-reset: an admin helps a user who lost its phone or password. */
describe("an admin's MFA reset and password-reset e-mail for a user (issue 31)", function () {
  this.timeout(30_000);
  let app: TestApp;
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startSmtp();
    app = await startTestApp({ env: { TARS_SMTP_URL: smtp.url } });
  });
  after(async () => {
    await app.close();
    await smtp.close();
  });

  const mfaUser = (tenantId: number, role: number = ROLE.basic) =>
    buildUser(app.deps.database.db, tenantId, role, {
      mfa_enabled: 1,
      mfa_mode: 'app',
      mfa_app_secret: 'JBSWY3DPEHPK3PXP',
      mfa_app_verified: 1,
    });
  const mfaOf = (id: number) =>
    app.deps.database.db
      .selectFrom('users')
      .select(['mfa_enabled', 'mfa_mode', 'mfa_app_secret', 'mfa_app_verified', 'token_version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it("when an account admin resets a user's MFA, then every mode is forgotten, its tokens end and it signs in with the password alone", async () => {
    const tenant = await buildTenant(app.deps.database.db);
    const admin = await buildUser(app.deps.database.db, tenant.id, ROLE.account);
    const user = await mfaUser(tenant.id);
    const userToken = await tokenFor(app, user);
    const res = await app.request('POST', `/v2/admin/users/${user.id}/mfa-reset`, { token: await tokenFor(app, admin) });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.message).to.contain(`MFA of ${user.email} is reset`);
    expect(await mfaOf(user.id)).to.deep.include({ mfa_enabled: 0, mfa_mode: '', mfa_app_secret: '', mfa_app_verified: 0 });
    expectError(await app.request('GET', '/v2/users/me', { token: userToken }), 401);
    const login = await app.request('POST', '/v2/authentication/', { body: { email: user.email, password: DEFAULT_PASSWORD } });
    expect(login.body.user, login.text).to.deep.include({ id: user.id, mfaEnabled: 0 });
  });

  it("when the MFA of oneself, of a user above the caller, or of another tenant's user is reset, then 409, 403 or 404 and nothing changes", async () => {
    const tenant = await buildTenant(app.deps.database.db);
    const other = await buildTenant(app.deps.database.db);
    const admin = await buildUser(app.deps.database.db, tenant.id, ROLE.account, { mfa_enabled: 1, mfa_mode: 'app', mfa_app_verified: 1 });
    const above = await mfaUser(tenant.id, ROLE.platform);
    const foreign = await mfaUser(other.id);
    const token = await tokenFor(app, admin);
    const before = await Promise.all([admin, above, foreign].map((u) => mfaOf(u.id)));
    expectError(await app.request('POST', `/v2/admin/users/${admin.id}/mfa-reset`, { token }), 409);
    expectError(await app.request('POST', `/v2/admin/users/${above.id}/mfa-reset`, { token }), 403);
    expectError(await app.request('POST', `/v2/admin/users/${foreign.id}/mfa-reset`, { token }), 404);
    const basic = await tokenFor(app, await buildUser(app.deps.database.db, tenant.id, ROLE.reports));
    expectError(await app.request('POST', `/v2/admin/users/${above.id}/mfa-reset`, { token: basic }), 403);
    expect(await Promise.all([admin, above, foreign].map((u) => mfaOf(u.id)))).to.deep.equal(before);
  });

  it('when an admin sends a user a password-reset e-mail, then its token sets a new password; a sixth within the hour is 429', async () => {
    const tenant = await buildTenant(app.deps.database.db);
    const admin = await buildUser(app.deps.database.db, tenant.id, ROLE.account);
    const user = await buildUser(app.deps.database.db, tenant.id, ROLE.queues);
    const token = await tokenFor(app, admin);
    const sent = await app.request('POST', `/v2/admin/users/${user.id}/password-reset`, { token });
    expect(sent.status, sent.text).to.equal(201);
    expect(sent.body.message).to.contain(user.email);
    const mail = await smtp.next();
    expect(mail.to).to.deep.equal([user.email]);
    const resetToken = /\n\n([A-Za-z0-9_-]{43})\n\n/.exec(mail.parsed.text ?? '')?.[1];
    expect(resetToken, mail.parsed.text).to.be.a('string');
    const reset = await app.request('POST', '/v2/users/reset-password', { body: { token: resetToken, password: 'a brand new password' } });
    expect(reset.status, reset.text).to.equal(201);
    const login = await app.request('POST', '/v2/authentication/', { body: { email: user.email, password: 'a brand new password' } });
    expect(login.body.user?.id, login.text).to.equal(user.id);
    // The address's limit (5 an hour) is the public request's: parallel sends do not get past it.
    const more = await Promise.all([1, 2, 3, 4, 5].map(() => app.request('POST', `/v2/admin/users/${user.id}/password-reset`, { token })));
    expect(more.map((r) => r.status).sort()).to.deep.equal([201, 201, 201, 201, 429]);
    for (let i = 0; i < 4; i++) await smtp.next();
  });

  it('when a reset e-mail is asked for a user above the caller or of another tenant, then 403 or 404 and no e-mail is sent', async () => {
    const tenant = await buildTenant(app.deps.database.db);
    const other = await buildTenant(app.deps.database.db);
    const token = await tokenFor(app, await buildUser(app.deps.database.db, tenant.id, ROLE.account));
    const above = await buildUser(app.deps.database.db, tenant.id, ROLE.partner);
    const foreign = await buildUser(app.deps.database.db, other.id, ROLE.basic);
    const waiting = smtp.received.length;
    expectError(await app.request('POST', `/v2/admin/users/${above.id}/password-reset`, { token }), 403);
    expectError(await app.request('POST', `/v2/admin/users/${foreign.id}/password-reset`, { token }), 404);
    expect(await rowCount(app.deps.db, 'password_resets', { user_id: above.id })).to.equal(0);
    expect(await rowCount(app.deps.db, 'password_resets', { user_id: foreign.id })).to.equal(0);
    expect(smtp.received.length).to.equal(waiting);
  });
});
