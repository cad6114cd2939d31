import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest, migrator } from '../../src/db/migrate';
import { CdrImporter } from '../../src/modules/pbx-logs/cdr-importer';
import { recomputeHours } from '../../src/modules/pbx-logs/derived-hours';
import { SqliteImportStore } from '../../src/modules/pbx-logs/pbx-logs.repository';
import { importFile } from '../../src/modules/pbx-logs/file-import';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { Validator } from '../../src/validation/validation';
import { ACME } from '../helpers/fixtures';
import { acmeDatabase, CDR_SAMPLE, dumpReporting, QUEUE_LOG_SAMPLE, sampleLines } from '../helpers/pbx-logs';

type Db = Awaited<ReturnType<typeof acmeDatabase>>;

/** Imports lines in chunks of `size` (each chunk one transaction, as a file import does). */
async function importChunks(importer: QueueLogImporter | CdrImporter, lines: string[], size = 50): Promise<void> {
  for (let i = 0; i < lines.length; i += size) await importer.importLines(lines.slice(i, i + size));
}

describe('importing PBX logs: idempotency, resumption, late lines', () => {
  const queueLog = sampleLines(QUEUE_LOG_SAMPLE);
  const cdr = sampleLines(CDR_SAMPLE);
  let straight: Record<string, unknown[]>;
  const opened: Db[] = [];
  const fresh = async () => {
    const db = await acmeDatabase();
    opened.push(db);
    return db.database.sqlite;
  };

  before(async () => {
    const sqlite = await fresh();
    await importFile(new QueueLogImporter(sqlite), QUEUE_LOG_SAMPLE);
    await importFile(new CdrImporter(sqlite), CDR_SAMPLE);
    straight = dumpReporting(sqlite);
  });
  after(async () => {
    for (const db of opened) await db.close();
  });

  it('when the sample logs are imported, then 480 queue_log lines and 167 calls are stored, nothing left pending', () => {
    expect(straight.events).to.have.length(480);
    expect(straight.calls).to.have.length(167);
    expect(straight.pending).to.deep.equal([]);
  });

  it('when the same files are imported again, then everything is a duplicate and nothing changes', async () => {
    const sqlite = await fresh();
    await importFile(new QueueLogImporter(sqlite), QUEUE_LOG_SAMPLE);
    await importFile(new CdrImporter(sqlite), CDR_SAMPLE);
    const again = await importFile(new QueueLogImporter(sqlite), QUEUE_LOG_SAMPLE);
    const cdrAgain = await importFile(new CdrImporter(sqlite), CDR_SAMPLE);
    expect(again.toJSON()).to.include({ read: 489, imported: 0, duplicates: 482, skipped: 7 }); // 480 lines and 2 PBX starts
    expect(cdrAgain.toJSON()).to.include({ read: 179, imported: 0, duplicates: 167, skipped: 12 });
    expect(dumpReporting(sqlite)).to.deep.equal(straight);
  });

  it('when a file overlaps one imported before, then the shared lines count once', async () => {
    const sqlite = await fresh();
    const first = new QueueLogImporter(sqlite);
    await importChunks(first, queueLog.slice(0, 300));
    await first.finish();
    const second = new QueueLogImporter(sqlite);
    await importChunks(second, queueLog.slice(200));
    expect((await second.finish()).toJSON()).to.include({ duplicates: 99 }); // lines 201..300, less the blank line 219
    await importFile(new CdrImporter(sqlite), CDR_SAMPLE);
    expect(dumpReporting(sqlite)).to.deep.equal(straight);
  });

  it('when an import is killed between two chunks, then running it again ends with the same data', async () => {
    const sqlite = await fresh();
    const killed = new QueueLogImporter(sqlite);
    await importChunks(killed, queueLog.slice(0, 150)); // committed chunks; finish() never ran
    const killedCdr = new CdrImporter(sqlite);
    await importChunks(killedCdr, cdr.slice(0, 60));
    await importFile(new QueueLogImporter(sqlite), QUEUE_LOG_SAMPLE);
    await importFile(new CdrImporter(sqlite), CDR_SAMPLE);
    expect(dumpReporting(sqlite)).to.deep.equal(straight);
  });

  it('when the older half of the log arrives after the newer half, then the data equals an import in order', async () => {
    const sqlite = await fresh();
    const newer = new QueueLogImporter(sqlite);
    await importChunks(newer, queueLog.slice(250));
    await newer.finish();
    const older = new QueueLogImporter(sqlite);
    await importChunks(older, queueLog.slice(0, 250), 40);
    await older.finish();
    await importFile(new CdrImporter(sqlite), CDR_SAMPLE);
    expect(dumpReporting(sqlite)).to.deep.equal(straight);
  });

  it('when the CDR is imported before the queue_log, then the outbound figures are the same', async () => {
    const sqlite = await fresh();
    await importFile(new CdrImporter(sqlite), CDR_SAMPLE);
    await importFile(new QueueLogImporter(sqlite), QUEUE_LOG_SAMPLE);
    expect(dumpReporting(sqlite)).to.deep.equal(straight);
  });

  it('when the per-hour sums are recomputed from the stored rows, then they equal the sums kept while importing', async () => {
    const sqlite = await fresh();
    await importFile(new QueueLogImporter(sqlite), QUEUE_LOG_SAMPLE);
    const kept = dumpReporting(sqlite);
    const hours = sqlite.prepare('SELECT DISTINCT queue_id, anchor / 3600 AS hour FROM queue_events').all() as {
      queue_id: number;
      hour: number;
    }[];
    for (const q of new Set(hours.map((h) => h.queue_id)))
      await recomputeHours(
        new SqliteImportStore(sqlite),
        q,
        hours.filter((h) => h.queue_id === q).map((h) => h.hour),
      );
    expect(dumpReporting(sqlite)).to.deep.equal(kept);
  });

  it('when one file holds the same line twice, then both count, and importing it again adds nothing (R1)', async () => {
    const sqlite = await fresh();
    const lines = [
      '1793637540|9.1|400|NONE|ENTERQUEUE||+1|1',
      '1793637551|9.1|400|NONE|ABANDON|1|1|5',
      '1793637551|9.1|400|NONE|ABANDON|1|1|5',
    ];
    for (let i = 0; i < 2; i++) {
      const importer = new QueueLogImporter(sqlite);
      await importer.importLines(lines);
      await importer.finish();
    }
    expect(sqlite.prepare('SELECT abandons, wait_n FROM queue_hour_stats').all()).to.deep.equal([{ abandons: 2, wait_n: 2 }]);
  });

  it('when lines name unknown queues or agents without an extension, then the summary reports them and only known queues are stored', async () => {
    const sqlite = await fresh();
    const importer = new QueueLogImporter(sqlite);
    await importer.importLines([
      '1|NONE|999|PJSIP/101|ADDMEMBER|',
      '2|NONE|999|PJSIP/101|REMOVEMEMBER|',
      '3|NONE|400|PJSIP/999|ADDMEMBER|',
    ]);
    expect((await importer.finish()).toJSON()).to.deep.include({
      imported: 1,
      skipped: 2,
      unknownQueues: { 999: 2 },
      unknownAgents: { 'PJSIP/999': 1 },
    });
    expect(sqlite.prepare('SELECT count(*) FROM queues').pluck().get()).to.equal(3);
  });

  it('when lines stored before queue_events had named columns are migrated, then their rows equal those of an import today', async () => {
    const today = await fresh();
    await importFile(new QueueLogImporter(today), QUEUE_LOG_SAMPLE);
    const dir = mkdtempSync(join(tmpdir(), 'tars-old-events-'));
    const old = openDatabase(join(dir, 'tars.db'));
    try {
      const result = await migrator(old).migrateTo('2026-11-23T1300_import_line_counts');
      if (result.error) throw result.error;
      // The same lines as that schema held them: a = CONNECT's ring seconds, RINGNOANSWER's ring milliseconds,
      // ADDMEMBER's PAUSED flag, else the wait time; b = the call time; reason = PAUSE's.
      old.sqlite.prepare('ATTACH ? AS today').run(today.name);
      old.sqlite.exec(`INSERT INTO queue_events (queue_id, anchor, time, line_key, seq, event, callid, agent, a, b, reason)
        SELECT queue_id, anchor, time, line_key, seq, event, callid, agent,
          CASE event WHEN 2 THEN ring_ms / 1000 WHEN 11 THEN ring_ms WHEN 20 THEN pause_reason IS NOT NULL ELSE wait_time END,
          talk_time, CASE WHEN event = 24 THEN pause_reason END
        FROM today.queue_events`);
      old.sqlite.exec('INSERT INTO reporting_counters SELECT * FROM today.reporting_counters'); // the import order so far
      old.sqlite.exec('DETACH today');
      // Later migrations follow it; this one is the first the old file needs.
      expect((await migrateToLatest(old))[0]).to.equal('2026-11-24T1000_queue_event_columns');
      // What the old schema did not keep (caller numbers, exit positions, migration 2026-11-26T1310) is left empty …
      const kept = (sqlite: typeof today) =>
        sqlite
          .prepare(
            'SELECT queue_id, anchor, time, line_key, seq, event, callid, agent, raw_agent, wait_time, talk_time, ring_ms, pause_reason FROM queue_events ORDER BY time, line_key',
          )
          .all();
      expect(kept(old.sqlite)).to.have.length(480).and.to.deep.equal(kept(today));
      expect(
        old.sqlite.prepare('SELECT count(*) FROM queue_events WHERE caller IS NOT NULL OR position IS NOT NULL').pluck().get(),
      ).to.equal(0);
      // … until the same file is imported again into the site (its directory seeded): its lines are duplicates, and
      // fill in what they carry.
      await seedFixture(old, new Validator(), await readFixtureFile(ACME), new Date());
      const again = (await importFile(new QueueLogImporter(old.sqlite), QUEUE_LOG_SAMPLE)).toJSON();
      expect(again).to.deep.include({ duplicates: 480 }); // (and the two PBX starts, which the copy did not hold)
      const rows = (sqlite: typeof today) => sqlite.prepare('SELECT * FROM queue_events ORDER BY time, line_key').all();
      expect(rows(old.sqlite)).to.deep.equal(rows(today));
      expect(today.prepare('SELECT count(*) FROM queue_events WHERE caller_key IS NOT NULL AND event = 1').pluck().get()).to.be.greaterThan(
        100,
      );
    } finally {
      await old.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
