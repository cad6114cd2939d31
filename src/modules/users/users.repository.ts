import { sql } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import { windowed, type PageWindow } from '../../access/paging';
import type { Db } from '../../db/database';
import type { NewUser, UserRow } from '../../db/schema';

/*
 * The users of a tenant, administered, and a user's own settings. A user's credentials (e-mail and password, token
 * version, MFA) and the look-ups across tenants that authenticate it are auth's (src/modules/auth/credentials.repository.ts).
 */

export async function insertUser(db: Db, user: NewUser): Promise<number> {
  const row = await db.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The signed-in user's own settings (PATCH /v2/users/user-settings/...): only these columns, only its row. */
export type OwnSettings = Partial<
  Pick<
    UserRow,
    | 'title'
    | 'dark_mode'
    | 'dnd'
    | 'enable_call_notifications'
    | 'enable_text_notifications'
    | 'enable_mobile_call_notifications'
    | 'enable_mobile_text_notifications'
    | 'enable_chat_notifications'
    | 'enable_all_new_message_notifications'
    | 'enable_direct_message_notifications'
  >
>;

export async function updateOwnSettings(db: Db, userId: number, settings: OwnSettings): Promise<boolean> {
  const res = await db.updateTable('users').set(settings).where('id', '=', userId).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The user `id` when the scope reaches it. */
export function findUser(db: Db, scope: TenantScope, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).where(tenantIn(scope)).executeTakeFirst();
}

/** A page of the users of the scope, by id, and how many there are. */
export async function listUsers(db: Db, scope: TenantScope, w: PageWindow): Promise<{ rows: UserRow[]; total: number }> {
  const rows = await windowed(db.selectFrom('users').selectAll().where(tenantIn(scope)).orderBy('id'), w).execute();
  const { n } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(tenantIn(scope))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** What an admin changes of a user: its placement, and its role (which ends its tokens). */
export type UserChange = Partial<Pick<UserRow, 'branch_id' | 'ext_id' | 'ext_num' | 'ext_name' | 'peer_name' | 'user_role' | 'partner_id'>>;

/** Changes the user `id` of the scope; with `endTokens`, every access token it holds ends (a change of role). */
export async function updateUser(db: Db, scope: TenantScope, id: number, set: UserChange, endTokens: boolean): Promise<void> {
  await db
    .updateTable('users')
    .set(endTokens ? { ...set, token_version: sql<number>`token_version + 1` } : set)
    .where('id', '=', id)
    .where(tenantIn(scope))
    .execute();
}

/** How many saved filters the user owns and has not deleted, in any tenant (a user who owns some is not deleted). */
export async function savedFiltersOwnedBy(db: Db, userId: number): Promise<number> {
  const { n } = await db
    .selectFrom('saved_filters')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Deletes the user `id` of the scope with its open MFA challenges (its enrolments and reset tokens cascade) and the
 * saved filters it had deleted, with their runs: a deleted filter is only marked so, and its row would otherwise
 * hold the user (saved_filters.user_id references users) for ever.
 */
export async function deleteUser(db: Db, scope: TenantScope, id: number): Promise<void> {
  const deletedFilters = db.selectFrom('saved_filters').select('id').where('user_id', '=', id).where('deleted_at', 'is not', null);
  await db.deleteFrom('report_runs').where('filter_id', 'in', deletedFilters).execute();
  await db.deleteFrom('saved_filters').where('user_id', '=', id).where('deleted_at', 'is not', null).execute();
  await db.deleteFrom('mfa_challenges').where('user_id', '=', id).execute();
  await db.deleteFrom('users').where('id', '=', id).where(tenantIn(scope)).execute();
}
