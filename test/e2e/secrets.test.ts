import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Secret, TOTP } from 'otpauth';
import { startServe, type RunningServer } from '../helpers/cli';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { until } from '../helpers/until';
import { FIXTURES } from '../helpers/pbx-logs';
import { RecordingClient, secretsIn, valuesOf } from '../helpers/secret-scan';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

/*
 * A representative part of the API against a real `tars serve --seed` at log level trace, then every secret
 * of the fixture and every secret the run made is looked for in the whole log output (stdout and stderr)
 * and in every response where it does not belong.
 */
const acme = JSON.parse(readFileSync(join(FIXTURES, 'acme.json'), 'utf8'));
const EXTRA_USERS = [
  {
    id: 9,
    email: 'mail-mfa@acme.example',
    password: 'acme-mail-mfa-pass',
    tenantId: 1,
    userRole: 3,
    mfaEnabled: 1,
    mfaMode: 'email',
    mfaEmailVerified: 1,
  },
  {
    id: 10,
    email: 'sms-mfa@acme.example',
    password: 'acme-sms-mfa-pass',
    tenantId: 1,
    userRole: 3,
    mfaEnabled: 1,
    mfaMode: 'sms',
    mfaPhoneNumber: '+13125550199',
    mfaSmsVerified: 1,
  },
];
const ENV = {
  TARS_LOG_LEVEL: 'trace',
  TARS_JWT_SECRET: 'jwt-secret-of-the-secrets-test-0123456789',
  TARS_METRICS_TOKEN: 'metrics-token-of-the-test',
  TARS_WEBHOOK_RETRY_BASE: '1s',
  TARS_WEBHOOK_ALLOW: '127.0.0.1',
};
const ENTER = '1793700000|1793700000.900|400|NONE|ENTERQUEUE||+13125559999|1';
type User = { email: string; password: string; mfaEnabled?: number; mfaMode?: string; mfaAppSecret?: string };

describe('secrets: absent from the log and from every response where they do not belong (e2e, real process, log level trace)', function () {
  this.timeout(120_000);
  let dir: string;
  let smtp: TestSmtp;
  let sms: HttpReceiver;
  let hooks: HttpReceiver;
  let server: RunningServer;
  let client: RecordingClient;
  const users: User[] = [...acme.users, ...EXTRA_USERS];
  const otps: string[] = [];
  const made = new Map<string, string>(); // secrets the run itself chose

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-secrets-'));
    writeFileSync(join(dir, 'fixture.json'), JSON.stringify({ ...acme, users }));
    [smtp, sms, hooks] = [await startSmtp(), await startReceiver(), await startReceiver()];
    // each hook's first delivery is retried
    hooks.respond = (r) => (hooks.requests.filter((x) => x.path === r.path).length === 1 ? 500 : 200);
    const env = { ...ENV, TARS_SMTP_URL: smtp.url, TARS_SMS_GATEWAY_URL: `${sms.url}/send` };
    server = await startServe(['--data-dir', join(dir, 'data'), '--seed', join(dir, 'fixture.json')], { env });
    client = new RecordingClient(server.url);
  });
  after(async () => {
    await server?.stop('SIGKILL');
    for (const s of [smtp, sms, hooks]) await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const login = (u: { email: string; password: string }, path = '/v2/authentication/') =>
    client.call('POST', path, { body: { email: u.email, password: u.password } });
  const validate = (token: string, otp: string) => client.call('POST', '/v2/mfa/validate', { body: { token, otp } });
  const codeIn = (text: string) => {
    const code = /\b(\d{6})\b/.exec(text)?.[1] as string;
    otps.push(code);
    return code;
  };

  /** Logins of every kind: passwords, wrong ones, throttled ones, TOTP, e-mailed and texted codes, a refresh. */
  async function logIn(): Promise<string> {
    for (const u of users.filter((x) => !x.mfaEnabled)) expect((await login(u)).status, u.email).to.equal(201);
    for (const u of users) expect((await login({ email: u.email, password: `wrong-${u.password}` })).status).to.equal(401);
    expect((await login({ email: 'nobody@acme.example', password: 'password-of-nobody' })).status).to.equal(401);
    for (let i = 0; i < 10; i++) await login({ email: 'basic@acme.example', password: `guess-${i}-of-basic` });
    expect((await login({ email: 'basic@acme.example', password: 'acme-basic-pass' })).status, 'throttled').to.equal(429);

    const appUser = users.find((u) => u.mfaMode === 'app') as User;
    const totp = new TOTP({ secret: Secret.fromBase32(appUser.mfaAppSecret as string), digits: 6, period: 30, algorithm: 'SHA1' });
    const app = await login(appUser, '/v2/authentication/mfa');
    expect((await validate(app.body.mfaVerifyToken, '000000' === totp.generate() ? '111111' : '000000')).status).to.equal(401);
    expect((await validate(app.body.mfaVerifyToken, codeIn(totp.generate()))).status).to.equal(201);

    const mail = await login(EXTRA_USERS[0] as User, '/v2/authentication/mfa');
    const resent = await client.call('POST', '/v2/mfa/resend-otp', { body: { token: mail.body.mfaVerifyToken } });
    codeIn((await smtp.next()).parsed.text ?? '');
    expect((await validate(resent.body.mfaVerifyToken, codeIn((await smtp.next()).parsed.text ?? ''))).status).to.equal(201);
    smtp.refuse = true;
    expect((await login(EXTRA_USERS[0] as User, '/v2/authentication/mfa')).status, 'mail refused').to.equal(503);
    smtp.refuse = false;

    const texted = await login(EXTRA_USERS[1] as User, '/v2/authentication/mfa');
    await until(() => sms.requests.length > 0);
    expect((await validate(texted.body.mfaVerifyToken, codeIn(sms.requests[0]?.body ?? ''))).status).to.equal(201);

    const admin = await login(acme.users[1]);
    const refreshed = await client.call('POST', '/v2/authentication/jwt', { body: { accessToken: admin.body.accessToken } });
    expect(refreshed.status).to.equal(201);
    return refreshed.body.accessToken as string;
  }

  /** Webhooks with credentials (basic, bearer, in the URL), changed, their secret read and rotated, delivered with a retry. */
  async function useWebhooks(token: string): Promise<void> {
    made.set('webhook password (made)', 'hook-password-made-here').set('webhook authtoken (made)', 'hook-bearer-made-here');
    made.set('webhook password (changed)', 'hook-password-changed').set('password in a webhook URL', 'url-password-made-here');
    const create = (body: object) => client.call('POST', '/v2/webhooks/', { token, body: { tenantId: 1, type: 'STARTCALL', ...body } });
    const basic = await create({ url: `${hooks.url}/basic`, username: 'hooker', password: made.get('webhook password (made)') });
    await create({ url: `${hooks.url}/bearer`, authtoken: made.get('webhook authtoken (made)') });
    await create({ url: `http://hooker:${made.get('password in a webhook URL')}@127.0.0.1:${hooks.port}/userinfo` });
    expect(basic.status).to.equal(201);
    const id = basic.body.id as number;
    expect(
      (await client.call('PATCH', `/v2/webhooks/${id}`, { token, body: { password: made.get('webhook password (changed)') } })).status,
    ).to.equal(200);
    expect((await client.call('GET', `/v2/webhooks/${id}`, { token })).status).to.equal(200);
    expect((await client.call('GET', '/v2/webhooks/', { token, query: { tenantId: 1 } })).status).to.equal(200);
    expect((await client.call('GET', `/v2/webhooks/${id}/secret`, { token })).status).to.equal(200);
    expect((await client.call('POST', `/v2/webhooks/${id}/secret/rotate`, { token })).status).to.equal(201);
    expect((await client.call('POST', '/v2/reporting/ingest/queue-log', { token, body: { lines: [ENTER] } })).status).to.equal(201);
    await until(() => ['/basic', '/bearer'].every((p) => hooks.requests.filter((r) => r.path === p).length === 2), { ms: 30_000 });
    expect(hooks.requests.find((r) => r.path === '/bearer')?.headers.authorization).to.equal(
      `Bearer ${made.get('webhook authtoken (made)')}`,
    );
    expect((await client.call('GET', `/v2/webhooks/${id}/deliveries`, { token })).status).to.equal(200);
    expect((await client.call('GET', '/metrics', { headers: { authorization: `Bearer ${ENV.TARS_METRICS_TOKEN}` } })).status).to.equal(200);
    expect((await client.call('GET', '/metrics', { headers: { authorization: 'Bearer not-the-metrics-token' } })).status).to.equal(401);
    expect((await client.call('GET', '/v2/webhooks/1', { token: `${token.slice(0, -4)}AAAA` })).status, 'a forged token').to.equal(401);
  }

  /** Self-service (issue 19): an authenticator app enrolled, "me" read, a password reset by its e-mailed token. */
  async function useAccount(): Promise<void> {
    const reports = { email: 'reports@acme.example', password: 'acme-reports-pass' };
    const token = (await login(reports)).body.accessToken as string;
    const setup = await client.call('POST', '/v2/mfa/auth/setup', { token, body: { mode: 'app', password: reports.password } });
    expect(setup.status).to.equal(201);
    made.set('TOTP secret (enrolled)', setup.body.secret as string);
    const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret as string), digits: 6, period: 30, algorithm: 'SHA1' });
    const verified = await client.call('POST', '/v2/mfa/auth/verify', { token, body: { mode: 'app', otp: codeIn(totp.generate()) } });
    expect(verified.status).to.equal(201);
    // Enrolling ended the earlier token; the answer carries the new one.
    expect((await client.call('GET', '/v2/users/me', { token: verified.body.accessToken as string })).status).to.equal(200);
    expect((await client.call('POST', '/v2/users/request-password-reset', { body: { email: reports.email } })).status).to.equal(201);
    const resetToken = /\n\n([A-Za-z0-9_-]{43})\n\n/.exec((await smtp.next()).parsed.text ?? '')?.[1] as string;
    made.set('password-reset token', resetToken).set('password set by a reset', 'reports-new-password-1');
    const reset = await client.call('POST', '/v2/users/reset-password', {
      body: { token: resetToken, password: 'reports-new-password-1' },
    });
    expect(reset.status).to.equal(201);
  }

  /** Every secret the database holds, read after the run: hashes, signing secrets (current and previous). */
  function storedSecrets(): Map<string, string> {
    const db = new SqliteDatabase(join(dir, 'data', 'tars.db'), { readonly: true });
    try {
      const found = new Map<string, string>();
      for (const r of db.prepare('SELECT email, password_hash FROM users').all() as { email: string; password_hash: string }[])
        found.set(`password hash of ${r.email}`, r.password_hash);
      for (const r of db.prepare('SELECT id, secret, previous_secret FROM webhooks').all() as {
        id: number;
        secret: string;
        previous_secret: string | null;
      }[]) {
        found.set(`signing secret of webhook ${r.id}`, r.secret);
        if (r.previous_secret) found.set(`previous signing secret of webhook ${r.id}`, r.previous_secret);
      }
      return found;
    } finally {
      db.close();
    }
  }

  it('when logins of every kind, webhooks with credentials and deliveries ran, then no password, SIP or MFA secret, webhook credential, signing secret, hash or token is in the log, and none in a response where it does not belong', async () => {
    const token = await logIn();
    await useWebhooks(token);
    await useAccount();
    expect(await server.stop('SIGTERM')).to.equal(0);

    const fixtureSecrets = new Map<string, string>([
      ...users.map((u): [string, string] => [`password of ${u.email}`, u.password]),
      ...users.map((u): [string, string] => [`wrong password tried for ${u.email}`, `wrong-${u.password}`]),
      ...[...Array(10).keys()].map((i): [string, string] => [`guess ${i}`, `guess-${i}-of-basic`]),
      ['password of an unknown e-mail', 'password-of-nobody'],
      ['peerSecret', 's1p-secret-101'],
      ['mfaAppSecret', 'JBSWY3DPEHPK3PXP'],
      ...acme.webhooks.flatMap((w: { id: number; password: string | null; authtoken: string | null }) => [
        ...(w.password ? [[`password of webhook ${w.id}`, w.password] as [string, string]] : []),
        ...(w.authtoken ? [[`authtoken of webhook ${w.id}`, w.authtoken] as [string, string]] : []),
      ]),
      ['JWT secret', ENV.TARS_JWT_SECRET],
      ['metrics token', ENV.TARS_METRICS_TOKEN],
    ]);
    const stored = storedSecrets();
    const tokens = new Map([...client.tokens].map((t, i): [string, string] => [`token ${i} issued`, t]));
    const everything = new Map([...fixtureSecrets, ...made, ...stored, ...tokens]);
    const log = server.output();
    expect(log.split('\n').length, 'the log is the trace of the run').to.be.greaterThan(60);
    expect(secretsIn(log, everything), 'secrets in the log').to.deep.equal([]);
    expect(
      otps.filter((code) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(log)),
      'one-time codes in the log',
    ).to.deep.equal([]);

    const signing = new Map([...stored].filter(([label]) => label.includes('signing secret')));
    const hashes = new Map([...stored].filter(([label]) => label.startsWith('password hash')));
    for (const x of client.exchanges) {
      const where = `${x.method} ${x.path} → ${x.status}`;
      expect(secretsIn(x.text, hashes), where).to.deep.equal([]);
      expect(secretsIn(x.text, new Map([...signing, ['JWT secret', ENV.TARS_JWT_SECRET]])).length, where).to.equal(
        /\/secret(\/rotate)?$/.test(x.path) ? 1 : 0,
      );
      expect(
        [...valuesOf(x.body, 'mfaAppSecret'), ...valuesOf(x.body, 'otp')].filter((v) => v !== ''),
        where,
      ).to.deep.equal([]);
      const enrolled = secretsIn(x.text, new Map([...made].filter(([label]) => label.startsWith('TOTP') || label.startsWith('password-'))));
      expect(enrolled, where).to.deep.equal(x.path === '/v2/mfa/auth/setup' ? ['TOTP secret (enrolled)'] : []);
      const ownLogin = /^\/v2\/(authentication|mfa\/validate)/.test(x.path) && (x.body as { user?: { id?: number } })?.user?.id === 2;
      expect(x.text.includes('s1p-secret-101'), `peerSecret in ${where}`).to.equal(ownLogin);
    }
  });
});
