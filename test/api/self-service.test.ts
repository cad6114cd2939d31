import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildTenant, buildUser, ROLE, type BuiltUser } from '../helpers/factories';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { mobileApp } from '../helpers/mobile-app';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

const JWT_SECRET = 'self-service-test-secret-of-32-characters!';
const codeOf = (secret: string, ms: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms });
const sixDigits = (text: string) => /(\d{6})/.exec(text)?.[1] as string;

describe("self-service accounts, driven by the mobile app's own requests", () => {
  const clock = new TestClock();
  let app: TestApp;
  let smtp: TestSmtp;
  let sms: HttpReceiver;
  let client: ReturnType<typeof mobileApp>;

  const db = () => app.deps.database.db;
  const row = (id: number) => db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const signIn = async (u: BuiltUser) => {
    const res = await client.authenticate({ email: u.email, password: u.password });
    expect(res.status, res.text).to.equal(201);
    return res.body.accessToken as string;
  };
  const lastSmsCode = () => sixDigits((JSON.parse(sms.requests.at(-1)?.body ?? '{}') as { message: string }).message);

  before(async () => {
    smtp = await startSmtp();
    sms = await startReceiver();
    app = await startTestApp({
      clock,
      env: { TARS_SMTP_URL: smtp.url, TARS_SMS_GATEWAY_URL: `${sms.url}/send`, TARS_JWT_SECRET: JWT_SECRET },
    });
    client = mobileApp(app);
  });
  after(async () => {
    await app.close();
    await smtp.close();
    await sms.close();
  });

  it('when the app asks for the current user, then it gets the User a sign-in returns', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const login = await client.authenticate({ email: u.email, password: u.password });
    const me = await client.getCurrentUserProfile(login.body.accessToken as string);
    expect(me.status).to.equal(200);
    expect(me.body).to.deep.equal(login.body.user);
    expectError(await app.request('GET', '/v2/users/me'), 401);
  });

  it('when a tenant requires MFA, then a user without it enrols an authenticator app before it gets a token', async () => {
    const tenant = await buildTenant(db());
    await db().updateTable('tenants').set({ mfa_required: 1 }).where('id', '=', tenant.id).execute();
    const u = await buildUser(db(), tenant.id, ROLE.account);
    expectError(await app.request('POST', '/v2/authentication', { body: { email: u.email, password: u.password } }), 401);

    const start = await client.authenticate({ email: u.email, password: u.password });
    expect(start.status).to.equal(201);
    expect(Object.keys(start.body).sort()).to.deep.equal(['message', 'mfaSetupToken']);
    const token = start.body.mfaSetupToken as string;
    expectError(await client.validateMFA({ token, otp: '123456' }), 401); // a set-up token is no sign-in challenge

    const setup = await client.setupMFA({ mode: 'app', token });
    expect(setup.status).to.equal(201);
    const secret = setup.body.secret as string;
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    const uri = `otpauth://totp/TARS:${encodeURIComponent(u.email)}?issuer=TARS&secret=${secret}&algorithm=SHA1&digits=6&period=30`;
    expect(setup.body.qrcode).to.equal(await QRCode.toDataURL(uri)); // the QR code an authenticator app scans
    expect((await row(u.id)).mfa_enabled).to.equal(0);

    expectError(await client.verifyMFA({ mode: 'app', otp: codeOf('JBSWY3DPEHPK3PXP', clock.now()), secret, token }), 401);
    const done = await client.verifyMFA({ mode: 'app', otp: codeOf(secret, clock.now()), secret, token });
    expect(done.status, done.text).to.equal(201);
    expect(done.body.user).to.include({ id: u.id, mfaEnabled: 1, mfaMode: 'app', mfaAppSecret: '' });
    expect(done.body.accessToken).to.be.a('string');
    expect(JSON.stringify((await client.getCurrentUserProfile(done.body.accessToken as string)).body)).not.to.include(secret);
    expectError(await client.setupMFA({ mode: 'app', token }), 401); // the set-up token died

    clock.advance(60_000);
    const challenge = await client.authenticate({ email: u.email, password: u.password });
    expect(challenge.body.mode).to.equal('app');
    const signedIn = await client.validateMFA({ token: challenge.body.mfaVerifyToken as string, otp: codeOf(secret, clock.now()) });
    expect(signedIn.status).to.equal(201);
  });

  it('when a signed-in user enrols a phone, then the number is verified by a code, and its challenges say where the code went', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const token = await signIn(u);
    expectError(await client.setupAuthMFA({ mode: 'sms' }, token, { password: u.password }), 400);
    const setup = await client.setupAuthMFA({ mode: 'sms', phoneNumber: '+13125550188' }, token, { password: u.password });
    expect(setup.body).to.deep.equal({ mode: 'sms', phoneNumber: '*******0188' });
    const first = lastSmsCode();
    const resent = await client.resendOTPAuth({ mode: 'sms', phoneNumber: '+13125550188' }, token);
    expect(resent.status).to.equal(201);
    expect(resent.body).to.include({ status: 'success', mode: 'sms' });
    const second = lastSmsCode();
    expect(JSON.parse(sms.requests.at(-1)?.body ?? '{}').to).to.equal('+13125550188');
    if (first !== second) expectError(await client.verifyMFAAuth({ mode: 'sms', otp: first }, token), 401); // the older code died
    const ok = await client.verifyMFAAuth({ mode: 'sms', otp: second, phoneNumber: '+13125550188' }, token);
    expect(ok.body).to.include({ status: 'success', message: 'MFA by SMS is verified and on' });
    expect(await row(u.id)).to.include({ mfa_enabled: 1, mfa_mode: 'sms', mfa_sms_verified: 1, mfa_phone_number: '+13125550188' });

    const challenge = await client.authenticate({ email: u.email, password: u.password });
    expect(challenge.body).to.include({ mode: 'sms', phoneNumber: '*******0188' });
    // The app's "resend code" sends the number it shows; the code still goes to the number on the account.
    const again = await client.resendOTP({ token: challenge.body.mfaVerifyToken, mode: 'sms', phoneNumber: '*******0188' });
    expect(again.status, again.text).to.equal(201);
    expect(JSON.parse(sms.requests.at(-1)?.body ?? '{}').to).to.equal('+13125550188');
    const signedIn = await client.validateMFA({ token: again.body.mfaVerifyToken, otp: lastSmsCode() });
    expect(signedIn.status).to.equal(201);
  });

  it('when MFA is switched on and off, then each change needs the password or a current code, even right after signing in', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    let token = await signIn(u);
    expectError(await client.setupAuthMFA({ mode: 'app' }, token), 401); // the app's own body: no proof
    const setup = await client.setupAuthMFA({ mode: 'app' }, token, { password: u.password });
    const secret = setup.body.secret as string;
    expectError(await client.enableMFA({ mode: 'app' }, token), 400); // not verified yet
    const verified = await client.verifyMFAAuth({ mode: 'app', otp: codeOf(secret, clock.now()), secret }, token);
    expect(verified.status).to.equal(201);
    token = verified.body.accessToken as string; // the factor changed: the earlier token ended

    // A token issued a moment ago proves nothing about who holds it (a refresh makes any token that young).
    expectError(await client.disableMFA(token), 401);
    expectError(await client.disableMFA(token, { password: 'not-the-password' }), 401);
    expect((await row(u.id)).mfa_enabled).to.equal(1);
    const off = await client.disableMFA(token, { password: u.password });
    expect(off.body).to.include({ status: 'success', message: 'MFA is off' });
    expect((await row(u.id)).mfa_enabled).to.equal(0);
    token = off.body.accessToken as string;
    expect((await client.enableMFA({ mode: 'app' }, token)).body).to.deep.equal({
      status: 'success',
      message: 'MFA by an authenticator app is on',
    });

    clock.advance(60_000);
    const byCode = await client.disableMFAMode({ mode: 'app' }, token, { otp: codeOf(secret, clock.now()) });
    expect(byCode.body).to.include({ status: 'success', message: 'MFA by an authenticator app is removed; MFA is off' });
    expect(await row(u.id)).to.include({ mfa_enabled: 0, mfa_app_verified: 0, mfa_app_secret: '' });
  });

  it('when the tenant requires MFA, then its last mode cannot be turned off', async () => {
    const tenant = await buildTenant(db());
    await db().updateTable('tenants').set({ mfa_required: 1 }).where('id', '=', tenant.id).execute();
    const u = await buildUser(db(), tenant.id, ROLE.basic, { mfa_enabled: 1, mfa_mode: 'email', mfa_email_verified: 1 });
    const token = app.deps.tokens.issue({ uid: u.id, ver: (await row(u.id)).token_version });
    expectError(await client.disableMFA(token, { password: u.password }), 409);
    expectError(await client.disableMFAMode({ mode: 'email' }, token, { password: u.password }), 409);
    expect((await row(u.id)).mfa_enabled).to.equal(1);
  });

  it('when a password reset is asked for, then the answer is the same for any address, and the e-mailed token works once', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const token = await signIn(u);
    const unknown = await client.requestPasswordReset({ email: 'nobody@nowhere.example' });
    const known = await client.requestPasswordReset({ email: u.email.toUpperCase() });
    expect([unknown.status, unknown.body]).to.deep.equal([known.status, known.body]);
    expect(known.status).to.equal(201);
    const mail = await smtp.next();
    expect(mail.to).to.deep.equal([u.email]);
    const resetToken = /\n\n([A-Za-z0-9_-]{43})\n\n/.exec(mail.parsed.text ?? '')?.[1] as string;
    expect(resetToken).to.have.length(43);
    expect(JSON.stringify(known.body)).not.to.include(resetToken);

    const reset = await app.request('POST', '/v2/users/reset-password', { body: { token: resetToken, password: 'a brand new password' } });
    expect(reset.status, reset.text).to.equal(201);
    expectError(await app.request('POST', '/v2/users/reset-password', { body: { token: resetToken, password: 'yet another one!' } }), 401);
    expectError(await client.getCurrentUserProfile(token), 401); // every earlier token died
    expectError(await client.authenticate({ email: u.email, password: u.password }), 401);
    expect((await client.authenticate({ email: u.email, password: 'a brand new password' })).status).to.equal(201);
  });

  it('when a signed-in user changes its password, then earlier tokens and reset tokens die', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const token = await signIn(u);
    await client.requestPasswordReset({ email: u.email });
    const resetToken = /\n\n([A-Za-z0-9_-]{43})\n\n/.exec((await smtp.next()).parsed.text ?? '')?.[1] as string;
    expectError(await client.resetPassword('short', token, { currentPassword: u.password }), 400);
    const changed = await client.resetPassword('my changed password', token, { currentPassword: u.password });
    expect(changed.status).to.equal(201);
    expect(changed.body.status).to.equal('success');
    expectError(await client.getCurrentUserProfile(token), 401);
    expect((await client.getCurrentUserProfile(changed.body.accessToken as string)).status).to.equal(200);
    expectError(
      await app.request('POST', '/v2/users/reset-password', { body: { token: resetToken, password: 'sneaky new password' } }),
      401,
    );
    expect((await client.authenticate({ email: u.email, password: 'my changed password' })).status).to.equal(201);
  });

  it("when the app changes settings, then only the signed-in user's own settings change", async () => {
    const tenant = await buildTenant(db());
    const u = await buildUser(db(), tenant.id, ROLE.basic);
    const other = await buildUser(db(), tenant.id, ROLE.basic);
    const before = await row(other.id);
    const token = await signIn(u);
    expect((await client.patchUserTitle('Night supervisor', token)).body).to.deep.equal({ title: 'Night supervisor' });
    expect((await client.patchUserTheme(1, token)).body).to.deep.equal({ darkMode: 1 });
    expect((await client.toggleUserDND(true, token)).body).to.deep.equal({ dnd: true });
    expect((await client.patchCallNotifications(0, token)).status).to.equal(200);
    expect((await client.patchMobileCallNotifications(0, token)).status).to.equal(200);
    expect((await client.patchTextNotifications(0, token)).status).to.equal(200);
    const chat = { enableChatNotifications: 0, enableAllNewMessageNotifications: 1, enableDirectMessageNotifications: 0 } as const;
    expect((await client.patchChatNotifications(chat, token)).body).to.deep.equal(chat);
    expect(
      (await app.request('PATCH', '/v2/users/user-settings/text-notifications', { token, body: { enableTextNotifications: 0 } })).status,
    ).to.equal(200);
    expectError(await client.patchUserTheme(2, token), 400);
    expectError(await client.patchUserTitle('two\nlines', token), 400);
    const me = (await client.getCurrentUserProfile(token)).body;
    expect(me).to.include({
      title: 'Night supervisor',
      darkMode: 1,
      dnd: 1,
      enableCallNotifications: 0,
      enableMobileCallNotifications: 0,
      enableMobileTextNotifications: 0,
      enableTextNotifications: 0,
      ...chat,
    });
    expect(await row(other.id)).to.deep.equal(before);
  });

  it('when wrong enrolment codes keep coming, even in parallel, then the MFA limit holds and the right code gets 429 too', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const token = await signIn(u);
    const setup = await client.setupAuthMFA({ mode: 'app' }, token, { password: u.password });
    const secret = setup.body.secret as string;
    const wrong = codeOf(secret, clock.now() + 10 * 60_000);
    const answers = await Promise.all(Array.from({ length: 30 }, () => client.verifyMFAAuth({ mode: 'app', otp: wrong }, token)));
    expect(answers.filter((a) => a.status === 401)).to.have.length(10);
    expect(answers.filter((a) => a.status === 429)).to.have.length(20);
    expectError(await client.verifyMFAAuth({ mode: 'app', otp: codeOf(secret, clock.now()) }, token), 429);
    expect((await row(u.id)).mfa_enabled).to.equal(0);
  });
});
