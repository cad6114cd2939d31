import { expect } from 'chai';
import { parseSetCookie } from 'cookie';
import { Secret, TOTP } from 'otpauth';
import { startTestApp, TestClock, type TestApp, type TestResponse } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildAppMfaUser, buildBranch, buildTenant, buildUser, ROLE, tokenFor, type BuiltUser } from '../helpers/factories';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { SseClient } from '../helpers/sse';
import { until } from '../helpers/until';

const codeOf = (secret: string, ms: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms });
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

/** The session cookie a sign-in answer sets, as a Cookie header, with the Set-Cookie attributes. */
function sessionCookie(res: TestResponse) {
  const header = res.headers.get('set-cookie');
  expect(header, `no Set-Cookie in ${res.status} ${res.text}`).to.be.a('string');
  const parsed = parseSetCookie(header as string);
  return { header: `${parsed.name}=${parsed.value}`, parsed, raw: header as string };
}

describe('the console session: an HttpOnly cookie from the API sign-in steps (issue 30)', () => {
  const clock = new TestClock();
  let app: TestApp;
  let smtp: TestSmtp;
  const db = () => app.deps.database.db;
  const as = (cookie: string, headers: Record<string, string> = SAME_ORIGIN) => ({ headers: { cookie, ...headers } });
  const signIn = (u: BuiltUser, headers: Record<string, string> = SAME_ORIGIN) =>
    app.request('POST', '/v2/console/session', { body: { email: u.email, password: u.password }, headers });

  before(async () => {
    smtp = await startSmtp();
    app = await startTestApp({ clock, env: { TARS_SMTP_URL: smtp.url, TARS_TOKEN_TTL: '2d' }, liveStreams: { refreshMs: 100 } });
  });
  after(async () => {
    await app.close();
    await smtp.close();
  });

  it('when a user without MFA signs in, then it gets its user, tenant and expiry, and an HttpOnly SameSite=Strict cookie instead of a token, which authenticates API calls', async () => {
    const tenant = await buildTenant(db(), { name: 'Cookie Co' });
    await buildBranch(db(), tenant.id, { timezone: 'Europe/Berlin', isDefault: 1 });
    const u = await buildUser(db(), tenant.id, ROLE.queues);
    const res = await signIn(u);
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.keys(['user', 'tenant', 'expiresAt']);
    expect(res.text).not.to.include('accessToken');
    expect(res.body.user).to.include({ id: u.id, email: u.email });
    expect(res.body.tenant).to.deep.equal({ id: tenant.id, name: 'Cookie Co', timezone: 'Europe/Berlin' });
    expect(res.body.expiresAt).to.equal(new Date(clock.now() + 2 * 86_400_000).toISOString());
    const { header, parsed, raw } = sessionCookie(res);
    expect(parsed).to.include({ name: 'tars_session', path: '/', httpOnly: true, sameSite: 'strict', maxAge: 2 * 86_400 });
    expect(raw).not.to.match(/;\s*Secure/i); // plain HTTP here: a Secure cookie would never come back
    expect(parsed.value).to.match(/^[A-Za-z0-9_-]{43}$/);
    const stored = await db().selectFrom('console_sessions').selectAll().where('user_id', '=', u.id).execute();
    expect(stored).to.have.length(1);
    expect(JSON.stringify(stored)).not.to.include(parsed.value as string); // only its hash is kept

    const me = await app.request('GET', '/v2/users/me', as(header));
    expect(me.status, me.text).to.equal(200);
    expect(me.body.id).to.equal(u.id);
    const session = await app.request('GET', '/v2/console/session', as(header));
    expect(session.status).to.equal(200);
    expect(session.body.user.id).to.equal(u.id);
    // Without Sec-Fetch-Site, an Origin naming this server passes too (a browser without it).
    const host = new URL(app.url).host;
    expect((await app.request('GET', '/v2/users/me', as(header, { origin: `http://${host}` }))).status).to.equal(200);
  });

  it('when a request carrying the cookie comes from another origin, then it is refused with 403 whatever its method, and nothing changes', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const { header } = sessionCookie(await signIn(u));
    const others: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
    ];
    for (const headers of others) {
      expectError(await app.request('GET', '/v2/users/me', as(header, headers)), 403);
      const patch = await app.request('PATCH', '/v2/users/user-settings/dark-mode', { ...as(header, headers), body: { darkMode: 1 } });
      expectError(patch, 403);
      expect(patch.body.message).to.match(/own origin/);
      expectError(await app.request('POST', '/v2/console/session', { body: { email: u.email, password: u.password }, headers }), 403);
    }
    const row = await db().selectFrom('users').select('dark_mode').where('id', '=', u.id).executeTakeFirstOrThrow();
    expect(row.dark_mode).to.equal(0);
    const same = await app.request('PATCH', '/v2/users/user-settings/dark-mode', { ...as(header), body: { darkMode: 1 } });
    expect(same.status, same.text).to.equal(200);
  });

  it('when a request sends an Authorization header, then that alone decides: a bad token with a good cookie is 401', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const { header } = sessionCookie(await signIn(u));
    expectError(await app.request('GET', '/v2/users/me', { headers: { cookie: header, authorization: 'Bearer x.y.z' } }), 401);
    const token = await tokenFor(app, u);
    expect((await app.request('GET', '/v2/users/me', { headers: { cookie: 'tars_session=forged' }, token })).status).to.equal(200);
    expectError(await app.request('GET', '/v2/users/me', as('tars_session=forged')), 401);
    expectError(await app.request('GET', '/v2/users/me', as(`tars_session=${'A'.repeat(43)}`)), 401);
  });

  it('when the user signs out, then the session ends on the server: the same cookie sent again is 401, and the cookie is removed', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const { header } = sessionCookie(await signIn(u));
    const out = await app.request('DELETE', '/v2/console/session', as(header));
    expect(out.status).to.equal(200);
    expect(out.body).to.deep.equal({ status: 'success', message: 'Signed out' });
    expect(sessionCookie(out).parsed).to.include({ name: 'tars_session', value: '', maxAge: 0 });
    expectError(await app.request('GET', '/v2/users/me', as(header)), 401);
    expectError(await app.request('GET', '/v2/console/session', as(header)), 401);
    expect(await db().selectFrom('console_sessions').selectAll().where('user_id', '=', u.id).execute()).to.deep.equal([]);
    // Signing out again, or without a cookie, answers alike.
    expect((await app.request('DELETE', '/v2/console/session', as(header))).status).to.equal(200);
    expectError(await app.request('DELETE', '/v2/console/session', { headers: { cookie: header, origin: 'http://evil.example' } }), 403);
  });

  it('when the password changes, then every console session of the user ends (as its access tokens do)', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const first = sessionCookie(await signIn(u)).header;
    const second = sessionCookie(await signIn(u)).header;
    const change = await app.request('POST', '/v2/users/manual-reset-password', {
      ...as(first),
      body: { password: 'a brand new password', currentPassword: u.password },
    });
    expect(change.status, change.text).to.equal(201);
    expectError(await app.request('GET', '/v2/users/me', as(first)), 401);
    expectError(await app.request('GET', '/v2/users/me', as(second)), 401);
  });

  it('when a session is unused for 12 hours or reaches TARS_TOKEN_TTL, then it has ended; use within the idle time keeps it', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const idle = sessionCookie(await signIn(u)).header;
    const used = sessionCookie(await signIn(u)).header;
    for (let h = 0; h < 4; h++) {
      clock.advance(11 * 3_600_000);
      expect((await app.request('GET', '/v2/users/me', as(used))).status, `after ${11 * (h + 1)} h`).to.equal(200);
    }
    expectError(await app.request('GET', '/v2/users/me', as(idle)), 401);
    clock.advance(5 * 3_600_000); // 49 h since sign-in: past the 2-day lifetime
    expectError(await app.request('GET', '/v2/users/me', as(used)), 401);
  });

  it('when a user with e-mail MFA signs in, then the challenge comes back, and its code completes the sign-in with the cookie; a wrong code gets none', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic, { mfa_enabled: 1, mfa_mode: 'email', mfa_email_verified: 1 });
    const start = await signIn(u);
    expect(start.status, start.text).to.equal(201);
    expect(start.body).to.include({ mode: 'email' });
    expect(start.headers.get('set-cookie')).to.equal(null);
    const code = /(\d{6})/.exec((await smtp.next()).parsed.text ?? '')?.[1] as string;
    const wrong = await app.request('POST', '/v2/console/session/mfa', {
      body: { token: start.body.mfaVerifyToken, otp: code === '000000' ? '111111' : '000000' },
      headers: SAME_ORIGIN,
    });
    expectError(wrong, 401);
    expect(wrong.headers.get('set-cookie')).to.equal(null);
    const done = await app.request('POST', '/v2/console/session/mfa', {
      body: { token: start.body.mfaVerifyToken, otp: code },
      headers: SAME_ORIGIN,
    });
    expect(done.status, done.text).to.equal(201);
    expect(done.body.user.id).to.equal(u.id);
    expect((await app.request('GET', '/v2/users/me', as(sessionCookie(done).header))).body.id).to.equal(u.id);
  });

  it('when a user with an authenticator app signs in, then its current code completes the sign-in', async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const u = await buildAppMfaUser(db(), secret);
    const start = await signIn(u);
    expect(start.body).to.include({ mode: 'app' });
    const done = await app.request('POST', '/v2/console/session/mfa', {
      body: { token: start.body.mfaVerifyToken, otp: codeOf(secret, clock.now()) },
      headers: SAME_ORIGIN,
    });
    expect(done.status, done.text).to.equal(201);
    expect(sessionCookie(done).parsed.httpOnly).to.equal(true);
  });

  it('when the tenant requires MFA, then the user enrols an authenticator app (the QR code) and its first code signs it in with the cookie', async () => {
    const tenant = await buildTenant(db());
    await db().updateTable('tenants').set({ mfa_required: 1 }).where('id', '=', tenant.id).execute();
    const u = await buildUser(db(), tenant.id, ROLE.account);
    const start = await signIn(u);
    expect(Object.keys(start.body).sort()).to.deep.equal(['message', 'mfaSetupToken']);
    const token = start.body.mfaSetupToken as string;
    const setup = await app.request('POST', '/v2/mfa/setup', { body: { mode: 'app', token } });
    expect(setup.body.qrcode).to.match(/^data:image\/png;base64,/);
    const body = { mode: 'app', token, secret: setup.body.secret, otp: codeOf(setup.body.secret, clock.now()) };
    const done = await app.request('POST', '/v2/console/session/mfa-setup', { body, headers: SAME_ORIGIN });
    expect(done.status, done.text).to.equal(201);
    expect(done.body.user).to.include({ id: u.id, mfaEnabled: 1, mfaMode: 'app' });
    expect((await app.request('GET', '/v2/users/me', as(sessionCookie(done).header))).status).to.equal(200);
  });

  it('when the password is wrong, then 401 and no cookie; the attempts count in the API login throttle', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.basic);
    const wrong = await app.request('POST', '/v2/console/session', {
      body: { email: u.email, password: 'not the password' },
      headers: SAME_ORIGIN,
    });
    expectError(wrong, 401);
    expect(wrong.headers.get('set-cookie')).to.equal(null);
    const failures = await db().selectFrom('login_failures').selectAll().where('key', 'like', `%${u.email}%`).execute();
    expect(failures.length).to.be.greaterThan(0);
  });

  it('when a wallboard reads the live stream with the cookie, then it is served; once signed out, the stream ends at the next check', async () => {
    const u = await buildUser(db(), (await buildTenant(db())).id, ROLE.queues);
    const { header } = sessionCookie(await signIn(u));
    const stream = await SseClient.open(`${app.url}/v2/reporting/queues/live/stream`, undefined, { cookie: header, ...SAME_ORIGIN });
    try {
      expect(stream.status).to.equal(200);
      expect((await stream.nth(1)).data.tenantId).to.equal(u.tenantId);
      expect(stream.ended).to.equal(false);
      await app.request('DELETE', '/v2/console/session', as(header));
      await until(() => stream.ended, { what: 'the stream to end' });
    } finally {
      stream.close();
    }
  });
});
