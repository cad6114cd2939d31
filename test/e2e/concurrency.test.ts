import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from '../helpers/app';
import { runTars, startServe, type RunningServer } from '../helpers/cli';
import { generatePbxData, importSummary } from '../helpers/pbx-generated';
import { integrityCheck, reportingRows } from '../helpers/data-dir';
import { countByKind, storedWrites, WriteStream } from '../helpers/write-stream';

/** Log lines of level error (50) or worse in pino's JSON output. */
const errorLines = (output: string) => output.split('\n').filter((l) => /"level":(50|60)/.test(l));

describe('concurrency: tars import and the server write to one database at the same time (e2e, real processes)', function () {
  this.timeout(240_000);
  let dir: string;
  let server: RunningServer | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-concurrent-'));
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('when clients write while both logs are imported, then no client sees a 5xx or a busy error, every acknowledged write is there, and the import totals equal an import alone', async () => {
    const gen = generatePbxData(join(dir, 'gen'), ['--days', '40', '--queues', '4', '--agents', '24', '--calls', '2500']);
    const [live, alone] = [join(dir, 'live'), join(dir, 'alone')];
    for (const d of [live, alone]) expect((await runTars(['seed', gen.fixture, '--data-dir', d])).code).to.equal(0);
    const expected = { queueLog: await importSummary(gen.queueLog, alone, 'queue-log'), cdr: await importSummary(gen.cdr, alone, 'cdr') };

    server = await startServe(['--data-dir', live]);
    const login = await send(server.url, 'POST', '/v2/authentication/', { body: gen.login });
    const stream = new WriteStream(server.url, login.body.accessToken, login.body.user.tenantId, { workers: 4 });
    const imported = { queueLog: await importSummary(gen.queueLog, live, 'queue-log'), cdr: await importSummary(gen.cdr, live, 'cdr') };
    const answeredDuring = stream.answered;
    await stream.stop();

    expect(stream.refusals(), 'writes refused while the import ran').to.deep.equal([]);
    expect(stream.lost, 'requests without an answer').to.deep.equal([]);
    expect(answeredDuring, 'writes answered while the import ran').to.be.at.least(50);
    expect(imported).to.deep.equal(expected);
    expect(errorLines(server.output()), 'errors in the server log').to.deep.equal([]);

    const stored = storedWrites(live, stream.acked);
    expect(stored.missing).to.deep.equal([]);
    expect(stored.halfWritten).to.deep.equal([]);
    expect(stored.rows).to.deep.equal(countByKind(stream.acked));
    expect(integrityCheck(live)).to.equal('ok');
    expect(reportingRows(live)).to.deep.equal(reportingRows(alone));
  });
});
