import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from './database';

/*
 * What several TARS instances on one PostgreSQL database agree through (docs/design/postgresql.md §5): locks that
 * belong to a process for as long as it lives (leadership: the AMI link of a PBX, a file being imported), and
 * signals from one instance to the others (LISTEN/NOTIFY: "this changed", never the state itself). On SQLite there
 * is one process: every lock is granted at once and a signal goes round inside the process.
 */

/** The first half of every TARS advisory lock key: operators find TARS's locks in pg_locks by classid = this ('TARS'). */
export const TARS_LOCK_SPACE = 0x54415253;

/**
 * The second half: a 32-bit FNV-1a hash of the lock's name, as a signed int4. Computed here, not by PostgreSQL's
 * `hashtext` (undocumented, and free to change between versions), so that `tars check` can name a held lock.
 */
export function lockKey(name: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) h = Math.imul(h ^ byte, 0x01000193);
  return h | 0;
}

/** A LISTEN/NOTIFY channel name: plain lower-case letters, digits and _ (it is written into LISTEN as an identifier). */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export interface CoordinatorEvents {
  /** The session ended (PostgreSQL restarted, the network failed, a ping went unanswered): every hold is gone. */
  lost: [names: string[]];
  /** A new session is up and listens again: signals sent in between were missed, so listeners reload. */
  reconnected: [];
}

export interface Coordinator extends EventEmitter<CoordinatorEvents> {
  readonly kind: 'local' | 'postgres';
  /**
   * Takes the lock `name` for this process if no other process holds it; true when this process holds it (now
   * or already). It is this process's until `release`, `close`, or the end of its session (`lost`).
   */
  tryHold(name: string): Promise<boolean>;
  release(name: string): Promise<void>;
  /** Whether this process holds `name` as far as it knows (a ping makes sure). */
  holds(name: string): boolean;
  /**
   * Whether the session still answers within `timeoutMs`. When it does not, it is closed at once and every hold
   * is given up (`lost`): a leader stops acting before PostgreSQL could give its lock to another instance.
   */
  ping(timeoutMs: number): Promise<boolean>;
  /** Sends `payload` (a short signal, < 8000 bytes) to every listener of `channel`, this process's included. */
  notify(channel: string, payload: string): Promise<void>;
  /** Calls `handler` with each signal on `channel` until the returned function is called. */
  listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`"${channel}" is not a channel name (a-z, 0-9, _)`);
}

/** One process on SQLite: every lock is this process's, signals go round in the process. */
export class LocalCoordinator extends EventEmitter<CoordinatorEvents> implements Coordinator {
  readonly kind = 'local';
  private readonly held = new Set<string>();
  private readonly signals = new EventEmitter();

  async tryHold(name: string): Promise<boolean> {
    this.held.add(name);
    return true;
  }
  async release(name: string): Promise<void> {
    this.held.delete(name);
  }
  holds(name: string): boolean {
    return this.held.has(name);
  }
  async ping(): Promise<boolean> {
    return true;
  }
  async notify(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    // Asynchronous, as PostgreSQL's are: a listener never runs inside the notifier's call.
    setImmediate(() => this.signals.emit(channel, payload));
  }
  async listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
    checkChannel(channel);
    this.signals.on(channel, handler);
    return async () => void this.signals.off(channel, handler);
  }
  async close(): Promise<void> {
    this.held.clear();
    this.signals.removeAllListeners();
  }
}

export interface PgCoordinatorOptions {
  /** The first wait before connecting again after the session was lost (doubling up to 5 s). Default 250 ms. */
  readonly retryMs?: number;
}

/**
 * One dedicated connection (not one of the pool's: a session-level advisory lock and a LISTEN belong to the
 * session) for the locks and signals of this process on PostgreSQL. PostgreSQL releases a session's locks the
 * moment the session ends, so a killed instance's leadership is free at once; TCP keepalives bound the case of
 * a host that vanished. A lost session is opened again while anything listens, and listens again.
 */
export class PgCoordinator extends EventEmitter<CoordinatorEvents> implements Coordinator {
  readonly kind = 'postgres';
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly held = new Set<string>();
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs: number;
  /** pg runs one query at a time per connection: they are queued here, in order, rather than inside pg (deprecated there). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly options: PgCoordinatorOptions = {},
  ) {
    super();
    this.retryMs = options.retryMs ?? 250;
  }

  private query<R extends pg.QueryResultRow>(client: pg.Client, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const run = this.queue.then(() => client.query<R>(text, values));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private session(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the coordinator is closed'));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'tars coordinator',
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
      connectionTimeoutMillis: 10_000,
    });
    client.on('error', () => this.drop(client));
    client.on('end', () => this.drop(client));
    client.on('notification', (n) => {
      for (const handler of this.handlers.get(n.channel) ?? []) handler(n.payload ?? '');
    });
    await client.connect();
    // The server ends a dead peer's session within ~8 s (idle 5 s, then 3 probes 1 s apart).
    await client.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3');
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('the coordinator is closed');
    }
    this.client = client;
    this.retryMs = this.options.retryMs ?? 250;
    return client;
  }

  /** The session ended: every hold is gone; while anything listens, a new session is opened. */
  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    const names = [...this.held];
    this.held.clear();
    if (names.length > 0) this.emit('lost', names);
    if (!this.closed && this.handlers.size > 0) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.session().then(
        () => this.emit('reconnected'),
        () => {
          this.retryMs = Math.min(this.retryMs * 2, 5_000);
          this.scheduleReconnect();
        },
      );
    }, this.retryMs);
    this.retryTimer.unref();
  }

  async tryHold(name: string): Promise<boolean> {
    if (this.held.has(name)) return true;
    const client = await this.session();
    const { rows } = await this.query<{ ok: boolean }>(client, 'SELECT pg_try_advisory_lock($1, $2) AS ok', [
      TARS_LOCK_SPACE,
      lockKey(name),
    ]);
    if (!rows[0]?.ok) return false;
    if (this.client !== client) return false; // the session ended in between: the lock went with it
    this.held.add(name);
    return true;
  }

  async release(name: string): Promise<void> {
    if (!this.held.delete(name) || !this.client) return;
    await this.query(this.client, 'SELECT pg_advisory_unlock($1, $2)', [TARS_LOCK_SPACE, lockKey(name)]);
  }

  holds(name: string): boolean {
    return this.held.has(name);
  }

  async ping(timeoutMs: number): Promise<boolean> {
    const client = this.client;
    if (!client) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const answered = this.query(client, 'SELECT 1').then(
      () => true,
      () => false,
    );
    const ok = await Promise.race([answered, late]);
    clearTimeout(timer);
    if (!ok) this.drop(client);
    return ok;
  }

  async notify(channel: string, payload: string): Promise<void> {
    checkChannel(channel);
    const client = await this.session();
    await this.query(client, 'SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
    checkChannel(channel);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      const client = await this.session();
      await this.query(client, `LISTEN ${channel}`);
    }
    set.add(handler);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      if (this.client) await this.query(this.client, `UNLISTEN ${channel}`).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.handlers.clear();
    this.held.clear(); // ending the session releases them
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}

/** A TARS lock held on PostgreSQL, as `tars check` shows it: by which session. */
export interface HeldLock {
  readonly name: string;
  readonly pid: number;
  /** The holder's address as the server sees it; null over a Unix socket. */
  readonly clientAddr: string | null;
  readonly since: Date;
}

/** Which of `names` some session holds now (pg_locks joined to pg_stat_activity), in the order of `names`. */
export async function heldLocks(db: Db, names: readonly string[]): Promise<HeldLock[]> {
  if (names.length === 0) return [];
  const { rows } = await sql<{ objid: number; pid: number; client_addr: string | null; backend_start: Date }>`
    SELECT l.objid, l.pid, host(a.client_addr) AS client_addr, a.backend_start
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ${TARS_LOCK_SPACE} AND l.objsubid = 2
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(db);
  return names.flatMap((name) => {
    const row = rows.find((r) => Number(r.objid) === lockKey(name) >>> 0);
    return row ? [{ name, pid: row.pid, clientAddr: row.client_addr, since: new Date(row.backend_start) }] : [];
  });
}
