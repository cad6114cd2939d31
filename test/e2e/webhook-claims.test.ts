import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { openDatabase, transaction, type Db } from '../../src/db/database';
import { openPostgres } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import { enqueueEvent } from '../../src/modules/webhooks/outbox.repository';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { sharedPostgres } from '../helpers/postgres';
import { buildWebhook } from '../helpers/records';

/*
 * Webhook deliveries with several dispatchers on one database (issue 32; docs/design/postgresql.md §5.2): each
 * dispatcher is a process of its own with its own connection (test/helpers/dispatcher-instance.ts), as separate
 * `tars serve` instances on PostgreSQL, or a server and a CLI on one SQLite file, would be. 100 deliveries to 10
 * webhooks of a real HTTP receiver; one dispatcher is killed (SIGKILL) while its requests hang, its claims left
 * in the database; two others deliver everything else at once but leave its deliveries alone while its leases
 * last, and deliver them once those ran out (two more dispatchers whose clocks are past the leases: the test
 * does not sleep through them). Every delivery arrives; none twice but the killed one's, which arrive again with
 * the same webhook-id; each webhook receives its deliveries in order.
 */

const INSTANCE = resolve(import.meta.dirname, '../helpers/dispatcher-instance.ts');
const TIMEOUT_MS = 5000; // the lease is three of them: 15 s
const PAST_THE_LEASE_MS = 16_000;
const HOOKS = 10;
const PER_HOOK = 10;

async function until(what: string, done: () => Promise<boolean> | boolean, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts a dispatcher process on `target` (URL or SQLite file); resolves once its connection is open. */
async function instance(target: string, clockOffsetMs = 0): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', INSTANCE, target, String(TIMEOUT_MS), String(clockOffsetMs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  await until(`a dispatcher process to start (${out})`, () => out.includes('ready') || child.exitCode !== null, 60_000);
  if (!out.includes('ready')) throw new Error(`the dispatcher process failed: ${out}`);
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

const deliveries = (db: Db) =>
  db.selectFrom('webhook_deliveries').select(['id', 'webhook_id', 'message_id', 'status', 'attempts']).orderBy('id').execute();

describe('webhook deliveries claimed by several dispatchers on one database, one of them killed mid-delivery', function () {
  this.timeout(300_000);
  let dir: string;
  let receiver: HttpReceiver;
  const children: ChildProcess[] = [];
  const closing: { close(): Promise<void> }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-webhook-claims-'));
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const child of children.splice(0)) await stop(child, 'SIGKILL');
    for (const handle of closing.splice(0)) await handle.close();
  });
  after(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function scenario(db: Db, target: string): Promise<void> {
    receiver.requests.splice(0);
    const tenants: number[] = [];
    for (let t = 0; t < HOOKS; t++) {
      const { id } = await db
        .insertInto('tenants')
        .values({ name: `T${t}`, partner_id: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      await buildWebhook(db, id, { type: 'ENDCALL', url: `${receiver.url}/hook/${t}` });
      tenants.push(id);
    }
    // Interleaved: the first delivery of each webhook first, so the ten heads are the ten lowest ids.
    await transaction(db, async (trx) => {
      for (let n = 0; n < PER_HOOK; n++)
        for (const tenantId of tenants)
          await enqueueEvent(trx, { tenantId, type: 'ENDCALL', occurredAt: new Date().toISOString(), data: { n } }, Date.now());
    });
    const all = await deliveries(db);
    expect(all).to.have.length(HOOKS * PER_HOOK);
    const byHook = new Map<number, string[]>();
    for (const d of all) byHook.set(d.webhook_id, [...(byHook.get(d.webhook_id) ?? []), d.message_id]);

    // 1. X takes 8 heads (its CONCURRENCY), sends them, the receiver never answers; X is killed mid-delivery.
    receiver.respond = () => 'hang';
    const x = await instance(target);
    children.push(x);
    await until('X to send its first deliveries', () => receiver.requests.length >= 8);
    await stop(x, 'SIGKILL');
    const hung = receiver.requests.splice(0).map((r) => String(r.headers['webhook-id']));
    const left = (await deliveries(db)).filter((d) => d.status === 'delivering');
    expect(hung, 'X sent its 8 claims').to.have.length(8);
    expect(left.map((d) => d.message_id).sort(), "X's claims are left, delivering").to.deep.equal([...hung].sort());
    expect(left.map((d) => d.id)).to.deep.equal(all.slice(0, 8).map((d) => d.id));

    // 2. A and B, at the same time: everything of the two other webhooks; X's deliveries wait for its leases.
    receiver.respond = () => 200;
    const [a, b] = await Promise.all([instance(target), instance(target)]);
    children.push(a as ChildProcess, b as ChildProcess);
    const delivered = async () => (await deliveries(db)).filter((d) => d.status === 'delivered').length;
    await until('A and B to deliver the other webhooks', async () => (await delivered()) === 2 * PER_HOOK);
    for (const child of [a, b]) await stop(child as ChildProcess, 'SIGTERM');
    const stillLeft = (await deliveries(db)).filter((d) => d.status === 'delivering');
    expect(stillLeft, "X's leases hold").to.deep.equal(left);
    expect(
      receiver.requests.filter((r) => hung.includes(String(r.headers['webhook-id']))),
      'nothing of X sent again yet',
    ).to.deep.equal([]);

    // 3. C and D, whose clocks are past X's leases: X's deliveries and everything after them.
    const [c, d] = await Promise.all([instance(target, PAST_THE_LEASE_MS), instance(target, PAST_THE_LEASE_MS)]);
    children.push(c as ChildProcess, d as ChildProcess);
    await until('every delivery delivered', async () => (await delivered()) === HOOKS * PER_HOOK);
    for (const child of [c, d]) await stop(child as ChildProcess, 'SIGTERM');

    // Each delivery arrived at least once after X's death, X's 8 again with their webhook-ids, every body's id its
    // webhook-id. A delivery whose lease ran out while its claimer was still sending (a machine too busy for 15 s)
    // is sent again by another, with the same webhook-id: the at-least-once, so repeats are allowed here
    // and counted in the message; none may carry an id of its own.
    const ids = receiver.requests.map((r) => String(r.headers['webhook-id']));
    expect([...new Set(ids)].sort(), `every delivery, with its own webhook-id (${ids.length - new Set(ids).size} repeats)`).to.deep.equal(
      all.map((d) => d.message_id).sort(),
    );
    for (const r of receiver.requests) expect((JSON.parse(r.body) as { id: string }).id).to.equal(r.headers['webhook-id']);
    // Each webhook received its deliveries in the order they were written (by first arrival).
    for (const [t, hookId] of [...byHook.keys()].entries()) {
      const got = receiver.requests.filter((r) => r.path === `/hook/${t}`).map((r) => String(r.headers['webhook-id']));
      expect([...new Set(got)], `webhook ${t}`).to.deep.equal(byHook.get(hookId));
    }
    // X's attempt was never recorded (it died): its deliveries were attempted again; every attempt recorded is a 200.
    const final = await deliveries(db);
    for (const r of final) expect(r.attempts, r.message_id).to.be.at.least(hung.includes(r.message_id) ? 2 : 1);
    expect(final.every((r) => r.status === 'delivered')).to.equal(true);
    const attempts = await db.selectFrom('webhook_attempts').select(['delivery_id', 'attempt', 'status_code']).execute();
    expect(new Set(attempts.map((r) => r.delivery_id)).size).to.equal(HOOKS * PER_HOOK);
    expect(attempts.every((r) => r.status_code === 200)).to.equal(true);
  }

  it("when on PostgreSQL three of four dispatcher instances take the deliveries (SKIP LOCKED), then each arrives, the killed one's again after its lease and any repeat with the same webhook-id", async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const pg = openPostgres(url, { poolSize: 2 });
    closing.push(pg);
    await migrateToLatest(pg);
    await scenario(pg.db, url);
  });

  it("when on SQLite dispatcher processes share one file, then the same: each arrives, the killed one's again after its lease, any repeat with the same webhook-id", async () => {
    const file = join(dir, 'tars.db');
    const sqlite = openDatabase(file);
    closing.push(sqlite);
    await migrateToLatest(sqlite);
    await scenario(sqlite.db, file);
  });
});
