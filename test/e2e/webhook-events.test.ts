import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { expect } from 'chai';
import { send } from '../helpers/app';
import { ACME } from '../helpers/fixtures';
import { runTars, startServe, tarsCommand, type RunningServer } from '../helpers/cli';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { dumpReporting } from '../helpers/pbx-logs';
import { until } from '../helpers/until';

/*
 * The whole path with real processes: `tars import` (another process) records events in the outbox,
 * the running `tars serve` delivers them to a real HTTP receiver.
 */
const enter = (t: number, callId: string) => `${t}|${callId}|400|NONE|ENTERQUEUE||+13125551234|1\n`;
const CDR =
  '"","102","18725551242","from-internal","""Bob Jones"" <102>","PJSIP/102-00000a1b","PJSIP/voip-trunk-00000a1c","Dial","PJSIP/18725551242@voip-trunk,300,T","2026-11-05 14:12:02","2026-11-05 14:12:24","2026-11-05 14:14:47",165,143,"ANSWERED","DOCUMENTATION","CALLID",""\n';

describe('webhook events written by `tars import`, delivered by `tars serve` (e2e)', function () {
  this.timeout(120_000);
  let dir: string;
  let receiver: HttpReceiver;
  let server: RunningServer;
  let token: string;
  const hooks: Record<string, number> = {};
  const typesAt = (path: string) =>
    receiver.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-events-'));
    receiver = await startReceiver();
    expect((await runTars(['seed', ACME, '--data-dir', join(dir, 'data')])).code).to.equal(0);
    server = await startServe(['--data-dir', join(dir, 'data')], { env: { TARS_WEBHOOK_ALLOW: '127.0.0.1' } }); // the receiver is on loopback (issue 16)
    const login = await send(server.url, 'POST', '/v2/authentication/', {
      body: { email: 'admin@acme.example', password: 'acme-admin-pass' },
    });
    token = login.body.accessToken;
    for (const type of ['STARTCALL', 'ENDCALL']) {
      const res = await send(server.url, 'POST', '/v2/webhooks', { token, body: { tenantId: 1, type, url: `${receiver.url}/${type}` } });
      expect(res.status).to.equal(201);
      hooks[type] = res.body.id;
    }
  });

  /**
   * The deliveries of a webhook once none is waiting or under way. Events are written to the outbox in the
   * transaction of the lines that fire them, so once a later line's delivery is final, an earlier line's
   * would be listed here too.
   */
  const settledDeliveries = (type: string) =>
    until(
      async () => {
        const res = await send(server.url, 'GET', `/v2/webhooks/${hooks[type]}/deliveries`, { token, query: { paginated: 0 } });
        const records = res.body.records as { status: string }[];
        return records.every((d) => ['delivered', 'failed', 'gone'].includes(d.status)) ? records : undefined;
      },
      { what: `the ${type} deliveries to settle` },
    );

  /** Reporting rows as the data directory holds them now (another process writes them). */
  const reporting = () => {
    const sqlite = new Sqlite(join(dir, 'data', 'tars.db'), { readonly: true });
    try {
      return dumpReporting(sqlite);
    } finally {
      sqlite.close();
    }
  };
  after(async () => {
    await server?.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when import --follow picks up an appended line, then the server delivers its STARTCALL; the lines already there fire nothing', async () => {
    const file = join(dir, 'queue_log');
    const now = Math.floor(Date.now() / 1000);
    // A later line of the queue, imported first by a bulk import (which fires nothing), makes the history line
    // late: --follow then rebuilds the queue after reading its history, and only then takes lines as live. That
    // rebuild, seen in the database, tells when to append.
    const later = join(dir, 'later.queue_log');
    writeFileSync(later, enter(now - 30, 'bulk.0'));
    expect((await runTars(['import', 'queue-log', later, '--data-dir', join(dir, 'data')])).code).to.equal(0);
    writeFileSync(file, enter(now - 60, 'history.1'));
    const { file: exe, args } = tarsCommand();
    const follow = spawn(exe, [...args, 'import', 'queue-log', file, '--follow', '--data-dir', join(dir, 'data')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    follow.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await until(
        () => {
          const rows = reporting();
          return rows.events?.length === 2 && rows.pending?.length === 0 ? true : undefined;
        },
        { what: 'the history read and its queue rebuilt' },
      );
      appendFileSync(file, enter(now, 'live.1'));
      const [event] = await until(
        () => {
          const got = typesAt('/STARTCALL');
          return got.length > 0 ? got : undefined;
        },
        { what: 'the STARTCALL delivery' },
      );
      expect(event?.data).to.include({ callId: 'live.1', queueId: 1, callerIdNum: '+13125551234' });
      expect(
        (await settledDeliveries('STARTCALL')).map((d) => d.status),
        'one delivery, the live line',
      ).to.deep.equal(['delivered']);
      expect(
        typesAt('/STARTCALL').map((e) => e.data.callId),
        'history fires nothing',
      ).to.deep.equal(['live.1']);
    } finally {
      follow.kill('SIGTERM');
    }
    const code = await new Promise<number | null>((r) => follow.on('close', r));
    expect(code).to.equal(0);
    expect(out).to.match(/2 lines read, 2 imported/);
  });

  it('when a bulk import runs, then it fires nothing; with --emit-events its calls are delivered', async () => {
    const quiet = join(dir, 'quiet.csv');
    writeFileSync(quiet, CDR.replace('CALLID', 'bulk.1'));
    expect((await runTars(['import', 'cdr', quiet, '--data-dir', join(dir, 'data')])).code).to.equal(0);
    const loud = join(dir, 'loud.csv');
    writeFileSync(loud, CDR.replace('CALLID', 'emit.1'));
    expect((await runTars(['import', 'cdr', loud, '--emit-events', '--data-dir', join(dir, 'data')])).code).to.equal(0);
    const [event] = await until(
      () => {
        const got = typesAt('/ENDCALL');
        return got.length > 0 ? got : undefined;
      },
      { what: 'the ENDCALL delivery' },
    );
    expect(event?.data).to.include({ uniqueId: 'emit.1', direction: 'outbound', extension: 102 });
    expect(
      (await settledDeliveries('ENDCALL')).map((d) => d.status),
      'one delivery, the --emit-events call',
    ).to.deep.equal(['delivered']);
    expect(typesAt('/ENDCALL').map((e) => e.data.uniqueId)).to.deep.equal(['emit.1']);
  });
});
