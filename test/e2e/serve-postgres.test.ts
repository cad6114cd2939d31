import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startServe, type RunningServer } from '../helpers/cli';
import { send } from '../helpers/app';
import { FIXTURES } from '../helpers/fixtures';
import { sharedPostgres } from '../helpers/postgres';

/*
 * `tars serve` on PostgreSQL (issue 32, design step 7), the real program: TARS_DATABASE_URL set, it migrates the
 * database, loads a fixture with its ids, serves the API; the URL's password never reaches the output.
 */
describe('tars serve on PostgreSQL (e2e, the real program; needs the test cluster)', function () {
  this.timeout(120_000);
  let dir: string;
  let server: RunningServer | undefined;
  let url: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-serve-pg-'));
    const cluster = await sharedPostgres();
    // The cluster trusts its local connections: a password in the URL is accepted and never checked, which is enough
    // to see that it is never printed.
    url = (await cluster.createDatabase()).replace('postgres://tars@', 'postgres://tars:hush-pg-secret@');
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const login = async (email: string, password: string): Promise<string> => {
    const res = await send(server!.url, 'POST', '/v2/authentication/', { body: { email, password } });
    expect(res.status, res.text).to.equal(201);
    return res.body.accessToken as string;
  };

  it('when serve starts with a fixture on an empty database, then the fixture is served, new rows take ids after its ids, and the password is never printed', async () => {
    server = await startServe(['--data-dir', dir, '--seed', join(FIXTURES, 'acme.json')], { env: { TARS_DATABASE_URL: url } });
    const token = await login('root@tars.local', 'platform-admin-pass');
    const tenants = await send(server.url, 'GET', '/v2/admin/tenants', { token, query: { paginated: 0 } });
    expect(tenants.status).to.equal(200);
    expect((tenants.body.records as { id: number }[]).map((t) => t.id)).to.deep.equal([1, 2, 3]);
    // The fixture gave ids 1-3 (tenants) and 1-3 (webhooks): the database's own numbering continues after them.
    const tenant = await send(server.url, 'POST', '/v2/admin/tenants', { token, body: { name: 'After The Fixture' } });
    expect(tenant.status, tenant.text).to.equal(201);
    expect(tenant.body.id).to.equal(4);
    const hook = await send(server.url, 'POST', '/v2/webhooks', {
      token,
      body: { tenantId: 1, type: 'ENDCALL', url: 'https://hooks.example.test/after' },
    });
    expect(hook.status, hook.text).to.equal(201);
    expect(hook.body.id).to.equal(4);
    expect(server.output()).to.include('postgres://tars:***@');
    expect(server.output()).not.to.include('hush-pg-secret');
    expect(await server.stop()).to.equal(0);
    server = undefined;
  });

  it('when serve starts on a new database without a fixture, then it creates the first administrator, who signs in; a restart finds the same data', async () => {
    const env = { TARS_DATABASE_URL: url, TARS_ADMIN_EMAIL: 'ops@example.test', TARS_ADMIN_PASSWORD: 'ops-admin-pass-1' };
    server = await startServe(['--data-dir', dir], { env });
    const token = await login('ops@example.test', 'ops-admin-pass-1');
    const made = await send(server.url, 'POST', '/v2/admin/tenants', { token, body: { name: 'Kept Across Restarts' } });
    expect(made.status, made.text).to.equal(201);
    expect(await server.stop()).to.equal(0);
    server = await startServe(['--data-dir', dir], { env });
    const again = await login('ops@example.test', 'ops-admin-pass-1');
    const listed = await send(server.url, 'GET', '/v2/admin/tenants', { token: again, query: { paginated: 0 } });
    expect((listed.body.records as { name: string }[]).map((t) => t.name)).to.include('Kept Across Restarts');
    expect(server.output()).not.to.include('created the first platform administrator');
  });
});
