import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { CDR_SAMPLE, dumpReporting, FIXTURES, QUEUE_LOG_SAMPLE, sampleLines } from '../helpers/pbx-logs';
import { until } from '../helpers/until';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tars = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(ROOT, 'dist/tars.cjs'), ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
const REAL = join(FIXTURES, 'real-formats');
const firstCallStart = (dir: string) => {
  const db = new SqliteDatabase(join(dir, 'tars.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT min(start_at) FROM cdr_calls').pluck().get() as number | null;
  } finally {
    db.close();
  }
};
const countRows = (dir: string) => {
  const db = new SqliteDatabase(join(dir, 'tars.db'), { readonly: true, fileMustExist: true });
  try {
    // The lines stored: each in queue_events, or a PBX start (QUEUESTART, CONFIGRELOAD) once per time in pbx_starts.
    return db.prepare('SELECT (SELECT count(*) FROM queue_events) + (SELECT count(DISTINCT time) FROM pbx_starts)').pluck().get() as number;
  } finally {
    db.close();
  }
};

describe('tars import queue-log / cdr (the built CLI)', () => {
  let dir: string;
  let data: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-cli-'));
    data = join(dir, 'data');
    expect(tars(['seed', join(FIXTURES, 'acme.json'), '--data-dir', data]).status).to.equal(0);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when the samples are imported twice, then the one-line summaries count everything, the second time as duplicates', () => {
    const first = tars(['import', 'queue-log', QUEUE_LOG_SAMPLE, '--data-dir', data]);
    expect(first.status).to.equal(0);
    expect(first.stdout).to.match(
      /^queue-log queue_log\.sample: 489 lines read, 482 imported, 0 duplicates, 7 skipped \(2 missing or malformed data fields, 2 event not used by the reports, 2 blank line, 1 not a queue_log record\)\n$/,
    );
    expect(tars(['import', 'queue-log', QUEUE_LOG_SAMPLE, '--data-dir', data]).stdout).to.include(
      '489 lines read, 0 imported, 482 duplicates',
    );
    const cdr = tars(['import', 'cdr', CDR_SAMPLE, '--data-dir', data]);
    expect(cdr.stdout)
      .to.include('cdr Master.csv.sample: 179 lines read, 167 imported, 0 duplicates, 12 skipped')
      .and.include('10 no extension or queue of a tenant matches');
  });

  it('when the file is missing, then exit 1 with one line; --help shows the options', () => {
    const missing = tars(['import', 'cdr', join(dir, 'nope.csv'), '--data-dir', data]);
    expect(missing.status).to.equal(1);
    expect(missing.stderr).to.match(/^tars import cdr: .*nope\.csv: cannot be read \(ENOENT\)\n$/);
    const help = tars(['import', 'queue-log', '--help']);
    expect(help.status).to.equal(0);
    expect(help.stdout).to.include('Usage: tars import queue-log FILE [--data-dir DIR] [--timezone ZONE] [--follow]');
  });

  it("when no zone is given, then wall-clock times are read in the machine's zone; TARS_PBX_TIMEZONE and then --timezone win, and the summary names it", () => {
    const file = join(REAL, 'Master-extra-columns.csv'); // one call at 2026-11-03 15:00:00 wall-clock time
    const local = tars(['import', 'cdr', file, '--data-dir', data], { TZ: 'Asia/Tokyo' });
    expect(local.stdout).to.include('1 imported').and.include('wall-clock times read in Asia/Tokyo');
    expect(firstCallStart(data)).to.equal(Date.parse('2026-11-03T06:00:00Z') / 1000);
    for (const [env, args, zone, iso] of [
      [{ TARS_PBX_TIMEZONE: 'Europe/Moscow' }, [], 'Europe/Moscow', '2026-11-03T12:00:00Z'],
      [{ TARS_PBX_TIMEZONE: 'Europe/Moscow' }, ['--timezone', 'America/New_York'], 'America/New_York', '2026-11-03T20:00:00Z'],
    ] as const) {
      const other = join(dir, `data-${zone.replace('/', '-')}`);
      expect(tars(['seed', join(FIXTURES, 'acme.json'), '--data-dir', other]).status).to.equal(0);
      expect(tars(['import', 'cdr', file, '--data-dir', other, ...args], env).stdout).to.include(`read in ${zone}`);
      expect(firstCallStart(other)).to.equal(Date.parse(iso) / 1000);
    }
  });

  it('when the zone is unknown or the layout cannot be read, then exit 1 with what was wrong and nothing is stored; --columns reads a cdr_custom file', () => {
    const bad = tars(['import', 'cdr', join(REAL, 'Master-extra-columns.csv'), '--data-dir', data, '--timezone', 'Mars/Olympus']);
    expect(bad.status).to.equal(1);
    expect(bad.stderr).to.include('--timezone must be an IANA timezone name');
    const custom = join(REAL, 'Master-cdr_custom.csv');
    const refused = tars(['import', 'cdr', custom, '--data-dir', data]);
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.include("No row of this file can be read as a Master.csv in cdr_csv's column order").and.include('--columns');
    expect(firstCallStart(data)).to.equal(null);
    const columns =
      'clid,src,dst,dcontext,channel,dstchannel,lastapp,lastdata,start,answer,end,duration,billsec,disposition,amaflags,accountcode,uniqueid,userfield,sequence';
    expect(tars(['import', 'cdr', custom, '--data-dir', data, '--columns', columns]).stdout).to.include('1 imported');
    expect(tars(['import', 'cdr', custom, '--data-dir', data, '--columns', 'src,dst']).stderr).to.include('--columns: the columns channel');
  });

  it('when the import is killed with SIGKILL midway, then running it again ends with the data of an uninterrupted import', async function () {
    this.timeout(90_000);
    const gen = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/gen-pbx-year.mjs'), join(dir, 'gen'), '--days', '12', '--queues', '4', '--agents', '24', '--calls', '2500'],
      { encoding: 'utf8' },
    );
    expect(gen.status, gen.stderr).to.equal(0);
    const dirs = [join(dir, 'killed'), join(dir, 'clean')];
    for (const d of dirs) expect(tars(['seed', join(dir, 'gen/fixture.json'), '--data-dir', d]).status).to.equal(0);
    const file = join(dir, 'gen/queue_log');
    const child = spawn(process.execPath, [join(ROOT, 'dist/tars.cjs'), 'import', 'queue-log', file, '--data-dir', dirs[0] as string]);
    await until(() => countRows(dirs[0] as string) > 0);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const partial = countRows(dirs[0] as string);
    expect(partial).to.be.lessThan(sampleLines(file).length); // killed midway, not after the end
    expect(tars(['import', 'queue-log', file, '--data-dir', dirs[0] as string]).stdout).to.include(`${partial} duplicates`);
    expect(tars(['import', 'queue-log', file, '--data-dir', dirs[1] as string]).status).to.equal(0);
    const [killed, clean] = dirs.map((d) => new SqliteDatabase(join(d, 'tars.db'), { readonly: true }));
    try {
      expect(dumpReporting(killed as SqliteDatabase.Database)).to.deep.equal(dumpReporting(clean as SqliteDatabase.Database));
    } finally {
      killed?.close();
      clean?.close();
    }
  });

  it('when following, then appended lines, a rotated file and a truncated one are all imported once; SIGTERM prints the summary', async function () {
    this.timeout(60_000);
    const lines = sampleLines(QUEUE_LOG_SAMPLE);
    const log = join(dir, 'queue_log');
    const text = (from: number, to: number) => `${lines.slice(from, to).join('\n')}\n`;
    writeFileSync(log, text(0, 100));
    const child = spawn(process.execPath, [join(ROOT, 'dist/tars.cjs'), 'import', 'queue-log', log, '--follow', '--data-dir', data]);
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    const valid = (to: number) =>
      lines.slice(0, to).filter((l) => /^\d+\|/.test(l) && !/COMPLETECAL\b|XFERSTATUS|RINGNOANSWER\|abc|ABANDON\|1\|1$/.test(l)).length;
    await until(() => countRows(data) === valid(100));
    appendFileSync(log, text(100, 200));
    await until(() => countRows(data) === valid(200));
    renameSync(log, `${log}.1`); // logrotate: rename, then a new file
    writeFileSync(log, text(200, 400));
    await until(() => countRows(data) === valid(400));
    writeFileSync(log, text(400, 489)); // copytruncate: the same file, now shorter
    await until(() => countRows(data) === valid(489));
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).to.equal(0);
    expect(stdout).to.match(/^queue-log queue_log: 489 lines read, 482 imported, 0 duplicates, 7 skipped/);
  });
});
