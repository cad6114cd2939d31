import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import { type Db, transaction } from '../../db/database';

/** A wallboard link as stored, with its queues in their order on the screen. */
export interface WallboardLinkRow {
  readonly id: number;
  readonly tenant_id: number;
  readonly name: string;
  readonly created_by: number | null;
  readonly created_at: number;
  readonly last_used_at: number | null;
  readonly queueIds: readonly number[];
}

export interface NewWallboardLink {
  readonly tenantId: number;
  readonly name: string;
  readonly tokenHash: string;
  readonly createdBy: number;
  readonly createdAt: number;
  readonly queueIds: readonly number[];
}

/**
 * Stores a link and its queues in one transaction; returns its id, or the ids of its queues that are no queue of
 * the scope (then nothing is stored: checked in the same transaction, so a queue deleted meanwhile cannot slip in).
 */
export async function insertWallboardLink(
  db: Db,
  scope: TenantScope,
  link: NewWallboardLink,
): Promise<{ id: number } | { missing: number[] }> {
  return transaction(db, async (trx) => {
    const queues = await trx.selectFrom('queues').select('id').where(tenantIn(scope)).where('id', 'in', link.queueIds).execute();
    const found = new Set(queues.map((q) => q.id));
    const missing = link.queueIds.filter((q) => !found.has(q));
    if (missing.length > 0) return { missing };
    const { id } = await trx
      .insertInto('wallboard_links')
      .values({
        tenant_id: link.tenantId,
        name: link.name,
        token_hash: link.tokenHash,
        created_by: link.createdBy,
        created_at: link.createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('wallboard_link_queues')
      .values(link.queueIds.map((queueId, position) => ({ link_id: id, queue_id: queueId, position })))
      .execute();
    return { id };
  });
}

const LINK_COLUMNS = ['id', 'tenant_id', 'name', 'created_by', 'created_at', 'last_used_at'] as const;

async function withQueues(db: Db, rows: Omit<WallboardLinkRow, 'queueIds'>[]): Promise<WallboardLinkRow[]> {
  if (rows.length === 0) return [];
  const queues = await db
    .selectFrom('wallboard_link_queues')
    .select(['link_id', 'queue_id'])
    .where(
      'link_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('link_id')
    .orderBy('position')
    .execute();
  return rows.map((r) => ({ ...r, queueIds: queues.filter((q) => q.link_id === r.id).map((q) => q.queue_id) }));
}

/** The links of the tenants of a scope (of one tenant when `tenantId` is given), newest first. */
export async function findWallboardLinks(db: Db, scope: TenantScope, id?: number): Promise<WallboardLinkRow[]> {
  let query = db.selectFrom('wallboard_links').select(LINK_COLUMNS).where(tenantIn(scope));
  if (id !== undefined) query = query.where('id', '=', id);
  return withQueues(db, await query.orderBy('id', 'desc').execute());
}

/** The link a token's hash names, in whichever tenant (the token is its own authority); none when revoked or never made. */
export async function findWallboardLinkByToken(db: Db, tokenHash: string): Promise<WallboardLinkRow | undefined> {
  const row = await db.selectFrom('wallboard_links').select(LINK_COLUMNS).where('token_hash', '=', tokenHash).executeTakeFirst();
  return row ? (await withQueues(db, [row]))[0] : undefined;
}

/** Whether the link still exists (a stream of it checks at every refresh). */
export async function wallboardLinkExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('wallboard_links').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export async function touchWallboardLink(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('wallboard_links').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Deletes a link of the scope (its token dies with it); false when the scope has no such link. */
export async function deleteWallboardLink(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const result = await db.deleteFrom('wallboard_links').where('id', '=', id).where(tenantIn(scope)).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
