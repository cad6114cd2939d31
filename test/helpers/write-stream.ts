import { send } from './app';
import { readDataDir } from './data-dir';

/*
 * A client that keeps writing to a running server and remembers every write the server acknowledged:
 * what the crash, concurrency and full-disk tests check afterwards. Three kinds of write, one of them
 * (an E911 location with its notification groups) touching two tables, so a half-written record shows.
 */
export type WriteKind = 'branch' | 'webhook' | 'location';
const KINDS: readonly WriteKind[] = ['branch', 'webhook', 'location'];
export const GROUPS_PER_LOCATION = 3;
const WEBHOOK_URL = 'https://hooks.example.test/'; // not loopback: webhooks may not point there by default (issue 16)
/** Each kind's table and the SQL that gives a row's name (a webhook carries it in its URL). */
const TABLE: Record<WriteKind, string> = { branch: 'branches', webhook: 'webhooks', location: 'emergency_locations' };
const NAME: Record<WriteKind, string> = { branch: 'name', webhook: `substr(url, ${WEBHOOK_URL.length + 1})`, location: 'name' };

export interface AckedWrite {
  kind: WriteKind;
  id: number;
  name: string;
}

export interface RefusedWrite {
  kind: WriteKind;
  status: number;
  text: string;
}

function writeRequest(kind: WriteKind, tenantId: number, name: string): { path: string; body: unknown } {
  if (kind === 'branch') return { path: '/v2/admin/branches', body: { tenantId, name, timezone: 'UTC' } };
  if (kind === 'webhook') {
    return {
      path: '/v2/webhooks/',
      body: { tenantId, type: 'ENDCALL', url: `${WEBHOOK_URL}${name}`, username: 'hook', password: `pw-${name}` },
    };
  }
  const address = { city: 'Chicago', state: 'IL', streetNum: '1', postalCode: '60601', streetInfo: `${name} Street` };
  const groups = Array.from({ length: GROUPS_PER_LOCATION }, (_, i) => ({
    name: `${name} group ${i}`,
    number: `+1312555010${i}`,
    email: `g${i}@example.test`,
    peerName: '',
  }));
  return { path: '/v2/admin/emergency-locations/', body: { tenantId, name, address, notificationGroups: groups } };
}

export interface WriteStreamOptions {
  /** Requests in flight at once. */
  readonly workers?: number;
  /** Pause between two writes of one worker (ms). */
  readonly pauseMs?: number;
  /** A prefix that makes names unique across streams. */
  readonly prefix?: string;
}

export class WriteStream {
  readonly acked: AckedWrite[] = [];
  readonly refused: RefusedWrite[] = [];
  /** Requests that got no response at all (connection refused or reset). */
  readonly lost: string[] = [];
  private stopping = false;
  private sent = 0;
  private readonly running: Promise<void>[];

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly tenantId: number,
    private readonly opts: WriteStreamOptions = {},
  ) {
    this.running = Array.from({ length: opts.workers ?? 4 }, () => this.work());
  }

  /** How many writes were answered, either way. */
  get answered(): number {
    return this.acked.length + this.refused.length;
  }

  /** The distinct refusals, each with how often it came: `3× 500 branch: {…}`. */
  refusals(): string[] {
    const counts = new Map<string, number>();
    for (const r of this.refused) {
      const key = `${r.status} ${r.kind}: ${r.text}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([key, n]) => `${n}× ${key}`);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running);
  }

  private async work(): Promise<void> {
    while (!this.stopping) {
      const n = this.sent++;
      const kind = KINDS[n % KINDS.length] as WriteKind;
      const name = `${this.opts.prefix ?? 'write'}-${n}`;
      const { path, body } = writeRequest(kind, this.tenantId, name);
      try {
        const res = await send(this.url, 'POST', path, { token: this.token, body });
        if (res.status === 201) this.acked.push({ kind, id: res.body.id as number, name });
        else this.refused.push({ kind, status: res.status, text: res.text });
      } catch (err) {
        this.lost.push(String((err as { cause?: unknown }).cause ?? err));
        await sleep(20); // a server that is gone: do not spin
      }
      if (this.opts.pauseMs) await sleep(this.opts.pauseMs);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StoredWrites {
  /** Acknowledged writes not found in the database (id and name): must be empty. */
  missing: AckedWrite[];
  /** Rows of the stream's kinds, by kind: acknowledged ones plus those committed whose answer was lost. */
  rows: Record<WriteKind, number>;
  /** E911 locations whose notification groups are not all there: must be empty. */
  halfWritten: number[];
}

/** What the database of a data directory holds of a stream's writes (opened read-only, after the fact). */
export function storedWrites(dataDir: string, acked: readonly AckedWrite[], prefix = 'write'): StoredWrites {
  return readDataDir(dataDir, (db) => {
    const missing = acked.filter(
      (w) => db.prepare(`SELECT ${NAME[w.kind]} FROM ${TABLE[w.kind]} WHERE id = ?`).pluck().get(w.id) !== w.name,
    );
    const count = (kind: WriteKind) =>
      db.prepare(`SELECT count(*) FROM ${TABLE[kind]} WHERE ${NAME[kind]} LIKE ?`).pluck().get(`${prefix}-%`) as number;
    const rows = { branch: count('branch'), webhook: count('webhook'), location: count('location') };
    const halfWritten = db
      .prepare(
        `SELECT l.id FROM emergency_locations l WHERE l.name LIKE ? AND (SELECT count(*) FROM notification_groups g WHERE g.location_id = l.id) <> ?`,
      )
      .pluck()
      .all(`${prefix}-%`, GROUPS_PER_LOCATION) as number[];
    return { missing, rows, halfWritten };
  });
}

/** How many acknowledged writes there are of each kind. */
export function countByKind(acked: readonly AckedWrite[]): Record<WriteKind, number> {
  const counts = { branch: 0, webhook: 0, location: 0 };
  for (const w of acked) counts[w.kind]++;
  return counts;
}
