import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { type Db, transaction } from '../../db/database';
import { engineOf } from '../../db/engine';
import type { Database, WebhookDeliveryTable } from '../../db/schema';
import { windowed, type PageWindow } from '../../access/paging';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';

export type Delivery = Selectable<WebhookDeliveryTable>;

const OPEN = ['pending', 'retry', 'delivering'] as const;

/** The oldest open delivery of each webhook: the only one of its webhook that may be attempted (per-webhook order). */
const headIds = (db: Db) =>
  db
    .selectFrom('webhook_deliveries')
    .select((e) => e.fn.min<number>('id').as('id'))
    .where('status', 'in', OPEN)
    .groupBy('webhook_id');

/** Due now: pending or to retry and its time has come, or delivering with an expired lease (its process died). */
const isDue = (now: number) => (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
  eb.or([
    eb.and([eb('status', 'in', ['pending', 'retry']), eb('next_attempt_at', '<=', now)]),
    eb.and([eb('status', '=', 'delivering'), eb('lease_until', '<', now)]),
  ]);

/**
 * The oldest open delivery of each webhook, when it may be attempted now (due, or delivering with an
 * expired lease because its process died). Only heads are attempted, so each webhook receives its events
 * in the order they happened.
 */
export async function dueHeads(db: Db, now: number, limit: number): Promise<Delivery[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', 'in', headIds(db))
    .where(isDue(now))
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Takes up to `limit` due heads for this process, each leased for `leaseMs` with its attempts counted up, and
 * returns them as taken (`attempts` is the attempt about to be made); a head whose attempts ran out
 * (`maxAttempts`, left delivering by a process that died) is given up instead (`gaveUp` counts them). Several
 * processes may call this at once (several `tars serve` on one database, a server and a CLI on one SQLite file):
 * each delivery is taken by one of them until its lease ends.
 *
 * SQLite: the heads are read, then each is taken by one conditional UPDATE (claimDelivery): writers take turns on
 * the file's write lock, so of two processes that read the same head one updates it, the other matches nothing.
 * PostgreSQL: one UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING takes the heads, so that
 * instances reading at once take different heads instead of all trying the same ones. Under READ COMMITTED (one
 * statement, outside transaction()) a head that another instance is taking is locked, and skipped; one it took
 * and committed is re-read at its new version and re-checked against the conditions (status, lease, attempts),
 * which it no longer meets. A successor never becomes a head while its predecessor is open (delivering counts),
 * so per-webhook order holds across instances (docs/design/postgresql.md §5.2).
 */
export async function claimDue(
  db: Db,
  now: number,
  limit: number,
  leaseMs: number,
  maxAttempts: number,
): Promise<{ taken: Delivery[]; gaveUp: number }> {
  if (engineOf(db) === 'postgres') {
    const exhausted = await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', lease_until: null, last_error: sql<string>`'gave up after ' || attempts || ' attempts'` })
      .where('id', 'in', headIds(db))
      .where(isDue(now))
      .where('attempts', '>=', maxAttempts)
      .executeTakeFirst();
    const picked = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('id', 'in', headIds(db))
      .where(isDue(now))
      .where('attempts', '<', maxAttempts)
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const taken = await db
      .updateTable('webhook_deliveries')
      .set((eb) => ({ status: 'delivering', attempts: eb('attempts', '+', 1), lease_until: now + leaseMs }))
      .where('id', 'in', picked)
      .returningAll()
      .execute();
    return { taken: taken.sort((a, b) => a.id - b.id), gaveUp: Number(exhausted.numUpdatedRows) };
  }
  const taken: Delivery[] = [];
  let gaveUp = 0;
  for (const d of await dueHeads(db, now, limit)) {
    // Attempts never exceed the maximum, even for a delivery left delivering by a process that died.
    if (d.attempts >= maxAttempts) gaveUp += (await giveUp(db, d, `gave up after ${d.attempts} attempts`)) ? 1 : 0;
    else if (await claimDelivery(db, d, now, leaseMs))
      taken.push({ ...d, status: 'delivering', attempts: d.attempts + 1, lease_until: now + leaseMs });
  }
  return { taken, gaveUp };
}

/** Takes a delivery for this process (one conditional UPDATE: another process cannot take it too). */
export async function claimDelivery(db: Db, d: Delivery, now: number, leaseMs: number): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivering', attempts: d.attempts + 1, lease_until: now + leaseMs })
    .where('id', '=', d.id)
    .where('status', '=', d.status)
    .where('attempts', '=', d.attempts)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Marks a delivery failed without another attempt (its attempts ran out); false when another process changed it first. */
export async function giveUp(db: Db, d: Delivery, error: string): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', lease_until: null, last_error: error })
    .where('id', '=', d.id)
    .where('status', '=', d.status)
    .where('attempts', '=', d.attempts)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export interface AttemptRecord {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/**
 * Keeps an attempt and its outcome. The delivery's row changes only while it is still this attempt's (delivering,
 * with this attempt's count): a process whose lease ran out while it sent, and whose delivery another took
 * meanwhile, keeps its attempt in the log but leaves the row to the other. False then.
 */
export async function recordAttempt(
  db: Db,
  deliveryId: number,
  a: AttemptRecord,
  outcome: { status: 'delivered' | 'retry' | 'failed' | 'gone'; nextAttemptAt?: number; deliveredAt?: string },
): Promise<boolean> {
  return transaction(db, async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: deliveryId,
        attempt: a.attempt,
        started_at: a.startedAt,
        duration_ms: a.durationMs,
        status_code: a.statusCode,
        error: a.error,
      })
      .execute();
    const res = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        lease_until: null,
        last_status_code: a.statusCode,
        last_error: a.error,
        ...(outcome.nextAttemptAt !== undefined ? { next_attempt_at: outcome.nextAttemptAt } : {}),
        ...(outcome.deliveredAt !== undefined ? { delivered_at: outcome.deliveredAt } : {}),
      })
      .where('id', '=', deliveryId)
      .where('status', '=', 'delivering')
      .where('attempts', '=', a.attempt)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  });
}

/** A receiver answered 410 Gone: the webhook is disabled and its other open deliveries are given up. */
export async function disableWebhook(db: Db, webhookId: number, reason: string, now: number): Promise<void> {
  await transaction(db, async (trx) => {
    await trx
      .updateTable('webhooks')
      .set({ disabled_at: new Date(now).toISOString(), disabled_reason: reason })
      .where('id', '=', webhookId)
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: `not sent: ${reason}`, lease_until: null })
      .where('webhook_id', '=', webhookId)
      .where('status', 'in', ['pending', 'retry'])
      .execute();
  });
}

/** Where and how to deliver for a webhook, with the secrets that sign at `now`; undefined when it is gone. */
export async function webhookTarget(db: Db, webhookId: number, now: number) {
  const row = await db
    .selectFrom('webhooks')
    .select(['id', 'url', 'username', 'password', 'authtoken', 'secret', 'previous_secret', 'previous_secret_until', 'disabled_at'])
    .where('id', '=', webhookId)
    .executeTakeFirst();
  if (!row) return undefined;
  const previous = row.previous_secret && (row.previous_secret_until ?? 0) > now ? [row.previous_secret] : [];
  return { ...row, secrets: [row.secret, ...previous] };
}

export async function listDeliveries(
  db: Db,
  scope: TenantScope,
  webhookId: number,
  w: PageWindow,
): Promise<{ rows: Delivery[]; total: number }> {
  const base = db.selectFrom('webhook_deliveries').where(tenantIn(scope)).where('webhook_id', '=', webhookId);
  const rows = await windowed(base.selectAll().orderBy('id', 'desc'), w).execute();
  const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

export async function readSecret(db: Db, scope: TenantScope, webhookId: number) {
  return db
    .selectFrom('webhooks')
    .select(['secret', 'previous_secret_until'])
    .where(tenantIn(scope))
    .where('id', '=', webhookId)
    .executeTakeFirstOrThrow();
}

export async function replaceSecret(db: Db, scope: TenantScope, webhookId: number, secret: string, previousUntil: number): Promise<void> {
  await db
    .updateTable('webhooks')
    .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_until: previousUntil, secret }))
    .where(tenantIn(scope))
    .where('id', '=', webhookId)
    .execute();
}

/** How many deliveries there are of each status (the metrics' gauge). */
export async function deliveryCounts(db: Db): Promise<{ status: string; n: number }[]> {
  return db
    .selectFrom('webhook_deliveries')
    .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
}

/** How many attempts are kept, and how many of them were retries (the metrics' gauge). */
export async function attemptCounts(db: Db): Promise<{ all: number; retries: number | null }> {
  return db
    .selectFrom('webhook_attempts')
    .select((eb) => [
      eb.fn.countAll<number>().as('all'),
      eb.fn.sum<number>(eb.case().when('attempt', '>', 1).then(1).else(0).end()).as('retries'),
    ])
    .executeTakeFirstOrThrow();
}

export async function findDelivery(db: Db, scope: TenantScope, webhookId: number, deliveryId: number): Promise<Delivery | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where(tenantIn(scope))
    .where('webhook_id', '=', webhookId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/**
 * Puts a failed or gone delivery back in line, due now, with a new round of attempts; its message (webhook-id and
 * body) stays as it was. One conditional UPDATE: of two retries at once, one re-queues it. False when it was not
 * failed or gone any more.
 */
export async function requeueDelivery(db: Db, scope: TenantScope, d: Delivery, now: number): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'retry', attempts: 0, next_attempt_at: now, lease_until: null, delivered_at: null })
    .where(tenantIn(scope))
    .where('id', '=', d.id)
    .where('status', 'in', ['failed', 'gone'])
    .where('attempts', '=', d.attempts)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Why delivery disabled the webhook of the scope (its receiver answered 410 Gone); undefined while it is enabled. */
export async function disabledReason(db: Db, scope: TenantScope, webhookId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhooks')
    .select(['disabled_at', 'disabled_reason'])
    .where(tenantIn(scope))
    .where('id', '=', webhookId)
    .executeTakeFirst();
  return row?.disabled_at ? (row.disabled_reason ?? `disabled on ${row.disabled_at}`) : undefined;
}
