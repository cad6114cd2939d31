import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { parseAmiUrls, type AmiTarget } from './ami/ami-client';
import { databaseUrlProblems } from './db/engine';
import { DEFAULT_DENY, parsePolicyList } from './net/url-policy';
import { isTimezone, machineZone } from './time/zone';

/**
 * The server's configuration: command-line flags win over TARS_* environment variables, which win over
 * the defaults. Every problem is collected and reported at once (ConfigError), never one at a time.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /**
   * PostgreSQL instead of the data directory's SQLite file (TARS_DATABASE_URL, --database-url; issue 32, which
   * docs/postgresql.md follows): undefined, SQLite.
   */
  readonly databaseUrl: string | undefined;
  readonly seed: string | undefined;
  readonly adminEmail: string;
  readonly adminPassword: string | undefined;
  /** From TARS_JWT_SECRET; when absent the secret is generated into the data directory. */
  readonly jwtSecret: string | undefined;
  readonly tokenTtlSeconds: number;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly smsGatewayUrl: string | undefined;
  readonly logLevel: LogLevel;
  /** Express "trust proxy" setting, so that the login throttle sees the real client address behind a proxy. */
  readonly trustProxy: boolean;
  /** Scheduled reports: local hour (tenant's timezone) at which a period's report is due. */
  readonly reportHour: number;
  /** Scheduled reports: how far back missed periods are still sent when the server comes back. */
  readonly reportCatchUpDays: number;
  /** Scheduled reports: attempts before a run is given up. */
  readonly reportAttempts: number;
  /** Webhook destinations: when not empty, only these hosts/ranges; the deny list always wins. */
  readonly webhookAllow: readonly string[];
  readonly webhookDeny: readonly string[];
  readonly webhookTimeoutMs: number;
  readonly webhookAttempts: number;
  /** First retry delay; each further retry doubles it (with jitter), up to an hour. */
  readonly webhookRetryBaseMs: number;
  /** GET /metrics is served (Prometheus text format). */
  readonly metrics: boolean;
  /** When set, a scrape of /metrics must send it as a bearer token. */
  readonly metricsToken: string | undefined;
  /** The zone of the PBX's wall-clock log times (reporting.md R16): TARS_PBX_TIMEZONE, else the machine's zone. */
  readonly pbxTimezone: string;
  /**
   * The PBX's configuration directory on this server (TARS_PBX_CONFIG_DIR, an absolute path): the console's
   * "Config sync" plans `tars pbx sync` from it (GET /v2/pbx/config/plan); undefined: not set.
   */
  readonly pbxConfigDir: string | undefined;
  /** The PBXs whose manager interface (AMI) the live layer connects to (TARS_AMI_URL); empty: no live layer. */
  readonly amiTargets: readonly AmiTarget[];
  /** HTTPS: the certificate chain and private key (PEM) of TARS_TLS_CERT and TARS_TLS_KEY, read and checked at start; undefined: HTTP. */
  readonly tls: { readonly cert: Buffer; readonly key: Buffer } | undefined;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Flags as parsed from the command line; names match the long options. */
export interface ConfigFlags {
  port?: string;
  host?: string;
  'data-dir'?: string;
  'database-url'?: string;
  seed?: string;
  'pbx-config-dir'?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** One row per setting: the README's configuration table is written from the same facts. */
export const SETTINGS = [
  ['--port', 'TARS_PORT', '8080', 'TCP port; 0 picks a free one'],
  ['--host', 'TARS_HOST', '0.0.0.0', 'address to listen on'],
  ['--data-dir', 'TARS_DATA_DIR', './data', 'directory of the SQLite file and the JWT secret'],
  [
    '--database-url',
    'TARS_DATABASE_URL',
    '',
    'PostgreSQL instead of the SQLite file: postgres://user:password@host:5432/database (a Unix socket: ?host=/run/postgresql); unset: SQLite in the data directory (docs/postgresql.md)',
  ],
  ['--seed', 'TARS_SEED', '', 'fixture file loaded on start when the database is empty'],
  ['', 'TARS_ADMIN_EMAIL', 'admin@tars.local', 'e-mail of the first platform administrator'],
  ['', 'TARS_ADMIN_PASSWORD', '(generated, printed once)', 'password of the first platform administrator'],
  ['', 'TARS_JWT_SECRET', '(generated into the data directory)', 'HS256 secret, at least 32 characters'],
  ['', 'TARS_TOKEN_TTL', '30d', 'access token lifetime: seconds, or a number with s, m, h or d'],
  ['', 'TARS_SMTP_URL', '', 'SMTP server for MFA codes and reports, e.g. smtps://user:pass@mail.example:465'],
  ['', 'TARS_MAIL_FROM', 'TARS <tars@localhost>', 'sender of the e-mails'],
  ['', 'TARS_SMS_GATEWAY_URL', '', 'URL that receives POST {to, message} for SMS one-time codes'],
  ['', 'TARS_LOG_LEVEL', 'info', LOG_LEVELS.join(', ')],
  ['', 'TARS_TRUST_PROXY', '0', '1 when behind a reverse proxy that sets X-Forwarded-For'],
  ['', 'TARS_REPORT_HOUR', '6', "hour (0–23, the tenant's local time) when scheduled reports of the period that just ended are sent"],
  ['', 'TARS_REPORT_CATCHUP_DAYS', '7', 'reports that fell due while the server was down are sent on start if due within this many days'],
  ['', 'TARS_REPORT_ATTEMPTS', '5', 'attempts to send a scheduled report before it is marked failed (backoff 1 min, 5 min, 15 min, 1 h …)'],
  [
    '',
    'TARS_WEBHOOK_ALLOW',
    '',
    'webhook destinations allowed (comma-separated host names, addresses, CIDR ranges); empty: any not denied. An entry named here wins over the built-in deny list (e.g. 127.0.0.1 for a receiver on loopback)',
  ],
  [
    '',
    'TARS_WEBHOOK_DENY',
    '',
    `webhook destinations refused in addition to the built-in list (${DEFAULT_DENY.join(',')}: loopback, unspecified, link-local, cloud metadata, multicast); wins over the allow list`,
  ],
  ['', 'TARS_WEBHOOK_TIMEOUT', '10s', 'how long one webhook delivery may take'],
  ['', 'TARS_WEBHOOK_ATTEMPTS', '8', 'attempts per webhook delivery before it is marked failed'],
  ['', 'TARS_WEBHOOK_RETRY_BASE', '10s', 'first retry delay of a failed delivery; doubled each time (with jitter), at most 1 h'],
  ['', 'TARS_METRICS', 'on', 'on: `GET /metrics` serves Prometheus metrics; off: it does not exist'],
  [
    '',
    'TARS_PBX_TIMEZONE',
    "(the machine's zone)",
    "zone of the PBX's wall-clock times in Master.csv and datetime queue_log times (an IANA name such as Europe/Moscow, or UTC); `tars import --timezone` wins",
  ],
  [
    '',
    'TARS_AMI_URL',
    '',
    "the PBX's manager interface for live queues (docs/live-queues.md): `ami://user:secret@host:5038`, `amis://…` for TLS; several comma-separated",
  ],
  [
    '--pbx-config-dir',
    'TARS_PBX_CONFIG_DIR',
    '',
    "the PBX's configuration directory on this server (e.g. a copy of /etc/asterisk): the console's Config sync shows and applies `tars pbx sync`'s plan from it (platform admins; docs/pbx-config.md)",
  ],
  ['', 'TARS_METRICS_TOKEN', '', 'when set (at least 16 characters), a scrape of `/metrics` must send `Authorization: Bearer <token>`'],
  [
    '',
    'TARS_TLS_CERT',
    '',
    'PEM file of the certificate (with its chain) `tars serve` serves HTTPS with, together with TARS_TLS_KEY; unset: plain HTTP (docs/operations.md)',
  ],
  ['', 'TARS_TLS_KEY', '', 'PEM file of the private key of TARS_TLS_CERT (unencrypted; keep it mode 0600)'],
] as const;

type Env = Readonly<Record<string, string | undefined>>;

type SettingName = (typeof SETTINGS)[number][1];

/** The default of a setting, as the table above (and so the README) states it. */
function defaultOf(name: SettingName): string {
  const row = SETTINGS.find((s) => s[1] === name);
  if (!row) throw new Error(`no setting ${name}`);
  return row[2];
}

export function loadConfig(env: Env, flags: ConfigFlags = {}, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const pick = (flag: keyof ConfigFlags | undefined, name: string): string | undefined => {
    const fromFlag = flag ? flags[flag] : undefined;
    const value = fromFlag ?? env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const label = (flag: string, name: string) => (flags[flag as keyof ConfigFlags] !== undefined ? `--${flag}` : name);

  const portText = pick('port', 'TARS_PORT') ?? defaultOf('TARS_PORT');
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    problems.push(`${label('port', 'TARS_PORT')} must be a port number from 0 to 65535, got "${portText}"`);

  const host = pick('host', 'TARS_HOST') ?? defaultOf('TARS_HOST');
  if (/\s/.test(host)) problems.push(`${label('host', 'TARS_HOST')} must be a host name or address, got "${host}"`);

  const dataDir = resolve(cwd, pick('data-dir', 'TARS_DATA_DIR') ?? defaultOf('TARS_DATA_DIR'));
  const databaseUrl = pick('database-url', 'TARS_DATABASE_URL');
  if (databaseUrl !== undefined)
    for (const problem of databaseUrlProblems(databaseUrl)) problems.push(`${label('database-url', 'TARS_DATABASE_URL')} ${problem}`);
  const seedText = pick('seed', 'TARS_SEED');
  const seed = seedText === undefined ? undefined : isAbsolute(seedText) ? seedText : resolve(cwd, seedText);

  const adminEmail = env.TARS_ADMIN_EMAIL || defaultOf('TARS_ADMIN_EMAIL');
  if (!/^[^\s@]+@[^\s@]+$/.test(adminEmail)) problems.push(`TARS_ADMIN_EMAIL must be an e-mail address, got "${adminEmail}"`);
  const adminPassword = env.TARS_ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && adminPassword.length < 8) problems.push('TARS_ADMIN_PASSWORD must be at least 8 characters long');

  const jwtSecret = env.TARS_JWT_SECRET || undefined;
  if (jwtSecret !== undefined && jwtSecret.length < 32) problems.push('TARS_JWT_SECRET must be at least 32 characters long (256 bits)');

  const ttlText = env.TARS_TOKEN_TTL || defaultOf('TARS_TOKEN_TTL');
  const tokenTtlSeconds = parseDuration(ttlText);
  if (tokenTtlSeconds === undefined || tokenTtlSeconds < 60)
    problems.push(`TARS_TOKEN_TTL must be a duration of at least 60 s such as 3600, 90m, 12h or 30d, got "${ttlText}"`);

  const smtpUrl = env.TARS_SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/]+/.test(smtpUrl)) problems.push('TARS_SMTP_URL must be an smtp:// or smtps:// URL');
  const mailFrom = env.TARS_MAIL_FROM || defaultOf('TARS_MAIL_FROM');

  const smsGatewayUrl = env.TARS_SMS_GATEWAY_URL || undefined;
  if (smsGatewayUrl !== undefined && !/^https?:\/\/[^/]+/.test(smsGatewayUrl))
    problems.push('TARS_SMS_GATEWAY_URL must be an http:// or https:// URL');

  const logLevel = (env.TARS_LOG_LEVEL || defaultOf('TARS_LOG_LEVEL')) as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`TARS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  const trustText = env.TARS_TRUST_PROXY || defaultOf('TARS_TRUST_PROXY');
  if (trustText !== '0' && trustText !== '1') problems.push(`TARS_TRUST_PROXY must be 0 or 1, got "${trustText}"`);

  const int = (name: SettingName, min: number, max: number): number => {
    const text = env[name] || defaultOf(name);
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max) problems.push(`${name} must be a whole number from ${min} to ${max}, got "${text}"`);
    return n;
  };
  const reportHour = int('TARS_REPORT_HOUR', 0, 23);
  const reportCatchUpDays = int('TARS_REPORT_CATCHUP_DAYS', 0, 366);
  const reportAttempts = int('TARS_REPORT_ATTEMPTS', 1, 20);
  const list = (name: string, fallback: readonly string[]): string[] => {
    try {
      return parsePolicyList(env[name], fallback);
    } catch (err) {
      problems.push(`${name}: ${(err as Error).message}`);
      return [];
    }
  };
  const webhookAllow = list('TARS_WEBHOOK_ALLOW', []);
  const webhookDeny = list('TARS_WEBHOOK_DENY', []);
  const seconds = (name: SettingName): number => {
    const text = env[name] || defaultOf(name);
    const s = parseDuration(text);
    if (s === undefined || s < 1 || s > 3600) problems.push(`${name} must be a duration from 1 s to 1 h, such as 10s or 2m, got "${text}"`);
    return (s ?? 0) * 1000;
  };
  const webhookTimeoutMs = seconds('TARS_WEBHOOK_TIMEOUT');
  const webhookRetryBaseMs = seconds('TARS_WEBHOOK_RETRY_BASE');
  const webhookAttempts = int('TARS_WEBHOOK_ATTEMPTS', 1, 30);

  const metricsText = env.TARS_METRICS || defaultOf('TARS_METRICS');
  if (metricsText !== 'on' && metricsText !== 'off') problems.push(`TARS_METRICS must be on or off, got "${metricsText}"`);
  const metricsToken = env.TARS_METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken)))
    problems.push('TARS_METRICS_TOKEN must be at least 16 characters long, without spaces');

  const pbxTimezone = env.TARS_PBX_TIMEZONE || machineZone();
  if (!isTimezone(pbxTimezone))
    problems.push(`TARS_PBX_TIMEZONE must be an IANA timezone name such as Europe/Moscow, or UTC, got "${pbxTimezone}"`);

  let amiTargets: AmiTarget[] = [];
  try {
    amiTargets = parseAmiUrls(env.TARS_AMI_URL);
  } catch (err) {
    problems.push(`TARS_AMI_URL: ${(err as Error).message}`);
  }

  const configDirText = pick('pbx-config-dir', 'TARS_PBX_CONFIG_DIR');
  const pbxConfigDir = configDirText === undefined ? undefined : resolve(cwd, configDirText);

  const tls = tlsFiles(env, cwd, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port,
    host,
    dataDir,
    databaseUrl,
    seed,
    adminEmail,
    adminPassword,
    jwtSecret,
    tokenTtlSeconds: tokenTtlSeconds ?? 0,
    smtpUrl,
    mailFrom,
    smsGatewayUrl,
    logLevel,
    trustProxy: trustText === '1',
    reportHour,
    reportCatchUpDays,
    reportAttempts,
    webhookAllow,
    webhookDeny,
    webhookTimeoutMs,
    webhookAttempts,
    webhookRetryBaseMs,
    metrics: metricsText === 'on',
    metricsToken,
    pbxTimezone,
    pbxConfigDir,
    amiTargets,
    tls,
  });
}

/**
 * TARS_TLS_CERT and TARS_TLS_KEY: both or neither; each a readable PEM file; the key must be the certificate's
 * (Node's TLS checks the pair as a server would load it), so a wrong file stops the start, not the first client.
 */
function tlsFiles(env: Env, cwd: string, problems: string[]): Config['tls'] {
  const certFile = env.TARS_TLS_CERT || undefined;
  const keyFile = env.TARS_TLS_KEY || undefined;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    problems.push(`TARS_TLS_CERT and TARS_TLS_KEY go together: ${certFile === undefined ? 'TARS_TLS_CERT' : 'TARS_TLS_KEY'} is missing`);
    return undefined;
  }
  const read = (name: string, file: string, what: RegExp, kind: string): Buffer | undefined => {
    try {
      const data = readFileSync(resolve(cwd, file));
      if (what.test(data.toString('latin1'))) return data;
      problems.push(`${name}: ${file} holds no PEM ${kind}`);
    } catch (err) {
      problems.push(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    return undefined;
  };
  const cert = read('TARS_TLS_CERT', certFile, /-----BEGIN CERTIFICATE-----/, 'certificate');
  const key = read('TARS_TLS_KEY', keyFile, /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/, 'private key');
  if (!cert || !key) return undefined;
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    problems.push(`TARS_TLS_CERT and TARS_TLS_KEY: ${(err as Error).message} (is the key the certificate's?)`);
    return undefined;
  }
  return Object.freeze({ cert, key });
}

/** "3600", "90s", "15m", "12h", "30d" → seconds; undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}
