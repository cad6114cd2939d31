import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { Secret, TOTP } from 'otpauth';
import { startTestApp, TestClock, type TestApp, type TestResponse } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildAppMfaUser, buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

const SECRET = 'JBSWY3DPEHPK3PXP';
const totp = new TOTP({ secret: Secret.fromBase32(SECRET), digits: 6, period: 30, algorithm: 'SHA1' });
const HOUR = 60 * 60 * 1000;

const statuses = (all: TestResponse[]) => all.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});

describe('security: MFA codes cannot be brute-forced (issue 16, point 1)', function () {
  this.timeout(60_000);
  const clock = new TestClock();
  let app: TestApp;
  const login = (u: { email: string; password: string }) =>
    app.request('POST', '/v2/authentication/mfa', { body: { email: u.email, password: u.password } });
  const validate = (token: string, otp: string) => app.request('POST', '/v2/mfa/validate', { body: { token, otp } });
  const resend = (token: string) => app.request('POST', '/v2/mfa/resend-otp', { body: { token, mode: 'app' } });
  const right = () => totp.generate({ timestamp: clock.now() });
  const wrong = () => (right() === '000000' ? '111111' : '000000');
  const appUser = () => buildAppMfaUser(app.deps.database.db, SECRET);

  before(async () => {
    app = await startTestApp({ clock });
  });
  after(() => app.close());

  it('when wrong codes are spread over resends and new logins, then the 11th in an hour gets 429 with Retry-After even with the right code, also after a restart', async () => {
    const u = await appUser();
    clock.advance(HOUR);
    let token = (await login(u)).body.mfaVerifyToken as string;
    for (let i = 1; i <= 10; i++) {
      expectError(await validate(token, wrong()), 401);
      // Four wrong codes, then a resend: the old way to get five fresh tries forever.
      if (i % 4 === 0) token = (await resend(token)).body.mfaVerifyToken;
      if (i === 6) token = (await login(u)).body.mfaVerifyToken;
    }
    const locked = await validate(token, right());
    expectError(locked, 429);
    expect(Number(locked.headers.get('retry-after'))).to.be.within(1, 3600);
    expectError(await resend(token), 429);

    const restarted = await startTestApp({ clock, dataDir: app.dataDir });
    try {
      expectError(await restarted.request('POST', '/v2/mfa/validate', { body: { token, otp: right() } }), 429);
    } finally {
      await restarted.close();
    }
    clock.advance(HOUR + 1000);
    const fresh = (await login(u)).body.mfaVerifyToken as string;
    expect((await validate(fresh, right())).status).to.equal(201);
  });

  it('when 40 wrong codes arrive at once on four challenges, then at most 10 are evaluated and the right code then gets 429', async () => {
    const u = await appUser();
    clock.advance(HOUR);
    const tokens = await Promise.all([1, 2, 3, 4].map(async () => (await login(u)).body.mfaVerifyToken as string));
    const burst = await Promise.all(tokens.flatMap((t) => Array.from({ length: 10 }, () => validate(t, wrong()))));
    const counted = await app.deps.database.db.selectFrom('login_failures').select('key').where('key', '=', `mfa:${u.id}`).execute();
    expect(counted.length).to.equal(10);
    expect((statuses(burst)[429] ?? 0) + (statuses(burst)[401] ?? 0)).to.equal(40);
    expectError(await validate((await login(u)).body.mfaVerifyToken, right()), 429);
  });

  it('when resend-otp is called a sixth time within an hour, then 429; the open challenge still takes the right code', async () => {
    const u = await appUser();
    clock.advance(HOUR);
    let token = (await login(u)).body.mfaVerifyToken as string;
    for (let i = 0; i < 5; i++) {
      const res = await resend(token);
      expect(res.status, `resend ${i + 1}`).to.equal(201);
      token = res.body.mfaVerifyToken;
    }
    expectError(await resend(token), 429);
    expect((await validate(token, right())).status).to.equal(201);
  });
});

describe('security: a burst of logins is evaluated at most up to the throttle (issue 16, point 2)', function () {
  this.timeout(120_000);
  let app: TestApp;
  const login = (email: string, password: string) => app.request('POST', '/v2/authentication/', { body: { email, password } });

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('when 150 logins for one e-mail arrive at once (149 wrong, then the right one), then at most 10 are evaluated (401) and the rest, the right one too, get 429', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account);
    const burst = await Promise.all([...Array.from({ length: 149 }, (_, i) => login(u.email, `wrong-${i}`)), login(u.email, u.password)]);
    expect(statuses(burst)).to.deep.equal({ 401: 10, 429: 140 });
    expectError(burst.at(-1) as TestResponse, 429);
  });

  it('when 150 logins for 150 e-mails from one address arrive at once, then at most 100 are evaluated', async () => {
    const burst = await Promise.all(Array.from({ length: 150 }, (_, i) => login(`nobody-${i}@example.test`, 'wrong password')));
    const s = statuses(burst);
    expect(s[401]).to.be.at.most(100 - 10); // the 10 failures of the test before came from this address too
    expect((s[401] ?? 0) + (s[429] ?? 0)).to.equal(150);
  });
});

describe('security: parallel right passwords are all served', function () {
  this.timeout(120_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('when 20 logins with the right password for one e-mail arrive at once, then all 20 get 201 (they wait for a place, they are not refused)', async () => {
    const u = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account);
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => app.request('POST', '/v2/authentication/', { body: { email: u.email, password: u.password } })),
    );
    expect(statuses(burst)).to.deep.equal({ 201: 20 });
  });
});

describe('security: access tokens (issue 16, point 3)', () => {
  const JWT_SECRET = 'a-test-secret-of-at-least-thirty-two-characters';
  let app: TestApp;
  let user: { id: number; tenantId: number };

  before(async () => {
    app = await startTestApp({ env: { TARS_JWT_SECRET: JWT_SECRET } });
    user = await buildUser(app.deps.database.db, (await buildTenant(app.deps.database.db)).id, ROLE.account);
  });
  after(() => app.close());

  const probe = (authorization: string) =>
    app.request('GET', '/v2/webhooks', { query: { tenantId: user.tenantId }, headers: { authorization } });

  it('when a token signed with the real secret has no exp, then 401; the same claims with exp pass', async () => {
    const forever = jwt.sign({ uid: user.id, ver: 0 }, JWT_SECRET, { algorithm: 'HS256' });
    expectError(await probe(`Bearer ${forever}`), 401);
    expectError(await app.request('POST', '/v2/authentication/jwt', { body: { accessToken: forever } }), 401);
    const expiring = jwt.sign({ uid: user.id, ver: 0 }, JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 });
    expect((await probe(`Bearer ${expiring}`)).status).to.equal(200);
  });

  it('when the scheme is written bearer or BEARER, then the token is accepted (RFC 9110: case-insensitive)', async () => {
    const token = await tokenFor(app, user);
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) expect((await probe(`${scheme} ${token}`)).status, scheme).to.equal(200);
    expectError(await probe(`Basic ${token}`), 401);
  });
});
