import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from '../helpers/app';
import { runTars, startServe, type RunningServer } from '../helpers/cli';
import { generatePbxData, importSummary } from '../helpers/pbx-generated';
import { until } from '../helpers/until';
import { mountSmallDisk, NO_MOUNT_VARIABLE, type SmallDisk } from '../helpers/small-disk';
import { integrityCheck, reportingRows, rowCount } from '../helpers/data-dir';
import { countByKind, storedWrites, WriteStream } from '../helpers/write-stream';

const ADMIN = { TARS_ADMIN_EMAIL: 'disk@example.test', TARS_ADMIN_PASSWORD: 'disk-admin-pass' };
const DISK_FULL = {
  name: 'InsufficientStorage',
  message:
    'The disk of the data directory is full: the change was not saved. Free some space there; the server accepts changes again at once.',
  code: 507,
};

const walSize = (data: string) => (existsSync(join(data, 'tars.db-wal')) ? statSync(join(data, 'tars.db-wal')).size : 0);
const logLines = (server: RunningServer) =>
  server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'));

describe('full disk: the data directory on a small filesystem that fills up (e2e, real process; mounts a tmpfs, needs root)', function () {
  this.timeout(120_000);
  let disk: SmallDisk;
  const mounted: SmallDisk[] = [];
  let data: string;
  let server: RunningServer | undefined;
  let url: string;
  let token: string;
  let tenantId: number;
  const login = () =>
    send(url, 'POST', '/v2/authentication/', { body: { email: ADMIN.TARS_ADMIN_EMAIL, password: ADMIN.TARS_ADMIN_PASSWORD } });
  const start = async () => {
    server = await startServe(['--data-dir', data], { env: ADMIN });
    url = server.url;
  };
  const startSignedIn = async () => {
    await start();
    const { accessToken, user } = (await login()).body;
    [token, tenantId] = [accessToken, user.tenantId];
  };

  /** Writes that fit, then a full disk and writes until 30 were refused: both streams. */
  const fillUp = async () => {
    const before = new WriteStream(url, token, tenantId, { workers: 2, prefix: 'before' });
    await until(() => before.acked.length >= 30);
    await before.stop();
    disk.fill();
    const full = new WriteStream(url, token, tenantId, { workers: 2, prefix: 'full' });
    await until(() => full.refused.length >= 30, { ms: 60_000 });
    await full.stop();
    expect(full.lost).to.deep.equal([]);
    expect(new Set(full.refused.map((r) => `${r.status} ${r.text}`))).to.deep.equal(new Set([`507 ${JSON.stringify(DISK_FULL)}`]));
    return { before, full };
  };
  const expectStored = (streams: Record<string, WriteStream>) => {
    for (const [prefix, stream] of Object.entries(streams)) {
      const stored = storedWrites(data, stream.acked, prefix);
      expect(stored.missing, prefix).to.deep.equal([]);
      expect(stored.halfWritten, prefix).to.deep.equal([]);
      expect(stored.rows, prefix).to.deep.equal(countByKind(stream.acked));
    }
  };

  beforeEach(function () {
    if (process.env[NO_MOUNT_VARIABLE] === '1') this.skip(); // the machine was declared unable to mount: visible as pending
    disk = mountSmallDisk(24);
    mounted.push(disk);
    data = join(disk.path, 'data');
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    for (const d of mounted.splice(0)) d.unmount();
  });

  it('when the disk fills up, then writes (and failed logins) get 507 InsufficientStorage, reads and logins go on, nothing is corrupted, and writes succeed again once space is freed, without a restart', async () => {
    await startSignedIn();
    const { before, full } = await fillUp();
    const webhook = before.acked.find((w) => w.kind === 'webhook');
    expect((await send(url, 'GET', `/v2/webhooks/${webhook?.id}`, { token })).status).to.equal(200);
    const locations = await send(url, 'GET', '/v2/admin/emergency-locations/', { token, query: { paginated: 0 } });
    expect(locations.body.total).to.equal(countByKind(before.acked).location + countByKind(full.acked).location);
    expect((await login()).status, 'a login while the disk is full').to.equal(201);
    const wrong = await send(url, 'POST', '/v2/authentication/', { body: { email: ADMIN.TARS_ADMIN_EMAIL, password: 'not-the-password' } });
    expect([wrong.status, wrong.body], 'a failed login cannot be counted').to.deep.equal([507, DISK_FULL]);
    expect(integrityCheck(data), 'while the disk is full').to.equal('ok');

    disk.free();
    const after = await send(url, 'POST', '/v2/admin/branches', { token, body: { tenantId, name: 'after-0' } });
    expect(after.status, after.text).to.equal(201);
    expectStored({ before, full });

    const running = server as RunningServer;
    expect(await running.stop('SIGTERM'), running.output()).to.equal(0);
    expect(walSize(data), 'the WAL was checkpointed on the way out').to.equal(0);
    expect(integrityCheck(data)).to.equal('ok');
    const log = logLines(running);
    for (const line of log) expect(() => JSON.parse(line), line).not.to.throw();
    expect(
      log.filter((l) => l.includes('"status":507')),
      'the 507 answers (writes and the failed login) in the request log',
    ).to.have.length(full.refused.length + 1);
  });

  it('when the server is stopped while the disk is full, then it closes the database and exits 0, the WAL keeps every acknowledged write, and the next start has them all', async () => {
    await startSignedIn();
    const { before, full } = await fillUp();
    const running = server as RunningServer;
    expect(await running.stop('SIGTERM'), running.output()).to.equal(0);
    const warnings = logLines(running).filter(
      (l) => /"level":(40|50)/.test(l) && !l.includes('"status":507') && !l.includes('"msg":"request failed"'),
    );
    expect(
      warnings.map((l) => JSON.parse(l).msg),
      'warnings and errors besides the refused requests',
    ).to.deep.equal(['the WAL could not be emptied: the disk is full. Nothing is lost; the next start applies it']);
    expect(walSize(data), 'the WAL holds what the database file could not take').to.be.greaterThan(0);
    expect(existsSync(join(data, 'server.lock')), 'the lock is released').to.equal(false);

    disk.free();
    await start();
    expect(integrityCheck(data)).to.equal('ok');
    expectStored({ before, full });
    expect((await send(url, 'POST', '/v2/admin/branches', { token, body: { tenantId, name: 'after-0' } })).status).to.equal(201);
  });

  it('when tars import runs out of disk, then it exits 1 saying so, the database is intact, and once space is freed the rerun ends with the totals and rows of an import that had room', async () => {
    const work = mkdtempSync(join(tmpdir(), 'tars-disk-import-'));
    try {
      const gen = generatePbxData(join(work, 'gen'), ['--days', '12', '--queues', '4', '--agents', '24', '--calls', '2500']);
      const roomy = join(work, 'roomy');
      for (const d of [data, roomy]) expect((await runTars(['seed', gen.fixture, '--data-dir', d])).code).to.equal(0);
      const expected = await importSummary(gen.queueLog, roomy, 'queue-log');
      disk.fill(18 << 20); // leaves about 6 MiB: the imported logs need about 10
      const failed = await runTars(['import', 'queue-log', gen.queueLog, '--data-dir', data]);
      expect([failed.code, failed.stderr]).to.deep.equal([
        1,
        'tars import queue-log: the disk of the data directory is full. What was saved before stays; free some space and run the command again\n',
      ]);
      expect(integrityCheck(data)).to.equal('ok');
      const kept = rowCount(data, 'queue_events');
      expect(kept, 'chunks stored before the disk filled').to.be.within(1, expected.imported - 1);

      disk.free();
      expect(await importSummary(gen.queueLog, data, 'queue-log')).to.deep.equal({
        ...expected,
        imported: expected.imported - kept,
        duplicates: kept,
      });
      expect(integrityCheck(data)).to.equal('ok');
      expect(reportingRows(data)).to.deep.equal(reportingRows(roomy));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
