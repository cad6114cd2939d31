import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type KyselyPlugin } from 'kysely';
import { ALL_TENANTS, tenantsScope, type TenantScope } from '../../src/access/scope';
import { openDatabase, type Db } from '../../src/db/database';
import type { Database } from '../../src/db/schema';
import { migrateToLatest } from '../../src/db/migrate';
import * as agents from '../../src/modules/queue-reports/agents.repository';
import * as availability from '../../src/modules/queue-reports/availability.repository';
import { lostCallsOf } from '../../src/modules/queue-reports/lost-calls.repository';
import * as stats from '../../src/modules/queue-reports/queue-stats.repository';
import { levelSums } from '../../src/modules/queue-reports/service-level.repository';

/*
 * The queue reports' SQL on SQLite never changes for PostgreSQL's sake (issue 32: the statement cache and the report
 * benchmarks are keyed by it). Each report query is run once on an empty, migrated SQLite file for an all-tenants, a
 * one-tenant and a two-tenant scope, and the SQL SQLite was given is compared with test/fixtures/report-sql-sqlite.json, taken
 * before the queries were made portable. Write it again (only for a deliberate change, then review the diff) with
 *
 *   UPDATE_REPORT_SQL=1 npx mocha test/unit/report-sql-frozen.test.ts
 */

const SNAPSHOT = join(__dirname, '..', 'fixtures', 'report-sql-sqlite.json');

/** Each report query by name, run with fixed inputs (the rows do not matter, only the SQL). */
const QUERIES: Record<string, (db: Db, scope: TenantScope) => Promise<unknown>> = {
  hourStats: (db, s) => stats.hourStats(db, s, [{ span: 0, queueId: 1, fromHour: 10, toHour: 20 }]),
  hourOutbound: (db, s) => stats.hourOutbound(db, s, [{ span: 0, queueId: 1, fromHour: 10, toHour: 20 }]),
  edgeStats: (db, s) => stats.edgeStats(db, s, [{ span: 0, queueId: 1, from: 100, to: 200 }]),
  edgeOutbound: (db, s) => stats.edgeOutbound(db, s, [{ span: 0, queueId: 1, from: 100, to: 200 }]),
  answeredWithin: (db, s) => stats.answeredWithin(db, s, [1, 2], { from: 0, to: 1000 }, 20),
  agentCallSums: (db, s) => agents.agentCallSums(db, s, [{ span: 0, queueId: 1, from: 0, to: 1000 }]),
  agentCalls: (db, s) => agents.agentCalls(db, s, 1, [1, 2], 0, 1000),
  agentsNonQueueTalk: (db, s) => agents.nonQueueTalk(db, s, 1, [1, 2], 0, 1000),
  agentSessionIntervals: (db, s) => agents.intervalsOf(db, s, 'agent_sessions', [1, 2], 0, 1000),
  agentPauseIntervals: (db, s) => agents.intervalsOf(db, s, 'agent_pauses', [1, 2], 0, 1000),
  agentsOfTenant: (db, s) => agents.agentsOfTenant(db, s, 1, [1, 2]),
  membershipTimes: (db, s) => availability.membershipTimes(db, s, 1, { start: 0, end: 1000, openEnd: 900 }),
  pauseTimes: (db, s) => availability.pauseTimes(db, s, 1, { start: 0, end: 1000, openEnd: 900 }),
  agentNames: (db, s) => availability.agentNames(db, s, 1, [1, 2]),
  hourTalk: (db, s) => availability.hourTalk(db, s, 1, [1, 2], 10, 20),
  edgeTalk: (db, s) => availability.edgeTalk(db, s, 1, [1, 2], 100, 200),
  availabilityNonQueueTalk: (db, s) => availability.nonQueueTalk(db, s, 1, [1, 2], 0, 1000),
  levelSums: (db, s) => levelSums(db, s, [{ span: 0, queueId: 1, from: 0, to: 1000, own: 25 }], [10, 60], 5),
  lostCallsOf: (db, s) => lostCallsOf(db, s, [{ queueId: 1, tenantId: 1, from: 0, to: 1000 }], 3600),
};

const SCOPES = [
  ['all', ALL_TENANTS],
  ['one', tenantsScope([1])],
  ['some', tenantsScope([1, 3])],
] as const;

/** The SQL each query sends to its engine, by query name and scope. */
async function compiledSql(db: Db, scopes: readonly (typeof SCOPES)[number][] = SCOPES): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, run] of Object.entries(QUERIES))
    for (const [scopeName, scope] of scopes) {
      const seen: string[] = [];
      const capture: KyselyPlugin = {
        transformQuery: (args) => {
          seen.push(db.getExecutor().compileQuery(args.node, args.queryId).sql);
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      await run(db.withPlugin(capture), scope);
      out[`${name} (${scopeName})`] = seen;
    }
  return out;
}

describe('the queue reports SQL on SQLite (frozen for the statement cache)', () => {
  it('when each report query is compiled for SQLite, then its SQL is byte for byte the committed snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-report-sql-'));
    const handle = openDatabase(join(dir, 'tars.db'));
    try {
      await migrateToLatest(handle);
      const now = await compiledSql(handle.db);
      if (process.env.UPDATE_REPORT_SQL === '1') writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 2)}\n`);
      const committed = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, string[]>;
      expect(Object.keys(now)).to.have.length(Object.keys(QUERIES).length * 3);
      for (const [key, sqls] of Object.entries(now)) {
        expect(sqls, key).to.not.be.empty;
        expect(sqls, key).to.deep.equal(committed[key]);
      }
      expect(Object.keys(committed)).to.deep.equal(Object.keys(now));
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the queue reports SQL on PostgreSQL (no SQLite-only construct left)', () => {
  it('when each report query is compiled for PostgreSQL, then none has json_each, INDEXED BY, a sum of a condition, a scalar max/min or an unquoted camelCase name', async () => {
    // Kysely's PostgreSQL adapter and compiler without a server: the queries run on a driver that answers no rows.
    const db = new Kysely<Database>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (k) => new PostgresIntrospector(k),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
    // The scope of several tenants is tenantIn's (src/db/portable.ts compiles it per engine), not these queries'.
    const compiled = await compiledSql(db, SCOPES.slice(0, 2));
    expect(Object.keys(compiled)).to.have.length(Object.keys(QUERIES).length * 2);
    for (const [key, sqls] of Object.entries(compiled))
      for (const text of sqls) {
        expect(text, key).to.not.match(/json_each|INDEXED BY|\?/);
        expect(text, key).to.not.match(/\b(max|min)\([^()]*,/);
        expect(text, key).to.not.match(/sum\((event|c\.disposition) =/);
        // Inside the lost calls' statement, names used only within it stay unquoted (folded alike at both ends).
        if (!key.startsWith('lostCallsOf')) expect(text, key).to.not.match(/ AS [a-z]+[A-Z]\w*/);
      }
    for (const name of ['queueId', 'callId', 'enteredAt', 'waitTime', 'origPosition', 'backAt', 'backPeer', 'backExt', 'calledIn'])
      expect(compiled['lostCallsOf (all)']?.[0]).to.include(`AS "${name}"`);
    const all = Object.values(compiled).flat().join('\n');
    expect(all).to.include('jsonb_to_recordset(CAST($1 AS jsonb))').and.to.include('GREATEST(').and.to.include('LEAST(');
    expect(all).to.include('CAST(sum(CASE WHEN event = 2 THEN ring_ms ELSE 0 END) AS bigint) / 1000');
    expect(all).to.include('AS "agentHangups"').and.to.include('m.queueId AS "queueId"').and.to.include(') AS t');
  });
});
