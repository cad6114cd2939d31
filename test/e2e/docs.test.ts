import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { send } from '../helpers/app';
import { startServe, type RunningServer } from '../helpers/cli';

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

describe('GET /docs from the program (e2e, real process; the executable carries the files as SEA assets)', function () {
  this.timeout(60_000);
  let dir: string;
  let server: RunningServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-docs-'));
    server = await startServe(['--data-dir', dir]);
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the page is fetched, then it is HTML under a same-origin CSP and names only files the server serves itself', async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.include("default-src 'none'").and.include("connect-src 'self'");
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs).to.deep.equal(['data:,', '/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/tars-docs.js']);
  });

  it('when each file of the page is fetched, then it is the file of swagger-ui-dist, byte for byte, with its type', async () => {
    for (const [name, type] of [
      ['swagger-ui.css', 'text/css'],
      ['swagger-ui-bundle.js', 'text/javascript'],
    ]) {
      const res = await fetch(`${server.url}/docs/assets/${name}`);
      expect(res.status, name).to.equal(200);
      expect(res.headers.get('content-type')).to.include(type as string);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(swaggerDir, name as string))), name).to.equal(true);
    }
    const init = await fetch(`${server.url}/docs/assets/tars-docs.js`);
    expect(await init.text())
      .to.include("url: '/v2/openapi.json'")
      .and.include('validatorUrl: null');
    const unknown = await send(server.url, 'GET', '/docs/assets/package.json');
    expect(unknown.status).to.equal(404);
  });
});
