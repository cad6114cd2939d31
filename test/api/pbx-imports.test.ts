import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { followFile, importFile } from '../../src/modules/pbx-logs/file-import';
import { QueueLogImporter } from '../../src/modules/pbx-logs/queue-log-importer';
import { recordImport } from '../../src/modules/pbx-logs/pbx-imports.repository';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { ASTERISK_RUN } from '../helpers/pbx-logs';
import { rawSqlite } from '../helpers/engine';

/*
 * The record of PBX log imports (GET /v2/pbx/imports), "Import again" (POST /v2/pbx/imports/{id}/again) and the
 * configuration sync of TARS_PBX_CONFIG_DIR (GET /v2/pbx/config/plan, POST /v2/pbx/config/apply): docs/console.md.
 */
const QUEUE_LOG = join(ASTERISK_RUN, 'queue_log');
const CONFIG = join(ASTERISK_RUN, 'etc');

/** The recorded run with extension 208 renamed, so that its member name "Heidi Clark" is unknown; a platform admin and a second tenant. */
async function startLab(env: Record<string, string> = {}) {
  const app = await startTestApp({ env, clock: { now: () => Date.parse('2026-11-24T12:00:00Z') } });
  await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(join(ASTERISK_RUN, 'fixture.json')), new Date());
  const db = app.deps.database.db;
  await db.updateTable('extensions').set({ ext_name: 'H. Clark' }).where('id', '=', 8).execute();
  const other = await buildTenant(db, { partnerId: 2 });
  const root = await buildUser(db, 1, ROLE.platform);
  const otherAdmin = await buildUser(db, other.id, ROLE.account);
  return {
    app,
    other,
    admin: await tokenFor(app, { id: 1 }),
    root: await tokenFor(app, root),
    otherAdmin: await tokenFor(app, otherAdmin),
  };
}

/** `tars import queue-log FILE` as the CLI runs it (every tenant, recorded with the file's path). */
async function importAsCli(app: TestApp, path: string): Promise<void> {
  const importer = new QueueLogImporter(rawSqlite(app.deps.database), {
    record: { source: 'file', kind: 'queue_log', path, now: () => app.deps.clock.now() },
  });
  await importFile(importer, path);
}

describe('GET /v2/pbx/imports and POST /v2/pbx/imports/{id}/again', () => {
  it('when a file is imported, then platform admins see its record with the unknown agent and the action that maps it; tenant users do not', async () => {
    const lab = await startLab();
    try {
      await importAsCli(lab.app, QUEUE_LOG);
      const res = await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ total: 1, page: 1, maxPage: 1 });
      const record = res.body.records[0];
      expect(record).to.include({ tenantId: null, source: 'file', kind: 'queue_log', path: QUEUE_LOG, againOf: null });
      expect(record.startedAt).to.equal('2026-11-24T12:00:00.000Z');
      expect(record.summary).to.include({ read: 1099, duplicates: 0 });
      expect(record.summary.unknownAgents).to.deep.equal({ 'Heidi Clark': 92 });
      expect(record.summary.toMap).to.deep.equal([
        {
          kind: 'agent',
          names: ['Heidi Clark'],
          lines: 92,
          command: "tars extension update --tenant 1 --ext <extension number> --add-alias 'Heidi Clark'",
          action: 'add-alias',
          tenantId: 1,
          extension: null,
        },
      ]);
      // The CLI's import names every tenant's queues and agents: a tenant's admin sees none of it.
      const mine = await lab.app.request('GET', '/v2/pbx/imports', { token: lab.admin });
      expect(mine.body).to.deep.equal({ records: [], page: 1, maxPage: 1, total: 0 });
    } finally {
      await lab.app.close();
    }
  });

  it("when a tenant's admin sends lines, then its own tenant's admin sees the import and another tenant's does not, even naming it", async () => {
    const lab = await startLab();
    try {
      const lines = [
        '1793600000|c1|sales|NONE|ENTERQUEUE||+15550001|1',
        '1793600004|c1|sales|Zed Unknown|CONNECT|4|c1.2|3',
        '1793600009|c9|nosuch|NONE|ENTERQUEUE||+1|1',
      ];
      const sent = await lab.app.request('POST', '/v2/reporting/ingest/queue-log', { token: lab.admin, body: { lines } });
      expect(sent.status).to.equal(201);
      const mine = await lab.app.request('GET', '/v2/pbx/imports', { token: lab.admin });
      expect(mine.body.total).to.equal(1);
      expect(mine.body.records[0]).to.deep.include({ tenantId: 1, source: 'ingest', path: null });
      expect(mine.body.records[0].summary).to.deep.include({ unknownAgents: { 'Zed Unknown': 1 }, unknownQueues: { nosuch: 1 } });
      const theirs = await lab.app.request('GET', '/v2/pbx/imports', { token: lab.otherAdmin });
      expect(theirs.body).to.deep.equal({ records: [], page: 1, maxPage: 1, total: 0 });
      expectError(await lab.app.request('GET', '/v2/pbx/imports', { token: lab.otherAdmin, query: { tenantId: 1 } }), 403);
      const all = await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root, query: { tenantId: 1 } });
      expect(all.body.total).to.equal(1);
      // Lines sent over HTTP have no file to read again.
      const again = await lab.app.request('POST', `/v2/pbx/imports/${mine.body.records[0].id}/again`, { token: lab.root });
      expectError(again, 409);
      expect(again.body.message).to.match(/sent over HTTP/);
    } finally {
      await lab.app.close();
    }
  });

  it('when the unknown agent is mapped by an alias and the file imported again, then the new record shows its kept lines counted, and the agents report counts them', async () => {
    const lab = await startLab();
    try {
      await importAsCli(lab.app, QUEUE_LOG);
      const first = (await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root })).body.records[0];
      const report = () =>
        lab.app.request('POST', '/v2/reporting/queues/agents', {
          token: lab.admin,
          body: { queueId: [1, 2, 3], startDate: '2026-11-23', endDate: '2026-11-23' },
        });
      /** Extension 208's answered calls across the queues (its logins, by interface, counted before too). */
      const answeredBy208 = async () =>
        ((await report()).body.results as { extId: number; queueId: number | null; answered: number }[])
          .filter((r) => r.extId === 8 && r.queueId === null)
          .reduce((n, r) => n + r.answered, 0);
      expect(await answeredBy208(), 'before the alias: no call of "Heidi Clark" counts for extension 208').to.equal(0);
      const patched = await lab.app.request('PATCH', '/v2/extensions/8', { token: lab.admin, body: { agentAliases: ['Heidi Clark'] } });
      expect(patched.status).to.equal(200);

      expectError(await lab.app.request('POST', `/v2/pbx/imports/${first.id}/again`, { token: lab.admin }), 403);
      expectError(await lab.app.request('POST', '/v2/pbx/imports/987654/again', { token: lab.root }), 404);
      const again = await lab.app.request('POST', `/v2/pbx/imports/${first.id}/again`, { token: lab.root });
      expect(again.status).to.equal(201);
      expect(again.body).to.include({ source: 'again', againOf: first.id, path: QUEUE_LOG, tenantId: null });
      expect(again.body.summary).to.include({ read: 1099, imported: 0, duplicates: first.summary.imported });
      expect(again.body.summary.unknownAgents).to.deep.equal({});
      expect(again.body.nowMapped).to.deep.equal({ 'Heidi Clark': 92 });
      expect(await answeredBy208(), "Heidi Clark's calls count for extension 208 now").to.be.greaterThan(0);
      const list = await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root });
      expect(list.body.records.map((r: { id: number; againOf: number | null }) => [r.id, r.againOf])).to.deep.equal([
        [again.body.id, first.id],
        [first.id, null],
      ]);
      expect(list.body.records[0].nowMapped).to.deep.equal({ 'Heidi Clark': 92 });
    } finally {
      await lab.app.close();
    }
  });
});

describe('the record of imports: --follow and parallel imports again', () => {
  it("when a tenant's records pass the number kept, then its oldest go and another tenant's stay", async () => {
    const lab = await startLab();
    try {
      const sqlite = rawSqlite(lab.app.deps.database);
      const row = (tenantId: number | null, n: number) => ({
        tenantId,
        source: 'ingest' as const,
        kind: 'queue_log' as const,
        path: null,
        timezone: 'UTC',
        cdrColumns: null,
        againOf: null,
        startedAt: n,
        finishedAt: n,
        summary: '{}',
      });
      recordImport(sqlite, row(lab.other.id, 0), 3);
      for (let n = 1; n <= 5; n++) recordImport(sqlite, row(1, n), 3);
      const kept = sqlite.prepare('SELECT tenant_id AS t, started_at AS n FROM pbx_imports ORDER BY id').all();
      expect(kept).to.deep.equal([
        { t: lab.other.id, n: 0 },
        { t: 1, n: 3 },
        { t: 1, n: 4 },
        { t: 1, n: 5 },
      ]);
    } finally {
      await lab.app.close();
    }
  });

  it('when the recorded file is gone, then importing it again is a 409 and records nothing', async () => {
    const lab = await startLab();
    const dir = mkdtempSync(join(tmpdir(), 'tars-gone-'));
    try {
      const file = join(dir, 'queue_log');
      cpSync(QUEUE_LOG, file);
      await importAsCli(lab.app, file);
      rmSync(file);
      const first = (await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root })).body.records[0];
      const res = await lab.app.request('POST', `/v2/pbx/imports/${first.id}/again`, { token: lab.root });
      expectError(res, 409);
      expect(res.body.message).to.equal(`${file} cannot be read now (ENOENT)`);
      expect((await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root })).body.total).to.equal(1);
    } finally {
      await lab.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when a file is followed, then its one record is brought up to date after each batch', async () => {
    const lab = await startLab();
    const dir = mkdtempSync(join(tmpdir(), 'tars-follow-'));
    try {
      const file = join(dir, 'queue_log');
      const lines = readFileSync(QUEUE_LOG, 'utf8').split('\n').filter(Boolean);
      writeFileSync(file, `${lines.slice(0, 100).join('\n')}\n`);
      const stop = new AbortController();
      const importer = new QueueLogImporter(rawSqlite(lab.app.deps.database), {
        record: { source: 'follow', kind: 'queue_log', path: file, now: () => lab.app.deps.clock.now() },
      });
      let caughtUp!: () => void;
      const first = new Promise<void>((r) => (caughtUp = r));
      const following = followFile(importer, file, stop.signal, { pollMs: 20, onCaughtUp: () => caughtUp() });
      await first;
      const records = async () => (await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root })).body.records;
      expect((await records()).map((r: { summary: { read: number } }) => r.summary.read)).to.deep.equal([100]);
      appendFileSync(file, `${lines.slice(100, 250).join('\n')}\n`);
      for (let i = 0; i < 500 && (await records())[0].summary.read < 250; i++) await new Promise((r) => setTimeout(r, 20));
      stop.abort();
      await following;
      const after = await records();
      expect(after.map((r: { source: string; summary: { read: number } }) => [r.source, r.summary.read])).to.deep.equal([['follow', 250]]);
    } finally {
      await lab.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when three requests import the same file again at once, then each gets 201 or 409 and each 201 wrote exactly one record', async () => {
    const lab = await startLab();
    try {
      await importAsCli(lab.app, QUEUE_LOG);
      const first = (await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root })).body.records[0];
      const answers = await Promise.all(
        [1, 2, 3].map(() => lab.app.request('POST', `/v2/pbx/imports/${first.id}/again`, { token: lab.root })),
      );
      const made = answers.filter((a) => a.status === 201);
      expect(answers.every((a) => a.status === 201 || a.status === 409)).to.equal(true);
      expect(made.length).to.be.greaterThan(0);
      for (const a of made) expect(a.body.summary).to.include({ imported: 0, duplicates: first.summary.imported });
      const list = await lab.app.request('GET', '/v2/pbx/imports', { token: lab.root });
      expect(list.body.total).to.equal(1 + made.length);
    } finally {
      await lab.app.close();
    }
  });
});

describe('GET /v2/pbx/config/plan and POST /v2/pbx/config/apply', () => {
  const copyConfig = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-pbx-config-'));
    cpSync(CONFIG, dir, { recursive: true });
    return dir;
  };

  it('when no directory is set, then the plan says how to set it and applying is refused with 409', async () => {
    const lab = await startLab();
    try {
      const plan = await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 1 } });
      expect(plan.status).to.equal(200);
      expect(plan.body).to.include({ configured: false, configDir: null, planHash: null });
      expect(plan.body.how).to.match(/TARS_PBX_CONFIG_DIR/);
      const apply = await lab.app.request('POST', '/v2/pbx/config/apply', {
        token: lab.root,
        body: { tenantId: 1, planHash: 'a'.repeat(64) },
      });
      expectError(apply, 409);
    } finally {
      await lab.app.close();
    }
  });

  it('when the plan is applied with its hash, then the directory has what it planned and a new plan is empty; tenant admins get 403', async () => {
    const dir = copyConfig();
    const lab = await startLab({ TARS_PBX_CONFIG_DIR: dir });
    try {
      expectError(await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.admin, query: { tenantId: 1 } }), 403);
      const plan = await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 1 } });
      expect(plan.status).to.equal(200);
      expect(plan.body).to.include({ configured: true, configDir: dir, applied: false });
      expect(plan.body.planHash).to.match(/^[0-9a-f]{64}$/);
      const planned = [...plan.body.extensions, ...plan.body.queues].length;
      expect(planned, 'the lab configuration differs from the renamed directory').to.be.greaterThan(0);
      const extensionsBefore = await lab.app.request('GET', '/v2/extensions', { token: lab.root, query: { tenantId: 1, paginated: 0 } });

      expectError(
        await lab.app.request('POST', '/v2/pbx/config/apply', { token: lab.admin, body: { tenantId: 1, planHash: plan.body.planHash } }),
        403,
      );
      const wrong = await lab.app.request('POST', '/v2/pbx/config/apply', {
        token: lab.root,
        body: { tenantId: 1, planHash: 'b'.repeat(64) },
      });
      expectError(wrong, 409);
      const unchanged = await lab.app.request('GET', '/v2/extensions', { token: lab.root, query: { tenantId: 1, paginated: 0 } });
      expect(unchanged.body).to.deep.equal(extensionsBefore.body);

      const applied = await lab.app.request('POST', '/v2/pbx/config/apply', {
        token: lab.root,
        body: { tenantId: 1, planHash: plan.body.planHash },
      });
      expect(applied.status).to.equal(200);
      expect(applied.body).to.include({ applied: true });
      expect(applied.body.extensions).to.deep.equal(plan.body.extensions);
      const after = await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 1 } });
      expect(after.body.extensions).to.deep.equal([]);
      expect(after.body.queues).to.deep.equal([]);
    } finally {
      await lab.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the configuration changes after the plan was shown, then applying that plan is refused with 409 and nothing is written', async () => {
    const dir = copyConfig();
    const lab = await startLab({ TARS_PBX_CONFIG_DIR: dir });
    try {
      const plan = await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 1 } });
      appendFileSync(join(dir, 'queues.conf'), '\n[overflow]\nstrategy = ringall\nmember => Local/201@agents/n,0,Alice Smith\n');
      const queuesBefore = await lab.app.deps.database.db.selectFrom('queues').select('log_name').execute();
      const res = await lab.app.request('POST', '/v2/pbx/config/apply', {
        token: lab.root,
        body: { tenantId: 1, planHash: plan.body.planHash },
      });
      expectError(res, 409);
      expect(res.body.message).to.match(/changed since this plan was shown/);
      expect(await lab.app.deps.database.db.selectFrom('queues').select('log_name').execute()).to.deep.equal(queuesBefore);
      const next = await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 1 } });
      expect(next.body.queues.map((q: { logName: string }) => q.logName)).to.include('overflow');
      expect(next.body.planHash).to.not.equal(plan.body.planHash);
    } finally {
      await lab.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the directory set cannot be read, then the plan and the apply answer 409 naming the problem, and nothing is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tars-pbx-config-'));
    const lab = await startLab({ TARS_PBX_CONFIG_DIR: dir });
    try {
      const plan = await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 1 } });
      expectError(plan, 409);
      expect(plan.body.message).to.include('queues.conf');
      const before = await lab.app.request('GET', '/v2/extensions', { token: lab.root, query: { tenantId: 1, paginated: 0 } });
      expectError(
        await lab.app.request('POST', '/v2/pbx/config/apply', { token: lab.root, body: { tenantId: 1, planHash: 'd'.repeat(64) } }),
        409,
      );
      const after = await lab.app.request('GET', '/v2/extensions', { token: lab.root, query: { tenantId: 1, paginated: 0 } });
      expect(after.body).to.deep.equal(before.body);
    } finally {
      await lab.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the same plan is applied twice at once, then one applies it and the other gets 409', async () => {
    const dir = copyConfig();
    const lab = await startLab({ TARS_PBX_CONFIG_DIR: dir });
    try {
      const plan = await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 1 } });
      const body = { tenantId: 1, planHash: plan.body.planHash };
      const answers = await Promise.all([1, 2].map(() => lab.app.request('POST', '/v2/pbx/config/apply', { token: lab.root, body })));
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409]);
    } finally {
      await lab.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("when a platform admin names a tenant that does not exist, then 404; another tenant's admin naming tenant 1 gets 403", async () => {
    const dir = copyConfig();
    const lab = await startLab({ TARS_PBX_CONFIG_DIR: dir });
    try {
      expectError(await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 987654 } }), 404);
      expectError(await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.otherAdmin, query: { tenantId: 1 } }), 403);
      expectError(
        await lab.app.request('POST', '/v2/pbx/config/apply', { token: lab.otherAdmin, body: { tenantId: 1, planHash: 'c'.repeat(64) } }),
        403,
      );
      expectError(await lab.app.request('GET', '/v2/pbx/config/plan', { token: lab.root, query: { tenantId: 'x' } }), 400);
    } finally {
      await lab.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
