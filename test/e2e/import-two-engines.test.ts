import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { copyRows } from '../../src/db/copy';
import type { Db, OpenDatabase } from '../../src/db/database';
import { openPostgres, type PostgresDatabase } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import { CdrImporter } from '../../src/modules/pbx-logs/cdr-importer';
import { importFile } from '../../src/modules/pbx-logs/file-import';
import { holdingImportLock, LOCK_HELD } from '../../src/modules/pbx-logs/pbx-logs-postgres.repository';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { openDataDir } from '../../src/runtime';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { Validator } from '../../src/validation/validation';
import { ACME } from '../helpers/fixtures';
import { ASTERISK_RUN, CDR_SAMPLE, QUEUE_LOG_SAMPLE, sampleLines } from '../helpers/pbx-logs';
import { sharedPostgres } from '../helpers/postgres';

/*
 * The PBX log import gives the same rows on SQLite and on PostgreSQL (issue 32, docs/design/postgresql.md §4): the
 * sample logs and the recorded Asterisk 22 run (test/fixtures/asterisk) imported straight into each engine, every
 * table the import fills compared row for row. Surrogate ids that PostgreSQL's ON CONFLICT may use up (cdr_calls,
 * the intervals, which a replay renumbers anyway) are left out; agents' ids are compared. Then: a second import of
 * the same files stores nothing on either engine, and on PostgreSQL the queue_log imported in two runs, its newer
 * half first (late lines: the rebuild of anchors, hours and intervals), gives the rows of the one run on SQLite.
 */

const TABLES: Readonly<Record<string, string>> = {
  agents: 'SELECT id, peer FROM agents ORDER BY id',
  events: `SELECT queue_id, anchor, time, line_key, seq, event, callid, agent, raw_agent, wait_time, talk_time, ring_ms, pause_reason,
    caller, caller_key, position, orig_position FROM queue_events ORDER BY time, line_key`,
  calls: `SELECT tenant_id, start_at, answer_at, end_at, line_key, unique_id, direction, outbound_r9, via_queue, source, destination,
    source_digits, destination_digits, caller_name, src_agent, dst_agent, src_raw, dst_raw, src_ext, dst_ext, extension, queue_id, duration,
    billsec, disposition, last_app, destination_key FROM cdr_calls ORDER BY start_at, line_key`,
  hourStats: 'SELECT * FROM queue_hour_stats ORDER BY queue_id, hour',
  agentTalk: 'SELECT * FROM agent_talk_hour ORDER BY queue_id, hour, agent',
  outbound: 'SELECT * FROM queue_outbound_hour ORDER BY queue_id, hour',
  dayStats: 'SELECT * FROM queue_day_stats ORDER BY queue_id, day_start',
  sessions: 'SELECT queue_id, agent, start_at, end_at FROM agent_sessions ORDER BY queue_id, agent, start_at',
  pauses: 'SELECT queue_id, agent, start_at, end_at, reason FROM agent_pauses ORDER BY queue_id, agent, start_at',
  marks: 'SELECT * FROM queue_report_state ORDER BY queue_id',
  starts: 'SELECT * FROM pbx_starts ORDER BY tenant_id, time',
  counters: "SELECT name, value FROM reporting_counters WHERE name <> 'import_epoch' ORDER BY name",
  lineCounts: 'SELECT * FROM import_line_counts ORDER BY kind, outcome, reason',
};

async function tables(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [name, query] of Object.entries(TABLES)) out[name] = (await sql.raw(query).execute(db)).rows;
  return out;
}

const DATA_SETS = [
  { name: 'the sample logs', fixture: ACME, queueLog: QUEUE_LOG_SAMPLE, cdr: CDR_SAMPLE },
  {
    name: 'the recorded Asterisk 22 run',
    fixture: join(ASTERISK_RUN, 'fixture.json'),
    queueLog: join(ASTERISK_RUN, 'queue_log'),
    cdr: join(ASTERISK_RUN, 'Master.csv'),
  },
] as const;

for (const set of DATA_SETS)
  describe(`importing ${set.name} into SQLite and into PostgreSQL (the same rows)`, function () {
    this.timeout(180_000);
    let dir: string;
    let sqlite: OpenDatabase;
    let directory: PostgresDatabase | undefined;
    const pgs: PostgresDatabase[] = [];

    /** A fresh PostgreSQL database holding the seeded directory (no imported rows). */
    async function seededPostgres(): Promise<PostgresDatabase> {
      const pg = openPostgres(await (await sharedPostgres()).createDatabase(), { poolSize: 4 });
      pgs.push(pg);
      await migrateToLatest(pg);
      await copyRows((directory as PostgresDatabase).db, pg.db);
      return pg;
    }

    const importBoth = async (target: OpenDatabase | PostgresDatabase) => ({
      queueLog: (await importFile(new QueueLogImporter(target), set.queueLog)).toJSON(),
      cdr: (await importFile(new CdrImporter(target), set.cdr)).toJSON(),
    });

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tars-import-engines-'));
      sqlite = await openDataDir(dir, () => undefined);
      await seedFixture(sqlite, new Validator(), await readFixtureFile(set.fixture), new Date());
      // The seeded directory, kept on PostgreSQL to copy into each fresh database.
      directory = openPostgres(await (await sharedPostgres()).createDatabase(), { poolSize: 2 });
      await migrateToLatest(directory);
      await copyRows(sqlite.db, directory.db);
    });
    after(async () => {
      for (const pg of pgs) await pg.close();
      await directory?.close();
      await sqlite?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('when both logs are imported into each engine, then every table the import fills is equal row for row; again, nothing is stored', async () => {
      const pg = await seededPostgres();
      const onSqlite = await importBoth(sqlite);
      const onPostgres = await importBoth(pg);
      expect(onPostgres).to.deep.equal(onSqlite);
      expect(onSqlite.queueLog.imported).to.be.greaterThan(100);
      expect(onSqlite.cdr.imported).to.be.greaterThan(10);
      const rows = await tables(sqlite.db);
      expect(rows.events?.length).to.be.greaterThan(100);
      expect(rows.hourStats?.length).to.be.greaterThan(0);
      expect(rows.sessions?.length).to.be.greaterThan(0);
      const onPg = await tables(pg.db);
      for (const name of Object.keys(TABLES)) expect(onPg[name], name).to.deep.equal(rows[name]);

      const again = { sqlite: await importBoth(sqlite), postgres: await importBoth(pg) };
      for (const summary of [again.sqlite, again.postgres]) {
        expect(summary.queueLog).to.include({ imported: 0, duplicates: onSqlite.queueLog.imported });
        expect(summary.cdr).to.include({ imported: 0, duplicates: onSqlite.cdr.imported });
      }
      const afterAgain = await tables(sqlite.db);
      // Only the metrics' line counts and the import-order counter grow; the stored rows are as they were.
      expect({ ...afterAgain, lineCounts: [], counters: [] }).to.deep.equal({ ...rows, lineCounts: [], counters: [] });
      const onPgAgain = await tables(pg.db);
      for (const name of Object.keys(TABLES)) expect(onPgAgain[name], name).to.deep.equal(afterAgain[name]);
    });

    it('when the queue_log arrives in two runs on PostgreSQL, its newer half first, then the rows equal one run on SQLite', async () => {
      const pg = await seededPostgres();
      const lines = sampleLines(set.queueLog);
      const half = Math.floor(lines.length / 2);
      for (const part of [lines.slice(half), lines.slice(0, half)]) {
        const importer = new QueueLogImporter(pg);
        for (let i = 0; i < part.length; i += 40) await importer.importLines(part.slice(i, i + 40));
        await importer.finish();
      }
      await importFile(new CdrImporter(pg), set.cdr);
      const one = await seededPostgres();
      await importBoth(one);
      const split = await tables(pg.db);
      const whole = await tables(one.db);
      // The same rows but for seq (import order) and the agents' ids (interned in the order the names were met).
      const agentNames = (t: Record<string, unknown[]>) => (t.agents as { peer: string }[]).map((a) => a.peer).sort();
      expect(agentNames(split)).to.deep.equal(agentNames(whole));
      const comparable = (t: Record<string, unknown[]>) => {
        const peer = new Map((t.agents as { id: number; peer: string }[]).map((a) => [a.id, a.peer]));
        const named = (rows: unknown[] | undefined) =>
          (rows as Record<string, unknown>[]).map((r) => {
            const out: Record<string, unknown> = { ...r, seq: undefined };
            for (const k of ['agent', 'raw_agent', 'src_agent', 'dst_agent', 'src_raw', 'dst_raw'])
              if (typeof r[k] === 'number') out[k] = peer.get(r[k]) ?? r[k];
            return out;
          });
        const sorted = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r)).sort();
        return {
          events: sorted(named(t.events)),
          calls: sorted(named(t.calls)),
          hourStats: t.hourStats,
          dayStats: t.dayStats,
          outbound: t.outbound,
          agentTalk: sorted(named(t.agentTalk)),
          sessions: sorted(named(t.sessions)),
          pauses: sorted(named(t.pauses)),
          starts: t.starts,
        };
      };
      expect(comparable(split)).to.deep.equal(comparable(whole));
    });
  });

describe('the import lock on PostgreSQL (two pools on one database, as two instances)', function () {
  this.timeout(60_000);

  it('when one instance imports a file, then another refuses the same file meanwhile, takes another file, and takes the first once it is done', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const one = openPostgres(url, { poolSize: 2 });
    const two = openPostgres(url, { poolSize: 2 });
    try {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => (started = resolve));
      const first = holdingImportLock(one.db, 'import:queue-log:a', async () => {
        started();
        await held;
        return 'imported';
      });
      await running;
      expect(await holdingImportLock(two.db, 'import:queue-log:a', async () => 'imported too')).to.equal(LOCK_HELD);
      expect(await holdingImportLock(two.db, 'import:queue-log:b', async () => 'another file')).to.equal('another file');
      release();
      expect(await first).to.equal('imported');
      expect(await holdingImportLock(two.db, 'import:queue-log:a', async () => 'now')).to.equal('now');
    } finally {
      await one.close();
      await two.close();
    }
  });
});
