import { existsSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, loadConfig, type Config, type ConfigFlags } from '../config';
import { integrityProblems } from '../db/backup';
import { openSqlite } from '../db/database';
import { heldLocks } from '../db/coordination';
import { openPostgres, POOL_SIZE, postgresFacts, redactUrl, type PostgresFacts } from '../db/engine';
import { appliedMigrations, MIGRATION_NAMES, schemaStatus } from '../db/migrate';
import { createMailer } from '../mail/mailer';
import { SECRET_FILE } from '../modules/auth/tokens';
import { linkLock } from '../modules/live-queues/live-share';
import { databasePath } from '../runtime';
import { runningServer } from './server-lock';

export interface Finding {
  readonly ok: boolean;
  readonly what: string;
  readonly detail: string;
}

const ok = (what: string, detail: string): Finding => ({ ok: true, what, detail });
const problem = (what: string, detail: string): Finding => ({ ok: false, what, detail });

/**
 * Free space below which `tars check` reports a problem: 1 GiB, or twice the database when that is more (an
 * upgrade writes a full copy of it first, and the WAL grows between checkpoints).
 */
export const MIN_FREE_BYTES = 1024 ** 3;

/** `tars check`: every finding about a data directory and the configuration, without changing anything. */
export async function checkInstallation(env: Readonly<Record<string, string | undefined>>, flags: ConfigFlags): Promise<Finding[]> {
  let config: Config;
  try {
    config = loadConfig(env, flags);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => problem('configuration', p));
    throw err;
  }
  if (config.databaseUrl) {
    const findings = [ok('configuration', `valid; PostgreSQL database ${redactUrl(config.databaseUrl)}, data directory ${config.dataDir}`)];
    findings.push(
      ...(await checkPostgres(
        config.databaseUrl,
        config.amiTargets.map((t) => t.label),
      )),
      checkSecret(config),
      await checkSmtp(config),
    );
    findings.push(ok('disk space', 'not checked: the database is on the PostgreSQL server, whose disk is its own to watch'));
    return findings;
  }
  const findings = [ok('configuration', `valid; data directory ${config.dataDir}`)];
  findings.push(...(await checkDatabase(config.dataDir)), checkSecret(config), checkDiskSpace(config.dataDir), await checkSmtp(config));
  const server = runningServer(config.dataDir);
  findings.push(ok('server', server ? `running (pid ${server.pid}, since ${server.startedAt})` : 'not running'));
  return findings;
}

async function checkDatabase(dataDir: string): Promise<Finding[]> {
  const file = databasePath(dataDir);
  if (!existsSync(file)) return [problem('database', `${file} does not exist (tars serve or tars migrate creates it)`)];
  let sqlite;
  try {
    sqlite = openSqlite(file, { readonly: true });
  } catch (err) {
    return [problem('database', `${file} cannot be opened: ${(err as Error).message}`)];
  }
  try {
    const problems = integrityProblems(sqlite);
    if (problems.length > 0) return [problem('database integrity', problems.join('; '))];
    return [ok('database integrity', `${file} passes PRAGMA integrity_check`), schemaFinding(await appliedMigrations({ sqlite }))];
  } catch (err) {
    return [problem('database integrity', `${file}: ${(err as Error).message}`)];
  } finally {
    sqlite.close();
  }
}

/** The PostgreSQL server and database of TARS_DATABASE_URL: reachable, recent enough, at this schema, set up safely. */
async function checkPostgres(url: string, pbxs: readonly string[]): Promise<Finding[]> {
  const database = openPostgres(url, { poolSize: 1 });
  try {
    let facts: PostgresFacts;
    try {
      facts = await postgresFacts(database.db);
    } catch (err) {
      return [problem('database', `${database.shownUrl} cannot be reached: ${(err as Error).message}`)];
    }
    const findings: Finding[] = [];
    const version = `PostgreSQL ${facts.version.text}`;
    findings.push(
      facts.version.major < MIN_POSTGRES
        ? problem('database', `${database.shownUrl}: ${version}; TARS needs PostgreSQL ${MIN_POSTGRES} or later`)
        : ok('database', `${database.shownUrl}: ${version}`),
    );
    findings.push(schemaFinding(await appliedMigrations(database)));
    findings.push(
      facts.textColumnsNotC.length > 0
        ? problem(
            'text order',
            `${facts.textColumnsNotC.slice(0, 5).join(', ')} do not use the collation "C": names would not sort by code point (R11)`,
          )
        : ok('text order', 'every text column uses the collation "C" (code-point order, as on SQLite)'),
    );
    findings.push(
      facts.synchronousCommit === 'off'
        ? problem('durability', 'synchronous_commit is off: writes TARS has acknowledged can be lost if the server crashes; set it to on')
        : ok(
            'durability',
            `synchronous_commit ${facts.synchronousCommit}; data_checksums ${facts.dataChecksums} (PostgreSQL checks its own pages: no integrity check of TARS's)`,
          ),
    );
    const skew = Math.abs(facts.serverNow - facts.localNow);
    findings.push(
      skew > MAX_CLOCK_SKEW_MS
        ? problem('clock', `this machine's clock and the database server's differ by ${(skew / 1000).toFixed(1)} s: synchronise both (NTP)`)
        : ok('clock', `within ${MAX_CLOCK_SKEW_MS / 1000} s of the database server's`),
    );
    const instances = Math.floor(facts.maxConnections / (POOL_SIZE + 2));
    findings.push(
      ok(
        'connections',
        `max_connections ${facts.maxConnections}: room for ${instances} TARS instance(s) of ${POOL_SIZE + 2} connections each, beside other clients`,
      ),
    );
    if (pbxs.length > 0) {
      // Which instance talks to each PBX (docs/live-queues.md, "Several instances"); none: no instance is running.
      const held = await heldLocks(database.db, pbxs.map(linkLock));
      const holderOf = (pbx: string) => held.find((h) => h.name === linkLock(pbx));
      findings.push(
        ok(
          'AMI links',
          pbxs
            .map((pbx) => {
              const h = holderOf(pbx);
              return h
                ? `${pbx}: held by the instance at ${h.clientAddr ?? 'a local socket'} (server pid ${h.pid}, since ${h.since.toISOString()})`
                : `${pbx}: held by no instance`;
            })
            .join('; '),
        ),
      );
    }
    return findings;
  } finally {
    await database.close();
  }
}

/** PostgreSQL releases TARS supports. */
export const MIN_POSTGRES = 13;
/** Clock difference with the database server beyond which leases and due times would be judged differently. */
const MAX_CLOCK_SKEW_MS = 1000;

function schemaFinding(applied: string[]): Finding {
  const { pending, unknown } = schemaStatus(applied);
  const version = applied[applied.length - 1] ?? 'none';
  if (unknown.length > 0)
    return problem('schema version', `${version}: newer than this program (unknown migrations: ${unknown.join(', ')})`);
  if (pending.length > 0)
    return ok('schema version', `${version}: ${pending.length} migration(s) pending; the next start applies them after writing a backup`);
  return ok('schema version', `${version}: up to date (${MIGRATION_NAMES.length} migrations)`);
}

function checkSecret(config: Config): Finding {
  if (config.jwtSecret) return ok('JWT secret', 'from TARS_JWT_SECRET');
  const file = join(config.dataDir, SECRET_FILE);
  if (!existsSync(file)) return ok('JWT secret', `${file} does not exist yet (the first start generates it)`);
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) return problem('JWT secret', `${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it`);
  if (readFileSync(file, 'utf8').trim().length < 32) return problem('JWT secret', `${file} holds fewer than 32 characters`);
  return ok('JWT secret', `${file} (mode 600)`);
}

function checkDiskSpace(dataDir: string): Finding {
  let where = dataDir;
  while (!existsSync(where)) where = dirname(where);
  const fs = statfsSync(where);
  const file = databasePath(dataDir);
  const used = [file, `${file}-wal`].reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
  return diskSpaceFinding(fs.bavail * fs.bsize, used);
}

export function diskSpaceFinding(free: number, databaseBytes: number): Finding {
  const needed = Math.max(MIN_FREE_BYTES, 2 * databaseBytes);
  const text = `${gib(free)} free where the data directory is (database ${gib(databaseBytes)})`;
  return free < needed ? problem('disk space', `${text}; keep at least ${gib(needed)} free`) : ok('disk space', text);
}

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

async function checkSmtp(config: Config): Promise<Finding> {
  if (!config.smtpUrl) return ok('SMTP', 'not configured (TARS_SMTP_URL): e-mailed MFA codes and reports cannot be sent');
  const url = new URL(config.smtpUrl);
  const shown = `${url.protocol}//${url.host}`; // never the credentials
  const mailer = createMailer(config.smtpUrl, config.mailFrom);
  try {
    await mailer.verify();
    return ok('SMTP', `${shown} answers and accepts the login`);
  } catch (err) {
    return problem('SMTP', `${shown}: ${(err as Error).message}`);
  } finally {
    mailer.close();
  }
}
