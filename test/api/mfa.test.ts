import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import { startTestApp, TestClock, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { buildAppMfaUser, buildTenant, buildUser, ROLE } from '../helpers/factories';

const SECRET = 'JBSWY3DPEHPK3PXP';
const totp = new TOTP({ secret: Secret.fromBase32(SECRET), digits: 6, period: 30, algorithm: 'SHA1' });
const code = (ms: number) => totp.generate({ timestamp: ms });

describe('MFA', () => {
  const clock = new TestClock();
  let app: TestApp;
  let smtp: TestSmtp;
  let sms: HttpReceiver;

  const challenge = (u: { email: string; password: string }) =>
    app.request('POST', '/v2/authentication/mfa', { body: { email: u.email, password: u.password } });
  const validate = (token: string, otp: string) => app.request('POST', '/v2/mfa/validate', { body: { token, otp } });
  const appUser = () => buildAppMfaUser(app.deps.database.db, SECRET);

  before(async () => {
    smtp = await startSmtp();
    sms = await startReceiver();
    app = await startTestApp({
      clock,
      env: { TARS_SMTP_URL: smtp.url, TARS_SMS_GATEWAY_URL: `${sms.url}/send`, TARS_MAIL_FROM: 'TARS <tars@example.test>' },
    });
  });
  after(async () => {
    await app.close();
    await smtp.close();
    await sms.close();
  });

  it('when MFA is off, then /v2/authentication/mfa answers with the user and a token', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account);
    const res = await challenge(u);
    expect(res.status).to.equal(201);
    expect(res.body.user.id).to.equal(u.id);
    expect(res.body.accessToken).to.be.a('string');
  });

  it('when an app user completes the challenge with the current TOTP code, then 201 with the user; the same code is refused afterwards', async () => {
    const u = await appUser();
    clock.advance(60_000);
    const ch = await challenge(u);
    expect(ch.status).to.equal(201);
    expect(ch.body).to.include({ mode: 'app' });
    const ok = await validate(ch.body.mfaVerifyToken, code(clock.now()));
    expect(ok.status).to.equal(201);
    expect(ok.body.user).to.include({ id: u.id, mfaEnabled: 1, mfaMode: 'app', mfaAppSecret: '' });
    const again = await challenge(u);
    expectError(await validate(again.body.mfaVerifyToken, code(clock.now())), 401);
  });

  it('when the code is from the next or previous step it is accepted; two steps away it is refused', async () => {
    const u = await appUser();
    clock.advance(120_000);
    const far = await challenge(u);
    expectError(await validate(far.body.mfaVerifyToken, code(clock.now() + 60_000)), 401);
    const next = await challenge(u);
    expect((await validate(next.body.mfaVerifyToken, code(clock.now() + 30_000))).status).to.equal(201);
    clock.advance(120_000);
    const prev = await challenge(u);
    expect((await validate(prev.body.mfaVerifyToken, code(clock.now() - 30_000))).status).to.equal(201);
  });

  it('when five wrong codes were sent, then the challenge is dead even for the right code', async () => {
    const u = await appUser();
    clock.advance(60_000);
    const ch = await challenge(u);
    for (let i = 0; i < 5; i++)
      expectError(await validate(ch.body.mfaVerifyToken, '000000' === code(clock.now()) ? '111111' : '000000'), 401);
    expectError(await validate(ch.body.mfaVerifyToken, code(clock.now())), 401);
  });

  it('when the challenge is older than 5 minutes, then it is dead', async () => {
    const u = await appUser();
    const ch = await challenge(u);
    clock.advance(5 * 60 * 1000 + 1);
    expectError(await validate(ch.body.mfaVerifyToken, code(clock.now())), 401);
  });

  it('when resend-otp is called, then a new token is issued and the old one is refused even with the right code', async () => {
    const u = await appUser();
    clock.advance(60_000);
    const ch = await challenge(u);
    const re = await app.request('POST', '/v2/mfa/resend-otp', { body: { token: ch.body.mfaVerifyToken, mode: 'app' } });
    expect(re.status).to.equal(201);
    expect(re.body.mfaVerifyToken).not.to.equal(ch.body.mfaVerifyToken);
    expectError(await validate(ch.body.mfaVerifyToken, code(clock.now())), 401);
    expect((await validate(re.body.mfaVerifyToken, code(clock.now()))).status).to.equal(201);
  });

  it('when resend-otp asks for a mode the user has not set up, then 400 naming the mode', async () => {
    const u = await appUser();
    const ch = await challenge(u);
    expectError(await app.request('POST', '/v2/mfa/resend-otp', { body: { token: ch.body.mfaVerifyToken, mode: 'sms' } }), 400, ['sms']);
  });

  it('when the user has e-mail MFA, then the code arrives through the SMTP server and completes the login', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account, {
      mfa_enabled: 1,
      mfa_mode: 'email',
      mfa_email_verified: 1,
    });
    const ch = await challenge(u);
    expect(ch.status).to.equal(201);
    expect(ch.body.mode).to.equal('email');
    const mail = await smtp.next();
    expect(mail.to).to.deep.equal([u.email]);
    expect(mail.parsed.subject).to.equal('Your TARS sign-in code');
    const otp = /(\d{6})/.exec(mail.parsed.text ?? '')?.[1] as string;
    expect(otp).to.match(/^\d{6}$/);
    expectError(await validate(ch.body.mfaVerifyToken, otp === '123456' ? '654321' : '123456'), 401);
    expect((await validate(ch.body.mfaVerifyToken, otp)).status).to.equal(201);
  });

  it('when the user has SMS MFA, then the gateway receives {to, message} and the code completes the login', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account, {
      mfa_enabled: 1,
      mfa_mode: 'sms',
      mfa_phone_number: '+13125550123',
      mfa_sms_verified: 1,
    });
    const ch = await challenge(u);
    expect(ch.status).to.equal(201);
    const sent = sms.requests.at(-1);
    expect(sent?.path).to.equal('/send');
    const body = JSON.parse(sent?.body ?? '{}');
    expect(body.to).to.equal('+13125550123');
    const otp = /(\d{6})/.exec(body.message)?.[1] as string;
    expect((await validate(ch.body.mfaVerifyToken, otp)).status).to.equal(201);
  });

  it('when the SMS gateway fails, then 503 and no challenge is left open', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account, {
      mfa_enabled: 1,
      mfa_mode: 'sms',
      mfa_phone_number: '+13125550124',
      mfa_sms_verified: 1,
    });
    sms.status = 500;
    try {
      expectError(await challenge(u), 503);
    } finally {
      sms.status = 200;
    }
    const open = await app.deps.database.db.selectFrom('mfa_challenges').select('user_id').where('user_id', '=', u.id).execute();
    expect(open).to.deep.equal([]);
  });
});

describe('MFA without a mail server', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('when e-mail MFA is needed and no SMTP server is configured, then 503 saying so', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account, {
      mfa_enabled: 1,
      mfa_mode: 'email',
    });
    const res = await app.request('POST', '/v2/authentication/mfa', { body: { email: u.email, password: u.password } });
    expectError(res, 503);
    expect(res.body.message).to.include('TARS_SMTP_URL');
  });
});

describe('MFA with a refusing mail server', () => {
  let app: TestApp;
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startSmtp({ refuse: true });
    app = await startTestApp({ env: { TARS_SMTP_URL: smtp.url } });
  });
  after(async () => {
    await app.close();
    await smtp.close();
  });

  it('when the SMTP server refuses the recipient, then 503 and the user can try again later', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account, {
      mfa_enabled: 1,
      mfa_mode: 'email',
    });
    const res = await app.request('POST', '/v2/authentication/mfa', { body: { email: u.email, password: u.password } });
    expectError(res, 503);
    expect(res.body.message).to.include('e-mail');
  });
});
