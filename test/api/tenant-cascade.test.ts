import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { census, fillEveryKind, ownerClause, tables } from '../helpers/every-kind';
import { buildUser, ROLE, tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { rawSqlite } from '../helpers/engine';

// Deleting a tenant or a queue is the database's work (issue 32, db/migrations/2026-11-27T1400_cascade_deletes.ts).
// acme.json's tenant 1 has the sample logs imported (lines, report rows, CDRs); each tenant also gets a record of every
// kind (test/helpers/every-kind.ts). Tables are enumerated from the schema, so a table added later is checked too.
describe('deleting a tenant or a queue (issue 32): the database deletes what they own', () => {
  let app: TestApp;
  let root: string;
  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-11-22T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    const s = rawSqlite(app.deps.database);
    for (const tenant of [1, 2, 3]) fillEveryKind(s, tenant);
    root = await tokenFor(app, await buildUser(app.deps.database.db, 3, ROLE.platform)); // tenant 1 is not its own
  });
  after(() => app.close());

  it('when a tenant with every kind of record is deleted with cascade=1, then nothing of it is left and the other tenants keep every row', async () => {
    const s = rawSqlite(app.deps.database);
    const before = census(s, [1, 2, 3]);
    const owned = Object.keys(before).filter((t) => ownerClause(s, t) !== undefined);
    // Every table a tenant owns rows of has rows of the doomed tenant and of the others: the test covers each kind.
    for (const table of owned) expect(before[table]!.of.slice(0, 2), table).to.satisfy((n: number[]) => n.every((x) => x > 0));
    expect(before.queue_events!.of[0]).to.be.greaterThan(100); // the import's lines, not only the hand-made ones
    const doomedQueues = s.prepare('SELECT id FROM queues WHERE tenant_id = 1').pluck().all() as number[];

    expectError(await app.request('DELETE', '/v2/admin/tenants/1', { token: root }), 409);
    expect(census(s, [1, 2, 3])).to.deep.equal(before); // the refusal changed nothing
    const gone = await app.request('DELETE', '/v2/admin/tenants/1?cascade=1', { token: root });
    expect(gone.status).to.equal(200);

    const after = census(s, [1, 2, 3]);
    for (const table of tables(s)) {
      const columns = (s.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
      if (columns.includes('tenant_id'))
        expect(s.prepare(`SELECT count(*) FROM "${table}" WHERE tenant_id = 1`).pluck().get(), table).to.equal(0);
      if (columns.includes('queue_id')) {
        const left = s.prepare(`SELECT count(*) FROM "${table}" WHERE queue_id IN (SELECT value FROM json_each(?))`).pluck();
        expect(left.get(JSON.stringify(doomedQueues)), table).to.equal(0);
      }
      // The tenant's rows (through the foreign keys of the children) went and no other row did.
      expect(after[table]!.all, table).to.equal(before[table]!.all - (before[table]!.of[0] ?? 0));
      expect(after[table]!.of.slice(1), table).to.deep.equal(before[table]!.of.slice(1));
    }
    expect(s.pragma('foreign_key_check')).to.deep.equal([]);
    expectError(await app.request('GET', '/v2/admin/tenants/1', { token: root }), 404);
  });

  it("when a queue is deleted with cascade=1, then its lines, report rows and sent events go, its CDR rows stay without it, and other queues' rows stay", async () => {
    const s = rawSqlite(app.deps.database);
    const queue = fillEveryKind(s, 2).queue;
    const byQueue = (q: number) =>
      Object.fromEntries(
        tables(s)
          .filter((t) => (s.prepare(`PRAGMA table_info("${t}")`).all() as { name: string }[]).some((c) => c.name === 'queue_id'))
          .map((t) => [t, Number(s.prepare(`SELECT count(*) FROM "${t}" WHERE queue_id = ?`).pluck().get(q))]),
      );
    const others = s.prepare('SELECT id FROM queues WHERE id != ? ORDER BY id').pluck().all(queue) as number[];
    const othersBefore = others.map(byQueue);
    const calls = s.prepare('SELECT count(*) FROM cdr_calls').pluck();
    const callsBefore = calls.get();
    expect(Object.values(byQueue(queue))).to.satisfy((n: number[]) => n.every((x) => x > 0));

    const admin = await tokenFor(app, await buildUser(app.deps.database.db, 2, ROLE.account));
    expectError(await app.request('DELETE', `/v2/queues/${queue}`, { token: admin }), 409); // it has stored lines
    expect((await app.request('DELETE', `/v2/queues/${queue}?cascade=1`, { token: admin })).status).to.equal(200);

    expect(Object.values(byQueue(queue))).to.satisfy((n: number[]) => n.every((x) => x === 0));
    expect(calls.get()).to.equal(callsBefore); // nulled, not deleted
    expect(s.prepare("SELECT count(*) FROM cdr_calls WHERE unique_id LIKE 'u-%' AND queue_id IS NULL").pluck().get()).to.equal(1);
    expect(others.map(byQueue)).to.deep.equal(othersBefore);
  });

  it('when a branch still used by users, extensions, queues or phone numbers is deleted, then 409 and nothing changes', async () => {
    const s = rawSqlite(app.deps.database);
    const { branch } = fillEveryKind(s, 3);
    const before = census(s, [2, 3]);
    const res = await app.request('DELETE', `/v2/admin/branches/${branch}`, { token: root });
    expectError(res, 409);
    expect(res.body.message).to.equal(
      `Branch ${branch} still has 1 user, 1 phone number, 1 extension, 1 queue: move them to another branch first`,
    );
    expect(census(s, [2, 3])).to.deep.equal(before);
    // The database refuses too (its branch_id references stay NO ACTION): no path can unlink or delete them silently.
    expect(() => s.prepare('DELETE FROM branches WHERE id = ?').run(branch)).to.throw(/FOREIGN KEY constraint failed/);
  });
});
