import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { send } from '../helpers/app';
import { ACME } from '../helpers/fixtures';
import { runTars, startServe } from '../helpers/cli';

const login = (url: string, email: string, password: string) => send(url, 'POST', '/v2/authentication/', { body: { email, password } });

describe('the tars command line (e2e, real processes)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-e2e-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when asked for help, then every command is listed; each command has its own --help', async () => {
    const top = await runTars(['--help']);
    expect(top.code).to.equal(0);
    for (const c of ['serve', 'seed', 'migrate', 'user add']) expect(top.stdout).to.include(c);
    const serve = await runTars(['serve', '--help']);
    expect(serve.code).to.equal(0);
    expect(serve.stdout).to.include('--data-dir');
  });

  it('when the command is unknown or an option is wrong, then exit code 2', async () => {
    expect((await runTars(['frobnicate'])).code).to.equal(2);
    expect((await runTars(['serve', '--colour', 'red'])).code).to.equal(2);
  });

  it('when the configuration has several problems, then all are reported at once with exit code 2', async () => {
    const res = await runTars(['serve', '--data-dir', dir], {
      env: { TARS_PORT: 'eighty', TARS_LOG_LEVEL: 'loud', TARS_TOKEN_TTL: 'never' },
    });
    expect(res.code).to.equal(2);
    for (const name of ['TARS_PORT', 'TARS_LOG_LEVEL', 'TARS_TOKEN_TTL']) expect(res.stderr).to.include(name);
  });

  it('when serve starts on an empty directory, then it creates the database and the first admin, logs in, and stops cleanly on SIGTERM', async () => {
    const data = join(dir, 'data');
    const server = await startServe(['--data-dir', data], {
      env: { TARS_ADMIN_EMAIL: 'boss@example.test', TARS_ADMIN_PASSWORD: 'first-admin-pass' },
    });
    try {
      expect((await send(server.url, 'GET', '/healthz')).body).to.deep.equal({ status: 'ok' });
      const res = await login(server.url, 'boss@example.test', 'first-admin-pass');
      expect(res.status).to.equal(201);
      expect(res.body.user.userRole).to.equal(1);
      expect(statSync(join(data, 'jwt-secret')).mode & 0o777).to.equal(0o600);
      expect(statSync(data).mode & 0o777).to.equal(0o700);
      expect(server.output(), 'the password is never logged').not.to.include('first-admin-pass');
    } finally {
      expect(await server.stop()).to.equal(0);
    }
  });

  it('when no admin password is configured, then a generated one is printed once and works', async () => {
    const data = join(dir, 'data');
    const first = await startServe(['--data-dir', data]);
    let password: string;
    try {
      password = /Generated password[^:]*: (\S+)/.exec(first.output())?.[1] ?? '';
      expect(password).to.have.length.greaterThan(15);
      expect((await login(first.url, 'admin@tars.local', password)).status).to.equal(201);
    } finally {
      await first.stop();
    }
    const second = await startServe(['--data-dir', data]);
    try {
      expect(second.output()).not.to.include('Generated password');
      expect((await login(second.url, 'admin@tars.local', password)).status, 'the same password after a restart').to.equal(201);
    } finally {
      await second.stop();
    }
  });

  it('when serve --seed names acme.json, then its users can log in; a restart does not load it again', async () => {
    const data = join(dir, 'data');
    const server = await startServe(['--data-dir', data, '--seed', ACME]);
    try {
      expect((await login(server.url, 'admin@acme.example', 'acme-admin-pass')).status).to.equal(201);
    } finally {
      await server.stop();
    }
    const again = await startServe(['--data-dir', data, '--seed', ACME]);
    try {
      expect(again.output()).to.include('was not loaded again');
    } finally {
      await again.stop();
    }
  });

  it('when seed gets a broken file, then it lists the problems and exits 1; a good file then loads', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tenants: [{ id: 1, name: 'T' }], branches: [{ id: 1, tenantId: 2, name: 'Xy' }] }));
    const data = join(dir, 'data');
    const res = await runTars(['seed', bad, '--data-dir', data]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.include('branches[0].name');
    expect(res.stderr).to.include('nothing was written');
    const ok = await runTars(['seed', ACME, '--data-dir', data]);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).to.include('3 tenants');
  });

  it('when user add creates a user, then it can log in with the printed password; user password changes it', async () => {
    const data = join(dir, 'data');
    expect((await runTars(['seed', ACME, '--data-dir', data])).code).to.equal(0);
    const add = await runTars([
      'user',
      'add',
      '--email',
      'new@acme.example',
      '--tenant',
      '1',
      '--role',
      'REPORTS_ADMIN',
      '--data-dir',
      data,
    ]);
    expect(add.code, add.stderr).to.equal(0);
    const password = /generated password \(shown once\): (\S+)/.exec(add.stdout)?.[1] as string;
    expect(
      (await runTars(['user', 'add', '--email', 'new@acme.example', '--tenant', '1', '--role', '9', '--data-dir', data])).code,
      'a duplicate e-mail fails',
    ).to.equal(1);
    const control = await runTars([
      'user',
      'add',
      '--email',
      'x\u001b[2J@acme.example',
      '--tenant',
      '1',
      '--role',
      '9',
      '--data-dir',
      data,
    ]);
    expect([control.code, control.stderr.trim()], 'an e-mail with a control character fails as the API refuses it').to.deep.equal([
      2,
      'tars user add: --email must be an e-mail address',
    ]);
    const foreign = await runTars([
      'user',
      'add',
      '--email',
      'b@acme.example',
      '--tenant',
      '1',
      '--role',
      '9',
      '--branch',
      '3',
      '--data-dir',
      data,
    ]);
    expect([foreign.code, foreign.stderr.trim()], "another tenant's branch fails").to.deep.equal([
      1,
      'tars user add: tenant 1 has no branch with id 3',
    ]);
    const server = await startServe(['--data-dir', data]);
    try {
      const res = await login(server.url, 'new@acme.example', password);
      expect(res.body.user.userRole).to.equal(9);
      const change = await runTars([
        'user',
        'password',
        '--email',
        'new@acme.example',
        '--password',
        'another-password',
        '--data-dir',
        data,
      ]);
      expect(change.code, change.stderr).to.equal(0);
      const probe = await send(server.url, 'GET', '/v2/no-such-route', { token: res.body.accessToken });
      expect(probe.status).to.equal(404);
      expect(
        (await send(server.url, 'POST', '/v2/authentication/jwt', { body: { accessToken: res.body.accessToken } })).status,
        'the old token died',
      ).to.equal(401);
      expect((await login(server.url, 'new@acme.example', 'another-password')).status).to.equal(201);
      expect((await login(server.url, 'new@acme.example', password)).status, 'the old password no longer works').to.equal(401);
      // The operator acts in every tenant: a user of another tenant than the first is changed as well.
      expect(
        (
          await runTars([
            'user',
            'add',
            '--email',
            'third@acme.example',
            '--tenant',
            '3',
            '--role',
            '9',
            '--password',
            'first-password',
            '--data-dir',
            data,
          ])
        ).code,
      ).to.equal(0);
      const third = await runTars([
        'user',
        'password',
        '--email',
        'third@acme.example',
        '--password',
        'third-password',
        '--data-dir',
        data,
      ]);
      expect([third.code, third.stdout]).to.deep.equal([
        0,
        'password of third@acme.example changed; its earlier access tokens no longer work\n',
      ]);
      expect((await login(server.url, 'third@acme.example', 'third-password')).body.user?.tenantId).to.equal(3);
    } finally {
      await server.stop();
    }
  });

  it('when migrate runs twice, then the second run finds the schema up to date', async () => {
    const data = join(dir, 'data');
    const first = await runTars(['migrate', '--data-dir', data]);
    expect(first.code).to.equal(0);
    expect(first.stdout).to.include('applied');
    const second = await runTars(['migrate', '--data-dir', data]);
    expect(second.stdout).to.include('the schema is up to date');
  });
});
