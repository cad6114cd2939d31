import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from '../helpers/app';
import { runTars, startServe, tarsCommand, type RunningServer } from '../helpers/cli';
import { generatePbxData, importSummary, queueStats } from '../helpers/pbx-generated';
import { until } from '../helpers/until';
import { integrityCheck, reportingRows, rowCount } from '../helpers/data-dir';
import { countByKind, storedWrites, WriteStream, type WriteKind } from '../helpers/write-stream';

const ADMIN = { TARS_ADMIN_EMAIL: 'crash@example.test', TARS_ADMIN_PASSWORD: 'crash-admin-pass' };
const WORKERS = 6;

describe('crash: SIGKILL amid acknowledged writes and amid an import (e2e, real processes)', function () {
  this.timeout(180_000);
  let dir: string;
  const servers: RunningServer[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-crash-'));
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('when tars serve is killed with SIGKILL amid a stream of writes, then after a restart the database is intact and every acknowledged write is there, whole', async () => {
    const data = join(dir, 'data');
    const server = await startServe(['--data-dir', data], { env: ADMIN });
    servers.push(server);
    const login = await send(server.url, 'POST', '/v2/authentication/', {
      body: { email: ADMIN.TARS_ADMIN_EMAIL, password: ADMIN.TARS_ADMIN_PASSWORD },
    });
    const { accessToken: token, user } = login.body;
    const stream = new WriteStream(server.url, token, user.tenantId, { workers: WORKERS });
    await until(() => stream.acked.length >= 150);
    await server.stop('SIGKILL'); // while WORKERS requests are in flight
    await stream.stop();
    expect(stream.refusals(), 'every write before the kill was acknowledged').to.deep.equal([]);

    const restarted = await startServe(['--data-dir', data], { env: ADMIN });
    servers.push(restarted);
    expect(integrityCheck(data)).to.equal('ok');
    const stored = storedWrites(data, stream.acked);
    expect(stored.missing, 'acknowledged writes missing after the restart').to.deep.equal([]);
    expect(stored.halfWritten, 'E911 locations without all their notification groups').to.deep.equal([]);
    const acked = countByKind(stream.acked);
    for (const kind of Object.keys(acked) as WriteKind[]) {
      // Beyond the acknowledged rows there can only be writes that committed while their answer was lost.
      expect(stored.rows[kind], kind).to.be.within(acked[kind], acked[kind] + WORKERS);
    }
    const webhook = stream.acked.filter((w) => w.kind === 'webhook').at(-1);
    const secret = await send(restarted.url, 'GET', `/v2/webhooks/${webhook?.id}/secret`, { token });
    expect(secret.status).to.equal(200);
    expect(secret.body.secret).to.match(/^whsec_/);
    const again = await send(restarted.url, 'POST', '/v2/admin/branches', {
      token,
      body: { tenantId: user.tenantId, name: 'After the crash' },
    });
    expect(again.status).to.equal(201);
  });

  it('when tars import is killed with SIGKILL at several points, then the database is intact after each kill, and a rerun gives the totals, rows and reports of an uninterrupted import', async () => {
    const gen = generatePbxData(join(dir, 'gen'), ['--days', '12', '--queues', '4', '--agents', '24', '--calls', '2500']);
    const [killed, clean] = [join(dir, 'killed'), join(dir, 'clean')];
    for (const d of [killed, clean]) expect((await runTars(['seed', gen.fixture, '--data-dir', d])).code).to.equal(0);
    const straight = { queueLog: await importSummary(gen.queueLog, clean, 'queue-log'), cdr: await importSummary(gen.cdr, clean, 'cdr') };

    const kills: number[] = [];
    for (const [kind, file, table] of [
      ['queue-log', gen.queueLog, 'queue_events'],
      ['queue-log', gen.queueLog, 'queue_events'],
      ['cdr', gen.cdr, 'cdr_calls'],
    ] as const) {
      const before = rowCount(killed, table);
      const { file: program, args } = tarsCommand();
      const child = spawn(program, [...args, 'import', kind, file, '--data-dir', killed], { stdio: 'ignore' });
      await until(() => rowCount(killed, table) > before);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      expect(integrityCheck(killed), `after kill ${kills.length + 1}`).to.equal('ok');
      kills.push(rowCount(killed, table));
    }
    expect(kills[1], 'the second kill came later than the first').to.be.greaterThan(kills[0] as number);
    expect(kills[1], 'killed midway, not after the end').to.be.lessThan(straight.queueLog.imported);
    expect(kills[2], 'killed midway, not after the end').to.be.lessThan(straight.cdr.imported);

    const rerun = { queueLog: await importSummary(gen.queueLog, killed, 'queue-log'), cdr: await importSummary(gen.cdr, killed, 'cdr') };
    expect(rerun.queueLog).to.deep.equal({
      ...straight.queueLog,
      imported: straight.queueLog.imported - (kills[1] as number),
      duplicates: kills[1],
    });
    expect(rerun.cdr).to.deep.equal({ ...straight.cdr, imported: straight.cdr.imported - (kills[2] as number), duplicates: kills[2] });
    expect(integrityCheck(killed)).to.equal('ok');
    expect(reportingRows(killed)).to.deep.equal(reportingRows(clean));
    const reports = [];
    for (const d of [killed, clean]) {
      const server = await startServe(['--data-dir', d]);
      servers.push(server);
      reports.push(await queueStats(server.url, gen));
    }
    expect(reports[0]).to.deep.equal(reports[1]);
  });
});
