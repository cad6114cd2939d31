import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { AmiPeer } from './ami-peer';
import { amiTranscript } from './ami-transcript';
import { send, type RequestOptions, type TestResponse } from './app';
import { startServe, type RunningServer } from './cli';
import { FIXTURES } from './fixtures';
import { startReceiver, type HttpReceiver } from './http-receiver';
import { ASTERISK_FIXTURE } from './live-site';
import { startSmtp, type TestSmtp } from './smtp';
import { until } from './until';

/** The recorded run's account admin (test/fixtures/asterisk/fixture.json). */
export const LAB_ADMIN = { email: 'admin@asterisk-lab.test', password: 'ast22-lab-admin' } as const;
/** Added to that site here: a platform admin, and a tenant that requires MFA with one user who has none yet. */
export const PLATFORM_ADMIN = { email: 'root@asterisk-lab.test', password: 'console-root-password' } as const;
export const ENROLLING = { email: 'new-hire@mfa-required.test', password: 'console-enrol-password' } as const;
/** The lab tenant's zone here (the recording's is UTC): every time the console shows must say which zone it is in. */
export const LAB_ZONE = 'America/Chicago';
export const ROLE_IDS = { account: 3, reports: 9, queues: 7, basic: 5 } as const;

export const totpOf = (secret: string, ms = Date.now()) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms });
export const sixDigits = (text: string) => /(\d{6})/.exec(text)?.[1] as string;

export interface SiteUser {
  readonly id: number;
  readonly email: string;
  readonly password: string;
  readonly token: string;
}

export interface ConsoleSite {
  readonly url: string;
  server: RunningServer;
  readonly peer: AmiPeer;
  readonly smtp: TestSmtp;
  readonly sms: HttpReceiver;
  readonly admin: SiteUser;
  /** The server's data directory (a CLI command may run on it while the server runs). */
  readonly dataDir: string;
  call<T = any>(method: string, path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  /** A user of tenant 1 made through the API by the account admin. */
  makeUser(role: number, over?: { extId?: number; email?: string; password?: string }): Promise<SiteUser>;
  /** The last SMS code sent (the SMS receiver's last request). */
  lastSmsCode(): string;
  /** Stops `tars serve` and starts it again on the same port and data directory (clients must reconnect). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

let users = 0;

/** The recorded run's queue_log (21 minutes) moved to end 10 minutes ago, so that today's counters have its calls. */
function queueLogOfToday(): string[] {
  const lines = readFileSync(join(FIXTURES, 'asterisk', 'queue_log'), 'utf8')
    .split('\n')
    .filter(Boolean);
  const last = Number(lines.at(-1)?.split('|')[0]);
  const shift = Math.floor(Date.now() / 1000) - 600 - last;
  return lines.map((l) => l.replace(/^(\d+)/, (t) => String(Number(t) + shift)));
}

/** The recorded run's fixture with this site's additions (see PLATFORM_ADMIN, ENROLLING, LAB_ZONE). */
function siteFixture(file: string): void {
  const f = JSON.parse(readFileSync(ASTERISK_FIXTURE, 'utf8'));
  f.branches[0].timezone = LAB_ZONE;
  f.tenants.push({ id: 2, name: 'MFA Required Co', partnerId: 2, mfaRequired: 1 });
  f.branches.push({ id: 2, tenantId: 2, name: 'Head office', timezone: 'Europe/Berlin', default: 1 });
  f.users.push(
    { id: 100, ...PLATFORM_ADMIN, tenantId: 1, branchId: 1, userRole: 1, title: 'Platform administrator', timezone: 'UTC' },
    { id: 101, ...ENROLLING, tenantId: 2, branchId: 2, userRole: 3, title: 'New hire', timezone: 'UTC' },
  );
  writeFileSync(file, JSON.stringify(f));
}

/**
 * The real program (`tars serve` of dist/tars.cjs, or the executable of TARS_E2E_BIN) on the recorded Asterisk
 * run's site: its AMI link to a peer on loopback that replays the run, a real SMTP sink and SMS receiver for the
 * MFA codes, today's queue_log ingested, and alert thresholds on Sales (queue 1) for the wallboard's colours.
 */
export async function startConsoleSite(opts: { program?: string; env?: Record<string, string> } = {}): Promise<ConsoleSite> {
  const smtp = await startSmtp();
  const sms = await startReceiver();
  const peer = new AmiPeer(amiTranscript());
  await peer.listen();
  const dir = mkdtempSync(join(tmpdir(), 'tars-console-'));
  siteFixture(join(dir, 'fixture.json'));
  const env = {
    TARS_SMTP_URL: smtp.url,
    TARS_SMS_GATEWAY_URL: `${sms.url}/send`,
    TARS_AMI_URL: peer.url,
    TARS_LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const args = ['--data-dir', join(dir, 'data'), '--seed', join(dir, 'fixture.json')];
  let server = await startServe(args, { env, program: opts.program });
  const url = server.url;
  const call = <T = any>(method: string, path: string, opts?: RequestOptions) => send<T>(url, method, path, opts);
  const login = async (email: string, password: string) => {
    const res = await call('POST', '/v2/authentication', { body: { email, password } });
    if (res.status !== 201) throw new Error(`sign-in of ${email}: ${res.status} ${res.text}`);
    return res.body as { user: { id: number }; accessToken: string };
  };
  const adminLogin = await login(LAB_ADMIN.email, LAB_ADMIN.password);
  const admin = { id: adminLogin.user.id, ...LAB_ADMIN, token: adminLogin.accessToken };
  await until(
    async () => (await call('GET', '/v2/reporting/queues/live', { token: admin.token, query: { tenantId: 1 } })).body?.connected === true,
    { what: 'the AMI link', ms: 15_000 },
  );
  const ingest = await call('POST', '/v2/reporting/ingest/queue-log', { token: admin.token, body: { lines: queueLogOfToday() } });
  if (ingest.status >= 300) throw new Error(`ingest: ${ingest.status} ${ingest.text}`);
  const alerts = { maxCallersWaiting: 2, maxLongestWaitSeconds: 60, minServiceLevelPercent: 80, noAgentAvailable: true };
  await call('PUT', '/v2/queues/1/alerts', { token: admin.token, body: alerts });
  // Heidi Clark (extension 208, id 8) is a configured member of Billing: logged out until she logs in.
  await call('PATCH', '/v2/queues/3', { token: admin.token, body: { members: [8] } });
  return {
    url,
    get server() {
      return server;
    },
    peer,
    smtp,
    sms,
    admin,
    dataDir: join(dir, 'data'),
    call,
    async makeUser(role, over = {}) {
      const email = over.email ?? `console-user-${++users}-${Date.now()}@asterisk-lab.test`;
      const password = over.password ?? 'console test password';
      const made = await call('POST', '/v2/admin/users', {
        token: admin.token,
        body: { tenantId: 1, email, password, userRole: role, ...(over.extId ? { extId: over.extId } : {}) },
      });
      if (made.status !== 201) throw new Error(`user ${email}: ${made.status} ${made.text}`);
      const signedIn = await login(email, password);
      return { id: signedIn.user.id, email, password, token: signedIn.accessToken };
    },
    lastSmsCode: () => sixDigits((JSON.parse(sms.requests.at(-1)?.body ?? '{}') as { message?: string }).message ?? ''),
    async restart() {
      await server.stop();
      server = await startServe([...args, '--port', new URL(url).port], { env, program: opts.program });
    },
    async close() {
      await server.stop();
      await peer.close();
      await smtp.close();
      await sms.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
