import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../src/access/caller';
import type { Clock } from '../../src/clock';
import { openDatabase, transaction, type Db } from '../../src/db/database';
import { engineOf, openPostgres } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import { amiCallEnded, queueJoined, UTC_ZONE } from '../../src/modules/pbx-logs/pbx-logs.service';
import { claimCall, forgetCalls, raiseEvent } from '../../src/modules/webhooks/events.service';
import { CALL_EVENTS_KEPT_MS, claimCallEvent, enqueueEvent, forgetCallEvents } from '../../src/modules/webhooks/outbox.repository';
import { buildWebhook } from '../helpers/records';
import { sharedPostgres } from '../helpers/postgres';

/*
 * The webhook outbox and the call events on both engines (issue 32, docs/design/postgresql.md step 4): an event is
 * written in the transaction of its change and rolls back with it; the same calls of the outbox's repository and
 * of the services over it (raiseEvent, claimCall, forgetCalls, the live call events queueJoined and amiCallEnded)
 * leave the same rows on a SQLite file and on a PostgreSQL database of the shared test cluster.
 */

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);

/** A Cdr event as AMI's cdr_manager sends it (the fields cdrRecordOfAmi reads). */
const cdr = (uniqueId: string, over: Record<string, string> = {}) => ({
  Event: 'Cdr',
  Source: '+13125550101',
  Destination: '1001',
  CallerID: '"Ann Caller" <+13125550101>',
  Channel: 'PJSIP/trunk-00000001',
  DestinationChannel: 'PJSIP/1001-00000002',
  LastApplication: 'Dial',
  LastData: 'PJSIP/1001',
  StartTime: '2026-11-27 11:58:00',
  AnswerTime: '2026-11-27 11:58:05',
  EndTime: '2026-11-27 11:59:00',
  Duration: '60',
  BillableSeconds: '55',
  Disposition: 'ANSWERED',
  UniqueID: uniqueId,
  ...over,
});

/** Two tenants, each a queue and an extension; tenant 1 two ENDCALL webhooks (one disabled) and STARTCALL and NEWVOICEMAIL ones. */
async function seed(db: Db): Promise<{ a: number; b: number }> {
  const a = (await db.insertInto('tenants').values({ name: 'Acme', partner_id: 0 }).returning('id').executeTakeFirstOrThrow()).id;
  const b = (await db.insertInto('tenants').values({ name: 'Bravo', partner_id: 0 }).returning('id').executeTakeFirstOrThrow()).id;
  await db
    .insertInto('queues')
    .values([
      { tenant_id: a, name: 'Sales', log_name: 'sales', branch_id: null },
      { tenant_id: b, name: 'Support', log_name: 'support', branch_id: null },
    ])
    .execute();
  await db
    .insertInto('extensions')
    .values([
      { tenant_id: a, ext_num: 1001, ext_name: 'Ann', peer_name: 'PJSIP/1001', caller_id_number: '', branch_id: null },
      { tenant_id: b, ext_num: 2001, ext_name: 'Bob', peer_name: 'PJSIP/2001', caller_id_number: '', branch_id: null },
    ])
    .execute();
  for (const type of ['ENDCALL', 'ENDCALL', 'STARTCALL', 'NEWVOICEMAIL'])
    await buildWebhook(db, a, { type, url: `https://hooks.example.test/${type}` });
  await buildWebhook(db, b, { type: 'STARTCALL', url: 'https://hooks.example.test/b' });
  const [, second] = await db.selectFrom('webhooks').select('id').where('type', '=', 'ENDCALL').orderBy('id').execute();
  await db
    .updateTable('webhooks')
    .set({ disabled_at: new Date(T0).toISOString(), disabled_reason: '410' })
    .where('id', '=', second?.id ?? 0)
    .execute();
  return { a, b };
}

/** The outbox and the claimed call events, in an order and a form both engines give alike (the message ids are random). */
async function rows(db: Db) {
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id')
    .select(['webhooks.url', 'webhook_deliveries.event_type', 'webhook_deliveries.payload', 'webhook_deliveries.status'])
    .select(['webhook_deliveries.next_attempt_at', 'webhook_deliveries.created_at', 'webhook_deliveries.attempts'])
    .orderBy('webhook_deliveries.id')
    .execute();
  const claimed = await db
    .selectFrom('call_events_sent')
    .select(['event_type', 'call_id', 'queue_id', 'sent_at'])
    .orderBy('event_type')
    .orderBy('call_id')
    .orderBy('queue_id')
    .execute();
  return {
    deliveries: deliveries.map(({ payload, ...d }) => {
      const { id, ...body } = JSON.parse(payload) as { id: string };
      return { ...d, idShape: /^msg_[A-Za-z0-9_-]{22}$/.test(id), body };
    }),
    claimed,
  };
}

/** One script of outbox calls; what each call answered, and the rows left. */
async function script(db: Db) {
  const { a, b } = await seed(db);
  let now = T0;
  const clock: Clock = { now: () => now };
  const answers: Record<string, unknown> = {};
  const event = (type: string, n: number) => ({
    tenantId: a,
    type,
    occurredAt: new Date(T0 - n * 1000).toISOString(),
    data: { n, text: 'é ✓' },
  });
  answers['enqueue ENDCALL'] = await transaction(db, (trx) => enqueueEvent(trx, event('ENDCALL', 1), now));
  answers['enqueue of no webhook'] = await transaction(db, (trx) => enqueueEvent(trx, event('QUEUEALERT', 2), now));
  answers['raise STARTCALL'] = await transaction(db, (trx) => raiseEvent({ db: trx, clock }, OPERATOR, event('STARTCALL', 3)));
  answers['claim once'] = await claimCallEvent(db, { type: 'STARTCALL', callId: 'c.1', queueId: 1 }, now);
  answers['claim twice'] = await claimCallEvent(db, { type: 'STARTCALL', callId: 'c.1', queueId: 1 }, now + 1);
  answers['claim in another queue'] = await claimCall({ db, clock }, OPERATOR, { type: 'STARTCALL', callId: 'c.1', queueId: 2 });
  now += 1000;
  const live = { db, clock };
  await queueJoined(live, OPERATOR, {
    queueName: 'SALES',
    callId: 'live.1',
    callerIdNum: '+13125550101',
    occurredAt: new Date(now).toISOString(),
  });
  await queueJoined(live, OPERATOR, {
    queueName: 'sales',
    callId: 'live.1',
    callerIdNum: '+13125550101',
    occurredAt: new Date(now).toISOString(),
  });
  await queueJoined(live, OPERATOR, {
    queueName: 'support',
    callId: 'live.2',
    callerIdNum: '+13125550102',
    occurredAt: new Date(now).toISOString(),
  });
  await queueJoined(live, OPERATOR, { queueName: 'nobodys', callId: 'live.3', callerIdNum: '', occurredAt: new Date(now).toISOString() });
  await amiCallEnded(live, OPERATOR, cdr('1795460000.1'), UTC_ZONE);
  await amiCallEnded(live, OPERATOR, cdr('1795460000.1'), UTC_ZONE); // the same call's end again: nothing
  const voicemail = { LastApplication: 'VoiceMail', LastData: '1001@default,u', DestinationChannel: '', AnswerTime: '' };
  await amiCallEnded(live, OPERATOR, cdr('1795460000.2', { ...voicemail, StartTime: '2026-11-27 11:58:30' }), UTC_ZONE);
  await amiCallEnded(
    live,
    OPERATOR,
    cdr('1795460000.3', { Channel: 'PJSIP/trunk-9', DestinationChannel: 'PJSIP/9999-1', Destination: '9999' }),
    UTC_ZONE,
  );
  answers['tenant B STARTCALL webhooks'] = b > 0;
  now = T0 + CALL_EVENTS_KEPT_MS;
  answers['forget at the edge'] = await forgetCallEvents(db, now);
  now += 1;
  answers['forget after'] = await forgetCalls({ db, clock }, OPERATOR);
  answers['claim again after forgetting'] = await claimCallEvent(db, { type: 'STARTCALL', callId: 'c.1', queueId: 1 }, now);
  return { answers, rows: await rows(db) };
}

describe('the webhook outbox and call events on SQLite and on PostgreSQL', function () {
  this.timeout(180_000);
  let dir: string;
  const open: { close(): Promise<void> }[] = [];
  const engines = async (): Promise<Db[]> => {
    const sqlite = openDatabase(join(dir, `tars-${open.length}.db`));
    open.push(sqlite);
    await migrateToLatest(sqlite);
    const pg = openPostgres(await (await sharedPostgres()).createDatabase(), { poolSize: 4 });
    open.push(pg);
    await migrateToLatest(pg);
    return [sqlite.db, pg.db];
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-outbox-two-engines-'));
  });
  after(async () => {
    for (const handle of open.splice(0)) await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when an outbox write and a call claim are made in a transaction that then fails, then neither is left, on both engines', async () => {
    for (const db of await engines()) {
      const { a } = await seed(db);
      const event = { tenantId: a, type: 'ENDCALL', occurredAt: new Date(T0).toISOString(), data: {} };
      let written = -1;
      const failed = await transaction(db, async (trx) => {
        await trx.updateTable('tenants').set({ name: 'Renamed' }).where('id', '=', a).execute(); // the change
        written = await enqueueEvent(trx, event, T0);
        expect(await claimCallEvent(trx, { type: 'ENDCALL', callId: 'x', queueId: 0 }, T0), engineOf(db)).to.equal(true);
        throw new Error('the change failed after its event');
      }).catch((err: Error) => err.message);
      expect(failed, engineOf(db)).to.equal('the change failed after its event');
      expect(written, `${engineOf(db)}: written in the transaction`).to.equal(1);
      const left = await rows(db);
      expect(left, engineOf(db)).to.deep.equal({ deliveries: [], claimed: [] });
      const tenant = await db.selectFrom('tenants').select('name').where('id', '=', a).executeTakeFirstOrThrow();
      expect(tenant.name, engineOf(db)).to.equal('Acme');
      // The same transaction that commits keeps both (the test can fail: it sees rows when they are there).
      await transaction(db, async (trx) => {
        await enqueueEvent(trx, event, T0);
        await claimCallEvent(trx, { type: 'ENDCALL', callId: 'x', queueId: 0 }, T0);
      });
      const kept = await rows(db);
      expect([kept.deliveries.length, kept.claimed.length], engineOf(db)).to.deep.equal([1, 1]);
    }
  });

  it('when two transactions claim the same call event at once on PostgreSQL, then exactly one gets it', async () => {
    const [, pg] = await engines();
    if (!pg) throw new Error('no PostgreSQL database');
    const claim = { type: 'STARTCALL', callId: 'race.1', queueId: 1 };
    for (let round = 0; round < 5; round++) {
      const c = { ...claim, callId: `race.${round}` };
      const got = await Promise.all([1, 2, 3].map(() => transaction(pg, (trx) => claimCallEvent(trx, c, T0))));
      expect(got.filter(Boolean), `round ${round}: ${JSON.stringify(got)}`).to.have.length(1);
    }
    const claimed = await pg.selectFrom('call_events_sent').select('call_id').execute();
    expect(claimed).to.have.length(5);
  });

  it('when the same script of outbox calls and live call events runs on a fresh SQLite file and a fresh PostgreSQL database, then every answer and row is the same', async () => {
    const [sqlite, pg] = await engines();
    if (!sqlite || !pg) throw new Error('no databases');
    const onSqlite = await script(sqlite);
    const onPostgres = await script(pg);
    expect(onPostgres).to.deep.equal(onSqlite);
    // Not blind: what the script is for happened (on both, by the equality above).
    const { answers, rows: left } = onSqlite;
    expect(answers).to.deep.include({
      'enqueue ENDCALL': 1, // the disabled webhook gets none
      'enqueue of no webhook': 0,
      'raise STARTCALL': 1,
      'claim once': true,
      'claim twice': false,
      'claim in another queue': true,
      'forget at the edge': 0,
      'claim again after forgetting': true,
    });
    expect(answers['forget after']).to.equal(2); // c.1 in queues 1 and 2, claimed at T0; the live ones a second later stay
    expect(left.deliveries.map((d) => [d.url.split('/').pop(), d.event_type, d.idShape])).to.deep.equal([
      ['ENDCALL', 'ENDCALL', true],
      ['STARTCALL', 'STARTCALL', true],
      ['STARTCALL', 'STARTCALL', true], // live.1 once, in Sales (SALES: the queue's name without case)
      ['b', 'STARTCALL', true], // live.2, tenant B's queue
      ['ENDCALL', 'ENDCALL', true], // the Dial call
      ['ENDCALL', 'ENDCALL', true], // the voicemail call, then its NEWVOICEMAIL
      ['NEWVOICEMAIL', 'NEWVOICEMAIL', true],
    ]);
    const voicemail = left.deliveries.at(-1)?.body as { data: { mailbox: string; extension: unknown; direction: string } };
    expect(voicemail.data).to.include({ mailbox: '1001@default', direction: 'inbound' });
    expect(
      left.claimed.map((c) => [c.event_type, c.call_id.startsWith('PJSIP/trunk-') ? 'a CDR key' : c.call_id, c.queue_id]),
    ).to.deep.equal([
      ['ENDCALL', 'a CDR key', 0],
      ['ENDCALL', 'a CDR key', 0],
      ['STARTCALL', 'c.1', 1],
      ['STARTCALL', 'live.1', 1],
      ['STARTCALL', 'live.2', 2],
    ]);
  });
});
