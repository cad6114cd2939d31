import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runTars, startServe } from '../helpers/cli';

/** Issue 16, point 4: `tars serve` that cannot listen says so and exits 1 before it holds anything. */
describe('tars serve when it cannot listen', function () {
  this.timeout(60_000);
  let dir: string;
  let blocker: Server;
  let takenPort: number;

  before(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    takenPort = (blocker.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-bind-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const dataDir = () => join(dir, 'data');
  /** Nothing was started: no lock, no database, no "listening" line. */
  const expectNothingStarted = (stdout: string) => {
    expect(stdout).not.to.include('listening on');
    expect(existsSync(join(dataDir(), 'server.lock')), 'server.lock').to.equal(false);
    expect(existsSync(dataDir()) ? readdirSync(dataDir()) : [], 'files in the data directory').to.deep.equal([]);
  };

  it('when the port is taken, then exit 1 with a message naming the address and the reason, before the lock or any job', async () => {
    const res = await runTars(['serve', '--port', String(takenPort), '--host', '127.0.0.1', '--data-dir', dataDir()]);
    expect(res.code, res.stderr).to.equal(1);
    expect(res.stderr).to.include(`http://127.0.0.1:${takenPort}`);
    expect(res.stderr).to.match(/already in use \(EADDRINUSE\)/);
    expectNothingStarted(res.stdout);
  });

  it('when the host is not an address or resolvable name (1.2.3.4.5), then exit 1 naming it and the reason', async () => {
    const res = await runTars(['serve', '--port', '0', '--host', '1.2.3.4.5', '--data-dir', dataDir()]);
    expect(res.code, res.stderr).to.equal(1);
    expect(res.stderr).to.include('http://1.2.3.4.5:0');
    expect(res.stderr).to.match(/cannot listen on .*: .+\((ENOTFOUND|EAI_AGAIN|EAI_FAIL|EADDRNOTAVAIL)\)/);
    expectNothingStarted(res.stdout);
  });

  it('when the port is free, then it listens, answers, and a second server on the same port exits 1 while the first keeps the lock', async () => {
    const first = await startServe(['--data-dir', dataDir()]);
    try {
      const port = new URL(first.url).port;
      expect((await fetch(`${first.url}/healthz`)).status).to.equal(200);
      const second = await runTars(['serve', '--port', port, '--host', '127.0.0.1', '--data-dir', join(dir, 'other')]);
      expect(second.code, second.stderr).to.equal(1);
      expect(second.stderr).to.include(`http://127.0.0.1:${port}`);
      expect(existsSync(join(dir, 'other', 'server.lock'))).to.equal(false);
      expect((await fetch(`${first.url}/healthz`)).status).to.equal(200);
    } finally {
      await first.stop();
    }
  });
});
