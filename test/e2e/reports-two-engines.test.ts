import { expect } from 'chai';
import { sql } from 'kysely';
import { ALL_TENANTS } from '../../src/access/scope';
import { callerOf, type Caller } from '../../src/access/caller';
import { callerUser } from '../../src/access/caller.repository';
import { copyRows } from '../../src/db/copy';
import type { Db } from '../../src/db/database';
import { openPostgres, type PostgresDatabase } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import { callsReport } from '../../src/modules/calls/calls.service';
import { agentSessionsReport } from '../../src/modules/queue-reports/agent-sessions.service';
import { agentsReport } from '../../src/modules/queue-reports/agents.service';
import { agentAvailability } from '../../src/modules/queue-reports/availability.service';
import { lostCallsReport } from '../../src/modules/queue-reports/lost-calls.service';
import { answeredWithin, edgeStats } from '../../src/modules/queue-reports/queue-stats.repository';
import { queueStats } from '../../src/modules/queue-reports/queue-stats.service';
import { serviceLevelReport } from '../../src/modules/queue-reports/service-level.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { seedAcmeWithSampleLogs, seedAsteriskRun } from '../helpers/pbx-logs';
import { sharedPostgres } from '../helpers/postgres';
import { rawSqlite } from '../helpers/engine';

/*
 * The queue reports give the same answers on SQLite and on PostgreSQL (issue 32, docs/design/postgresql.md §2.1).
 * Two data sets: the sample logs (test/fixtures/queue_log.sample, Master.csv.sample, with two agents renamed to
 * peers beyond ASCII: R11 sorts peer names by code point) and the recorded Asterisk 22 run (test/fixtures/asterisk).
 * Each is imported into a SQLite data directory, every row copied into a fresh PostgreSQL database with copyRows,
 * then each report service is called with the same input on both engines and the answers compared whole.
 */

const NOW = Date.parse('2026-11-24T12:00:00Z');
const clock = { now: () => NOW };
const DISTRIBUTIONS = ['totals', 'daily', 'weekly', 'monthly', 'hourly', 'halfHourly', 'quarterHourly', 'hourOfDay', 'dayOfWeek'] as const;

type Body<F extends (...args: never[]) => unknown> = Parameters<F>[2];

interface DataSet {
  readonly name: string;
  seed(app: TestApp): Promise<unknown>;
  readonly range: { readonly startDate: string; readonly endDate: string };
  readonly queues: readonly number[];
  /** Users whose callers ask: every tenant (a platform admin), one tenant, several tenants (a partner's). */
  readonly users: readonly number[];
  readonly nonAsciiPeers: boolean;
}

const DATA_SETS: readonly DataSet[] = [
  {
    name: 'the sample logs',
    seed: seedAcmeWithSampleLogs,
    range: { startDate: '2026-10-31', endDate: '2026-11-02' },
    queues: [1, 2],
    users: [1, 2, 7],
    nonAsciiPeers: true,
  },
  {
    name: 'the recorded Asterisk 22 run',
    seed: seedAsteriskRun,
    range: { startDate: '2026-11-23', endDate: '2026-11-23' },
    queues: [1, 2, 3],
    users: [1],
    nonAsciiPeers: false,
  },
];

for (const set of DATA_SETS)
  describe(`the queue reports of ${set.name} on SQLite and on PostgreSQL (the same answers)`, function () {
    this.timeout(180_000);
    let app: TestApp;
    let pg: PostgresDatabase;
    let sqlite: Db;
    /** The callers of set.users, read once from SQLite (a caller is data: the user row, its permissions and scope). */
    const callers = new Map<number, Caller>();
    const { range } = set;
    const queueId = [...set.queues];

    before(async () => {
      app = await startTestApp({ clock });
      await set.seed(app);
      sqlite = app.deps.database.db;
      if (set.nonAsciiPeers) {
        // 'É' (U+00C9) and 'ë' sort after every ASCII letter by code point, and differently under most collations.
        const raw = rawSqlite(app.deps.database);
        const ids = raw.prepare('SELECT id FROM agents ORDER BY id LIMIT 2').pluck().all() as number[];
        expect(ids).to.have.length(2);
        raw.prepare('UPDATE agents SET peer = ? WHERE id = ?').run('SIP/Élodie', ids[0]);
        raw.prepare('UPDATE agents SET peer = ? WHERE id = ?').run('SIP/zoë', ids[1]);
      }
      pg = openPostgres(await (await sharedPostgres()).createDatabase(), { poolSize: 4 });
      await migrateToLatest(pg);
      await copyRows(sqlite, pg.db);
      for (const id of set.users) {
        const user = await callerUser(sqlite, id);
        expect(user, `user ${id}`).to.not.equal(undefined);
        callers.set(id, await callerOf(sqlite, user as NonNullable<typeof user>));
      }
      // The partner admin's scope is two tenants (tenantIn's JSON id list).
      if (callers.has(7))
        expect((callers.get(7) as Caller).scope)
          .to.include({ all: false })
          .and.to.have.property('tenantIds')
          .with.length(2);
    });
    after(async () => {
      await pg?.close();
      await app?.close();
    });

    /** Runs a report on both engines as user `userId` and expects equal, non-trivial answers; answers SQLite's. */
    async function same<T>(userId: number, run: (db: Db, caller: Caller) => Promise<T>): Promise<T> {
      const caller = callers.get(userId) as Caller;
      const onSqlite = await run(sqlite, caller);
      const onPostgres = await run(pg.db, caller);
      expect(onPostgres).to.deep.equal(onSqlite);
      expect(JSON.stringify(onSqlite).length).to.be.greaterThan(50);
      return onSqlite;
    }

    for (const userId of set.users)
      for (const distribution of DISTRIBUTIONS)
        it(`when queue stats of ${distribution} rows are asked by user ${userId}, then both engines answer the same`, async () => {
          const out = await same(userId, (db, caller) =>
            queueStats({ db }, caller, { queueId, ...range, distribution } as Body<typeof queueStats>),
          );
          expect(out.results.length).to.be.greaterThan(0);
          expect(out.results.some((r) => (r as { totalInbound?: number }).totalInbound)).to.equal(true);
        });

    for (const distribution of ['totals', 'daily', 'hourly'] as const)
      it(`when the agents report of ${distribution} rows is asked, then both engines answer the same`, async () => {
        const out = await same(1, (db, caller) =>
          agentsReport({ db, clock }, caller, { queueId, ...range, distribution } as Body<typeof agentsReport>),
        );
        if (set.nonAsciiPeers) expect(JSON.stringify(out)).to.include('SIP/Élodie').and.to.include('SIP/zoë');
      });

    for (const queue of set.queues)
      it(`when agent availability of queue ${queue} is asked, then both engines answer the same`, async () => {
        const out = await same(1, (db, caller) =>
          agentAvailability({ db, clock }, caller, { queueId: queue, ...range } as Body<typeof agentAvailability>),
        );
        expect(out.length).to.be.greaterThan(0);
      });

    it('when agent sessions are asked, then both engines answer the same', async () => {
      await same(1, (db, caller) => agentSessionsReport({ db, clock }, caller, { queueId, ...range } as Body<typeof agentSessionsReport>));
    });

    for (const distribution of ['totals', 'daily', 'hourly'] as const)
      it(`when the service level of ${distribution} rows with thresholds is asked, then both engines answer the same`, async () => {
        const body = { queueId, ...range, distribution, serviceLevelThresholds: [5, 20, 60] } as Body<typeof serviceLevelReport>;
        await same(1, (db, caller) => serviceLevelReport({ db }, caller, body));
      });

    it('when lost calls are asked, then both engines answer the same', async () => {
      await same(1, (db, caller) => lostCallsReport({ db }, caller, { queueId, ...range, paginated: 0 } as Body<typeof lostCallsReport>));
    });

    it('when the calls report is asked, then both engines answer the same', async () => {
      const out = await same(1, (db, caller) => callsReport({ db }, caller, { paginated: 0 }));
      expect(out.total).to.be.greaterThan(0);
    });

    it('when the answered calls within a threshold are counted (the wallboard), then both engines count the same', async () => {
      const from = Date.parse(`${range.startDate}T00:00:00Z`) / 1000;
      const to = Date.parse(`${range.endDate}T00:00:00Z`) / 1000 + 86_400;
      const count = async (db: Db) => [...(await answeredWithin(db, (callers.get(1) as Caller).scope, queueId, { from, to }, 20))];
      const onSqlite = await count(sqlite);
      expect(await count(pg.db)).to.deep.equal(onSqlite);
      expect(onSqlite.some(([, n]) => n > 0)).to.equal(true);
    });

    it('when ring times of milliseconds are summed into seconds, then both engines divide as integers (3,200 ms is 3 s)', async () => {
      // Asterisk's CONNECT gives whole seconds; two lines of 1.5 s and 1.7 s, a year after the data, show the division.
      const at = Date.parse('2027-06-01T10:00:00Z') / 1000;
      for (const db of [sqlite, pg.db])
        for (const [k, ms] of [
          [1, 1500],
          [2, 1700],
        ] as const)
          await sql`INSERT INTO queue_events (queue_id, anchor, time, line_key, seq, event, callid, agent, wait_time, talk_time, ring_ms)
            VALUES (${queueId[0]}, ${at + k}, ${at + k}, ${k}, 0, 2, ${`ring-${k}`}, 0, 0, 0, ${ms})`.execute(db);
      const sums = async (db: Db) => edgeStats(db, ALL_TENANTS, [{ span: 0, queueId: queueId[0] as number, from: at, to: at + 60 }]);
      const onSqlite = await sums(sqlite);
      expect(onSqlite.map((r) => r.ring)).to.deep.equal([3]);
      expect(await sums(pg.db)).to.deep.equal(onSqlite);
    });
  });
