import { expect } from 'chai';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { sixDigits, totpCode } from '../helpers/mfa-codes';
import { mobileApp, type MFAMode } from '../helpers/mobile-app';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

/*
 * Issue 27, point 1: a stolen access token must not take the account. Every change of a factor or of the
 * password needs proof that the owner is present (the current password, or a current code of a mode in use),
 * and ends the user's other tokens.
 */

const APP_SECRET = 'JBSWY3DPEHPK3PXP';
const MODES: MFAMode[] = ['app', 'sms', 'email'];

describe('security: a stolen access token does not take the account (issue 27)', () => {
  const clock = new TestClock();
  let app: TestApp;
  let smtp: TestSmtp;
  let sms: HttpReceiver;
  let client: ReturnType<typeof mobileApp>;

  const db = () => app.deps.database.db;
  const row = (id: number) => db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const enrolments = async (id: number) => (await db().selectFrom('mfa_enrolments').selectAll().where('user_id', '=', id).execute()).length;
  const post = (path: string, token: string, body: unknown) => app.request('POST', path, { token, body });
  /** A user whose MFA is an authenticator app, and a user without MFA; each with a token "stolen" from it. */
  const appUser = async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic, {
      mfa_enabled: 1,
      mfa_mode: 'app',
      mfa_app_secret: APP_SECRET,
      mfa_app_verified: 1,
    });
    return { u, token: await tokenFor(app, u) };
  };
  const plainUser = async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    return { u, token: await tokenFor(app, u) };
  };
  const works = async (token: string) => (await client.getCurrentUserProfile(token)).status === 200;

  before(async () => {
    smtp = await startSmtp();
    sms = await startReceiver();
    app = await startTestApp({ clock, env: { TARS_SMTP_URL: smtp.url, TARS_SMS_GATEWAY_URL: `${sms.url}/send` } });
    client = mobileApp(app);
  });
  after(async () => {
    await app.close();
    await smtp.close();
    await sms.close();
  });

  it('when only an access token sets up any mode (a first one or a replacement), then 401, nothing is stored and nothing is sent', async () => {
    const users = [await plainUser(), await appUser()];
    const sent = sms.requests.length;
    for (const { u, token } of users) {
      const before = await row(u.id);
      for (const mode of MODES) {
        const res = await client.setupAuthMFA({ mode, phoneNumber: '+13125550199' }, token);
        expectError(res, 401);
        expect((res.body as unknown as { message: string }).message).to.match(/password/);
        expect(JSON.stringify(res.body)).not.to.match(/secret|qrcode/);
      }
      // Nor is anything waiting that the attacker could verify next.
      expectError(await client.verifyMFAAuth({ mode: 'sms', otp: '123456', phoneNumber: '+13125550199' }, token), 400);
      expect(await enrolments(u.id)).to.equal(0);
      expect(await row(u.id)).to.deep.equal(before);
    }
    expect(sms.requests.length).to.equal(sent);
  });

  it('when only an access token changes the password, then 401 and the password and every token stay', async () => {
    const { u, token } = await plainUser();
    const before = await row(u.id);
    const res = await client.resetPassword('the attackers password', token);
    expectError(res, 401);
    expect(res.body.message).to.match(/currentPassword/);
    expectError(
      await post('/v2/users/manual-reset-password', token, { password: 'the attackers password', currentPassword: 'a guess!' }),
      401,
    );
    expect(await row(u.id)).to.deep.equal(before);
    expect(await works(token)).to.equal(true);
  });

  it('when MFA is turned off with only a token, even one issued a moment ago (or refreshed by /jwt), then 401', async () => {
    const { u, token } = await appUser();
    const refreshed = await app.request('POST', '/v2/authentication/jwt', { body: { accessToken: token } });
    expect(refreshed.status).to.equal(201);
    for (const t of [token, refreshed.body.accessToken as string]) {
      expectError(await client.disableMFA(t), 401);
      expectError(await client.disableMFAMode({ mode: 'app' }, t), 401);
    }
    expect(await row(u.id)).to.include({ mfa_enabled: 1, mfa_app_verified: 1, mfa_app_secret: APP_SECRET });
  });

  it('when the password proves presence, then a first mode is set up and verified, other tokens end and the answer carries a working one', async () => {
    const { u, token } = await plainUser();
    const other = await tokenFor(app, u);
    // With no mode on, only the password proves presence: a code is refused.
    expectError(await post('/v2/mfa/auth/setup', token, { mode: 'app', otp: '123456' }), 401);
    const setup = await post('/v2/mfa/auth/setup', token, { mode: 'app', password: u.password });
    expect(setup.status, setup.text).to.equal(201);
    const secret = setup.body.secret as string;
    const done = await client.verifyMFAAuth({ mode: 'app', otp: totpCode(secret, clock.now()), secret }, token);
    expect(done.status, done.text).to.equal(201);
    expect(done.body).to.include({ status: 'success', message: 'MFA by an authenticator app is verified and on' });
    expect(await row(u.id)).to.include({ mfa_enabled: 1, mfa_mode: 'app', mfa_app_secret: secret });
    expect(await works(other)).to.equal(false);
    expect(await works(token)).to.equal(false);
    expect(await works((done.body as { accessToken?: string }).accessToken as string)).to.equal(true);
  });

  it('when a current code of the mode in use proves presence, then the factor is replaced; an old or a wrong code is refused', async () => {
    const { u, token } = await appUser();
    clock.advance(60_000);
    const code = totpCode(APP_SECRET, clock.now());
    expectError(await post('/v2/mfa/auth/setup', token, { mode: 'sms', phoneNumber: '+13125550142', password: 'not the password' }), 401);
    const setup = await post('/v2/mfa/auth/setup', token, { mode: 'sms', phoneNumber: '+13125550142', otp: code });
    expect(setup.status, setup.text).to.equal(201);
    // A code is good once: the same one does not prove presence again.
    expectError(await post('/v2/mfa/auth/setup', token, { mode: 'email', otp: code }), 401);
    const smsCode = sixDigits(JSON.parse(sms.requests.at(-1)?.body ?? '{}').message as string);
    const done = await client.verifyMFAAuth({ mode: 'sms', otp: smsCode, phoneNumber: '+13125550142' }, token);
    expect(done.status, done.text).to.equal(201);
    expect(await row(u.id)).to.include({ mfa_mode: 'sms', mfa_phone_number: '+13125550142', mfa_sms_verified: 1 });
    expect(await works(token)).to.equal(false);
    expect(await works((done.body as { accessToken?: string }).accessToken as string)).to.equal(true);
  });

  it('when the mode in use is SMS or e-mail, then a confirmation code sent to it proves presence, once', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic, {
      mfa_enabled: 1,
      mfa_mode: 'sms',
      mfa_sms_verified: 1,
      mfa_phone_number: '+13125550111',
    });
    const token = await tokenFor(app, u);
    // Only a mode that is verified and in use gets one: not e-mail here, and never to a number the caller names.
    expectError(await post('/v2/mfa/auth/confirmation-code', token, { mode: 'email' }), 400);
    const sent = await post('/v2/mfa/auth/confirmation-code', token, { mode: 'sms' });
    expect(sent.status, sent.text).to.equal(201);
    expect(sent.body).to.include({ status: 'success' });
    const msg = JSON.parse(sms.requests.at(-1)?.body ?? '{}') as { to: string; message: string };
    expect(msg.to).to.equal('+13125550111');
    const code = sixDigits(msg.message);
    const wrong = code === '000000' ? '000001' : '000000';
    expectError(await post('/v2/mfa/auth/disable', token, { otp: wrong }), 401);
    expect((await row(u.id)).mfa_enabled).to.equal(1);
    const off = await post('/v2/mfa/auth/disable', token, { otp: code });
    expect(off.status, off.text).to.equal(201);
    expect((await row(u.id)).mfa_enabled).to.equal(0);
    expect(await works(token)).to.equal(false);
    const fresh = off.body.accessToken as string;
    expect(await works(fresh)).to.equal(true);
    // Used once: it proves nothing again.
    expectError(await post('/v2/mfa/auth/setup', fresh, { mode: 'email', otp: code }), 401);
  });

  it('when the current password proves presence, then the password changes, every other token ends and the answer carries a new one', async () => {
    const { u, token } = await plainUser();
    const other = await tokenFor(app, u);
    const res = await post('/v2/users/manual-reset-password', token, { password: 'my changed password', currentPassword: u.password });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.status).to.equal('success');
    expect(await works(other)).to.equal(false);
    expect(await works(token)).to.equal(false);
    expect(await works(res.body.accessToken as string)).to.equal(true);
    expect((await client.authenticate({ email: u.email, password: 'my changed password' })).status).to.equal(201);
  });

  it('when the password is reset, then a set-up token given for the old one dies', async () => {
    const tenant = await buildTenant(db());
    await db().updateTable('tenants').set({ mfa_required: 1 }).where('id', '=', tenant.id).execute();
    const u = await buildUser(db(), tenant.id, ROLE.basic);
    const setupToken = (await client.authenticate({ email: u.email, password: u.password })).body.mfaSetupToken as string;
    expect(setupToken).to.be.a('string');
    await client.requestPasswordReset({ email: u.email });
    const resetToken = /\n\n([A-Za-z0-9_-]{43})\n\n/.exec((await smtp.next()).parsed.text ?? '')?.[1] as string;
    const reset = await app.request('POST', '/v2/users/reset-password', { body: { token: resetToken, password: 'a new password here' } });
    expect(reset.status, reset.text).to.equal(201);
    expectError(await client.setupMFA({ mode: 'app', token: setupToken }), 401);
    expect(await enrolments(u.id)).to.equal(0);
  });

  it('when wrong proofs arrive in parallel, then at most 10 an hour are evaluated, on every route that asks for one', async () => {
    const { u, token } = await plainUser();
    const tries = [
      ...Array.from({ length: 10 }, () =>
        post('/v2/users/manual-reset-password', token, { password: 'whatever 123', currentPassword: 'guess 1' }),
      ),
      ...Array.from({ length: 10 }, () => post('/v2/mfa/auth/setup', token, { mode: 'app', password: 'guess 2' })),
      ...Array.from({ length: 10 }, () => post('/v2/mfa/auth/disable', token, { password: 'guess 3' })),
    ];
    const answers = await Promise.all(tries);
    expect(answers.filter((a) => a.status === 401)).to.have.length(10);
    expect(answers.filter((a) => a.status === 429)).to.have.length(20);
    // Past the limit, the right password gets 429 too.
    expectError(await post('/v2/users/manual-reset-password', token, { password: 'whatever 123', currentPassword: u.password }), 429);
    expect(await works(token)).to.equal(true);
  });
});

describe('security: a tenant that requires MFA cannot be skipped (issue 27)', () => {
  let app: TestApp;
  const db = () => app.deps.database.db;
  const works = async (token: string) => (await app.request('GET', '/v2/users/me', { token })).status === 200;
  const refresh = (accessToken: string) => app.request('POST', '/v2/authentication/jwt', { body: { accessToken } });

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('when mfaRequired is set on a tenant (API or CLI: the same service), then the tokens of its users without MFA end, and theirs only', async () => {
    const tenant = await buildTenant(db(), { partnerId: 4 });
    const elsewhere = await buildTenant(db(), { partnerId: 4 });
    const admin = await buildUser(db(), tenant.id, ROLE.platform, { mfa_enabled: 1, mfa_mode: 'email', mfa_email_verified: 1 });
    const plain = await buildUser(db(), tenant.id, ROLE.basic);
    const other = await buildUser(db(), elsewhere.id, ROLE.basic);
    const [adminToken, plainToken, otherToken] = [await tokenFor(app, admin), await tokenFor(app, plain), await tokenFor(app, other)];
    const set = await app.request('PATCH', `/v2/admin/tenants/${tenant.id}`, { token: adminToken, body: { mfaRequired: 1 } });
    expect(set.status, set.text).to.equal(200);
    expect(await works(plainToken)).to.equal(false);
    expectError(await refresh(plainToken), 401);
    expect(await works(adminToken)).to.equal(true);
    expect(await works(otherToken)).to.equal(true);
  });

  it('when a tenant row requires MFA without the API (the CLI, a fixture), then /v2/authentication/jwt refuses a token of a user without MFA', async () => {
    const tenant = await buildTenant(db());
    const plain = await buildUser(db(), tenant.id, ROLE.basic);
    const withMfa = await buildUser(db(), tenant.id, ROLE.basic, { mfa_enabled: 1, mfa_mode: 'email', mfa_email_verified: 1 });
    const token = await tokenFor(app, plain);
    expect((await refresh(token)).status).to.equal(201);
    await db().updateTable('tenants').set({ mfa_required: 1 }).where('id', '=', tenant.id).execute();
    const refused = await refresh(token);
    expectError(refused, 401);
    expect(refused.body.message).to.match(/requires MFA/);
    expect((await refresh(await tokenFor(app, withMfa))).status).to.equal(201);
  });

  it('when MFA went on with one set-up token, then every other set-up token of the user is dead: a password alone cannot replace the factor', async () => {
    const tenant = await buildTenant(db());
    await db().updateTable('tenants').set({ mfa_required: 1 }).where('id', '=', tenant.id).execute();
    const u = await buildUser(db(), tenant.id, ROLE.basic);
    const signIn = () => app.request('POST', '/v2/authentication/mfa', { body: { email: u.email, password: u.password } });
    const owners = (await signIn()).body.mfaSetupToken as string;
    const attackers = (await signIn()).body.mfaSetupToken as string; // someone who knows the password only
    const setup = await app.request('POST', '/v2/mfa/setup', { body: { mode: 'app', token: owners } });
    const secret = setup.body.secret as string;
    const otp = totpCode(secret, app.deps.clock.now());
    const on = await app.request('POST', '/v2/mfa/verify', { body: { mode: 'app', token: owners, otp } });
    expect(on.status, on.text).to.equal(201);
    for (const mode of ['app', 'email', 'sms'] as const) {
      const res = await app.request('POST', '/v2/mfa/setup', { body: { mode, token: attackers, phoneNumber: '+13125550199' } });
      expectError(res, 401);
      expect(JSON.stringify(res.body)).not.to.match(/secret|qrcode/);
    }
    expectError(await app.request('POST', '/v2/mfa/verify', { body: { mode: 'app', token: attackers, otp: '123456' } }), 401);
    expectError(await app.request('POST', '/v2/mfa/resend-otp', { body: { mode: 'sms', token: attackers } }), 401);
    const stored = await db().selectFrom('users').selectAll().where('id', '=', u.id).executeTakeFirstOrThrow();
    expect(stored).to.include({ mfa_enabled: 1, mfa_mode: 'app', mfa_app_secret: secret });
    expect(await db().selectFrom('mfa_enrolments').selectAll().where('user_id', '=', u.id).execute()).to.deep.equal([]);
  });

  it('when a user without MFA of a tenant that requires it changes its password, then the answer carries no new token', async () => {
    const tenant = await buildTenant(db());
    const u = await buildUser(db(), tenant.id, ROLE.basic);
    const token = await tokenFor(app, u);
    await db().updateTable('tenants').set({ mfa_required: 1 }).where('id', '=', tenant.id).execute();
    const res = await app.request('POST', '/v2/users/manual-reset-password', {
      token,
      body: { password: 'a changed password', currentPassword: u.password },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).not.to.have.property('accessToken');
    expect(res.body.message).to.match(/requires MFA/);
  });
});

describe('security: an id a token or a record still holds never names a new record (issue 27)', () => {
  let app: TestApp;
  const db = () => app.deps.database.db;
  const works = async (token: string) => (await app.request('GET', '/v2/users/me', { token })).status === 200;

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('when a user is deleted and another is created after it, then the deleted user’s token stays dead (its id is not given again)', async () => {
    const tenant = await buildTenant(db());
    const root = await buildUser(db(), tenant.id, ROLE.platform);
    const rootToken = await tokenFor(app, root);
    const create = (email: string, userRole: number) =>
      app.request('POST', '/v2/admin/users', { token: rootToken, body: { tenantId: tenant.id, email, password: 'a password!', userRole } });
    const gone = await create('leaver@example.test', ROLE.basic);
    expect(gone.status, gone.text).to.equal(201);
    const stolen = await tokenFor(app, { id: gone.body.id });
    expect(await works(stolen)).to.equal(true);
    expect((await app.request('DELETE', `/v2/admin/users/${gone.body.id}`, { token: rootToken })).status).to.equal(200);
    const next = await create('newcomer@example.test', ROLE.platform);
    expect(next.status, next.text).to.equal(201);
    expect(next.body.id).to.not.equal(gone.body.id);
    expect(await works(stolen)).to.equal(false);
  });

  it('when an extension, a queue, a tenant, a branch or a phone number is deleted, then the next one created gets a new id (a user’s extId, a client’s queueId never name it)', async () => {
    const tenant = await buildTenant(db());
    const rootToken = await tokenFor(app, await buildUser(db(), tenant.id, ROLE.platform));
    const cycle = async (path: string, body: (n: number) => unknown, id: (b: any) => number) => {
      const first = await app.request('POST', path, { token: rootToken, body: body(1) });
      expect(first.status, first.text).to.equal(201);
      expect((await app.request('DELETE', `${path}/${id(first.body)}`, { token: rootToken })).status).to.equal(200);
      const second = await app.request('POST', path, { token: rootToken, body: body(2) });
      expect(second.status, second.text).to.equal(201);
      expect(id(second.body), path).to.not.equal(id(first.body));
    };
    await cycle(
      '/v2/extensions',
      (n) => ({ tenantId: tenant.id, extNum: 900 + n, peerName: `PJSIP/reuse-${n}` }),
      (b) => b.id,
    );
    await cycle(
      '/v2/queues',
      (n) => ({ tenantId: tenant.id, name: `Reuse ${n}`, logName: `reuse-${n}` }),
      (b) => b.id,
    );
    await cycle(
      '/v2/admin/tenants',
      (n) => ({ name: `Reused ${n}` }),
      (b) => b.id,
    );
    // Branches and phone numbers too (2026-11-27T1200_more_ids_never_reused): a deleted newest branch's id was given again.
    const branch = await buildBranch(db(), tenant.id, { isDefault: 1 });
    await cycle(
      '/v2/admin/branches',
      (n) => ({ tenantId: tenant.id, name: `Reused branch ${n}` }),
      (b) => b.id,
    );
    const ext = await app.request('POST', '/v2/extensions', {
      token: rootToken,
      body: { tenantId: tenant.id, extNum: 950, peerName: 'PJSIP/sms-950' },
    });
    expect(ext.status, ext.text).to.equal(201);
    await cycle(
      '/v2/admin/phone-numbers',
      (n) => ({ tenantId: tenant.id, branchId: branch.id, number: `+1312555700${n}`, smsExtId: ext.body.id }),
      (b) => b.id,
    );
  });
});
