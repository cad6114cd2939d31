import { join } from 'node:path';
import { expect } from 'chai';
import { CdrImporter } from '../../src/modules/pbx-logs/cdr-importer';
import { importFile } from '../../src/modules/pbx-logs/file-import';
import { ImportRefused, type ImportOptions } from '../../src/modules/pbx-logs/import-run';
import { PbxZone } from '../../src/modules/pbx-logs/pbx-zone';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { acmeDatabase, FIXTURES } from '../helpers/pbx-logs';

/**
 * reporting.md R16, R17: the forms real PBXs and their exports write, each file written from the format as
 * Asterisk's source (app_queue.c, cdr_csv.c, cdr_custom.conf.sample) or the realtime table writes it.
 */
const REAL = join(FIXTURES, 'real-formats');
const at = (iso: string) => Date.parse(iso) / 1000;

type Db = Awaited<ReturnType<typeof acmeDatabase>>;

describe('PBX log formats and the PBX timezone (reporting.md R16, R17)', () => {
  let db: Db;
  beforeEach(async () => {
    db = await acmeDatabase();
  });
  afterEach(() => db.close());

  const events = () =>
    db.database.sqlite
      .prepare(
        'SELECT time, event, wait_time AS wait, talk_time AS talk, (SELECT peer FROM agents WHERE id = agent) AS agent FROM queue_events ORDER BY time',
      )
      .all();
  const calls = () =>
    db.database.sqlite
      .prepare('SELECT start_at AS start, answer_at AS answer, end_at AS "end", billsec, direction FROM cdr_calls ORDER BY start_at')
      .all();
  const queueLog = (file: string, opts: ImportOptions = {}) => importFile(new QueueLogImporter(db.database.sqlite, opts), join(REAL, file));
  const cdr = (file: string, opts: ImportOptions = {}) => importFile(new CdrImporter(db.database.sqlite, opts), join(REAL, file));

  it('when a realtime export with a header, tabs and datetime times with microseconds is read in Europe/Moscow, then its times are three hours earlier in UTC', async () => {
    const summary = (await queueLog('queue_log-realtime-mysql.tsv', { timezone: 'Europe/Moscow' })).toJSON();
    expect(summary).to.deep.include({ read: 6, imported: 5, skipped: 1, skippedBy: { 'header row': 1 }, timezone: 'Europe/Moscow' });
    expect(events()).to.deep.equal([
      { time: at('2026-11-03T09:00:00Z'), event: 1, wait: 0, talk: 0, agent: null },
      { time: at('2026-11-03T09:00:07Z'), event: 2, wait: 0, talk: 0, agent: 'PJSIP/101' },
      { time: at('2026-11-03T09:01:37Z'), event: 3, wait: 7, talk: 90, agent: 'PJSIP/101' },
      { time: at('2026-11-03T09:05:00Z'), event: 1, wait: 0, talk: 0, agent: null },
      { time: at('2026-11-03T09:05:42Z'), event: 7, wait: 42, talk: 0, agent: null },
    ]);
  });

  it('when a comma-separated export without a header has quoted fields, one data column and an epoch with a fraction, then each line reads as the pipe form', async () => {
    const summary = (await queueLog('queue_log-realtime-export.csv')).toJSON();
    expect(summary).to.deep.include({ read: 3, imported: 3, skipped: 0 });
    expect(events()).to.deep.equal([
      { time: 1793700000, event: 1, wait: 0, talk: 0, agent: null },
      { time: 1793700009, event: 2, wait: 0, talk: 0, agent: 'PJSIP/102' },
      { time: 1793700069, event: 4, wait: 9, talk: 60, agent: 'PJSIP/102' },
    ]);
  });

  it('when Asterisk 1.4 exits carry only the position (and key), then their wait is the time since the call entered the queue', async () => {
    expect((await queueLog('queue_log-asterisk-1.4-exits')).toJSON()).to.deep.include({ imported: 4, skipped: 0 });
    expect(events().filter((e) => (e as { event: number }).event !== 1)).to.deep.equal([
      { time: 1793703630, event: 8, wait: 30, talk: 0, agent: null },
      { time: 1793703712, event: 9, wait: 12, talk: 0, agent: null },
    ]);
  });

  it('when Master.csv rows carry columns after userfield, then they are read in cdr_csv order, in the zone given', async () => {
    const summary = (await cdr('Master-extra-columns.csv', { timezone: 'Europe/Moscow' })).toJSON();
    expect(summary).to.deep.include({ read: 1, imported: 1, timezone: 'Europe/Moscow' });
    expect(calls()).to.deep.equal([
      {
        start: at('2026-11-03T12:00:00Z'),
        answer: at('2026-11-03T12:00:05Z'),
        end: at('2026-11-03T12:02:05Z'),
        billsec: 120,
        direction: 'outbound',
      },
    ]);
  });

  it('when a MySQL export has a header row (calldate …), then its columns are found by name', async () => {
    const summary = (await cdr('Master-mysql-export.csv')).toJSON();
    expect(summary).to.deep.include({ read: 2, imported: 1, skippedBy: { 'header row': 1 } });
    expect(calls()).to.deep.equal([
      { start: at('2026-11-03T15:10:00Z'), answer: null, end: at('2026-11-03T15:11:05Z'), billsec: 60, direction: 'outbound' },
    ]);
  });

  it('when a cdr_custom file is read in cdr_csv order, then it is refused at once, saying what was expected and what came; with its columns named it is read', async () => {
    let refused: unknown;
    try {
      await cdr('Master-cdr_custom.csv');
    } catch (err) {
      refused = err;
    }
    expect(refused).to.be.instanceOf(ImportRefused);
    expect((refused as Error).message)
      .to.include("cdr_csv's column order")
      .and.include('accountcode, src, dst, dcontext, clid')
      .and.include(`the first row held ${JSON.stringify('"""Carol White"" <103>",')}`.slice(0, -1));
    expect(calls()).to.deep.equal([]);
    const columns =
      'clid,src,dst,dcontext,channel,dstchannel,lastapp,lastdata,start,answer,end,duration,billsec,disposition,amaflags,accountcode,uniqueid,userfield,sequence';
    expect((await cdr('Master-cdr_custom.csv', { cdrColumns: columns.split(',') })).toJSON()).to.deep.include({ imported: 1 });
    expect(calls()).to.deep.equal([
      {
        start: at('2026-11-03T15:20:00Z'),
        answer: at('2026-11-03T15:20:10Z'),
        end: at('2026-11-03T15:21:10Z'),
        billsec: 60,
        direction: 'outbound',
      },
    ]);
  });

  it('when a file holds no queue_log record at all, then it is refused and nothing is stored', async () => {
    let refused: unknown;
    try {
      await queueLog('Master-extra-columns.csv');
    } catch (err) {
      refused = err;
    }
    expect((refused as Error).message).to.match(/^No line of this file can be read as a queue_log: expected time\|callid\|queuename/);
    expect(events()).to.deep.equal([]);
  });

  it('when wall-clock times fall where the clocks change, then they resolve as R6 does: the first of two, after a gap', () => {
    const chicago = new PbxZone('America/Chicago');
    const wall = (iso: string) => Date.parse(`${iso}Z`) / 1000;
    expect(chicago.instantOf(wall('2026-11-01T01:30:00'))).to.equal(at('2026-11-01T06:30:00Z')); // CDT, the first 01:30
    expect(chicago.instantOf(wall('2026-11-01T02:30:00'))).to.equal(at('2026-11-01T08:30:00Z')); // CST
    expect(chicago.instantOf(wall('2026-03-08T02:30:00'))).to.equal(at('2026-03-08T08:30:00Z')); // in the gap: read with CST
    expect(chicago.instantOf(wall('2026-07-01T12:00:00'))).to.equal(at('2026-07-01T17:00:00Z'));
  });
});
