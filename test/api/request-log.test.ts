import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../src/log';
import { startTestApp } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

describe('the request log line', () => {
  it('when a request is answered, then one line names it, and a line of any other kind is still redacted', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const app = await startTestApp({ log: createLogger('info', sink) });
    try {
      const db = app.deps.database.db;
      const user = await buildUser(db, (await buildTenant(db)).id, ROLE.account);
      const res = await app.request('GET', '/v2/webhooks/list-types', {
        token: await tokenFor(app, user),
        headers: { 'x-request-id': 'speed-1' },
      });
      expect(res.status).to.equal(200);
      app.deps.log.info({ user: { password: 'hunter2' }, accessToken: 'abc' }, 'other');
      const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const request = entries.filter((e) => e.msg === 'request');
      expect(
        request.map(({ reqId, method, path, status, userId, service }) => ({ reqId, method, path, status, userId, service })),
      ).to.deep.equal([
        { reqId: 'speed-1', method: 'GET', path: '/v2/webhooks/list-types', status: 200, userId: user.id, service: 'tars' },
      ]);
      expect(request[0]?.durationMs).to.be.a('number');
      // Its time is the ISO instant it was written (formatted once per millisecond, shared by the lines of that ms).
      const before = Date.now();
      app.deps.log.info('first');
      app.deps.log.info('second');
      const times = lines.slice(-2).map((l) => (JSON.parse(l) as { time: string }).time);
      expect(times[0]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(times[1] as string)).to.be.within(before, Date.now());
      expect(Date.parse(times[0] as string)).to.be.at.most(Date.parse(times[1] as string));
      expect(entries.find((e) => e.msg === 'other')).to.deep.include({ user: { password: '[redacted]' }, accessToken: '[redacted]' });
    } finally {
      await app.close();
    }
  });

  it('when the server writes a burst of lines to its standard output and exits at once, then every line arrives whole and in order', () => {
    // The output tars serve logs through (serverLogOutput: asynchronous, lines queued as bytes), in a child
    // process that writes 20,000 lines (some with text of several bytes per character) and exits right away.
    const script = `
      import { createLogger, serverLogOutput } from ${JSON.stringify(join(import.meta.dirname, '../../src/log.ts'))};
      const log = createLogger('info', serverLogOutput());
      for (let i = 0; i < 20000; i++) log.info({ i, name: i % 3 === 0 ? 'Zoë Ångström 東京 ☎' : 'plain' }, 'line');
      process.exit(0);`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    expect(out.status, out.stderr).to.equal(0);
    const lines = out.stdout.split('\n');
    expect(lines.pop()).to.equal(''); // ends with a whole line
    const entries = lines.map((l) => JSON.parse(l) as { i: number; name: string; msg: string });
    expect(entries.map((e) => e.i)).to.deep.equal(Array.from({ length: 20000 }, (_, i) => i));
    expect(entries.filter((e) => e.name === 'Zoë Ångström 東京 ☎')).to.have.length(6667);
    expect(entries.every((e) => e.msg === 'line')).to.equal(true);
  });
});
