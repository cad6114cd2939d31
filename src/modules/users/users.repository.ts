import { sql } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import type { NewUser, UserRow } from '../../db/schema';

/*
 * Users are looked up across tenants only to authenticate (by e-mail at login, by id from a token):
 * that is where the tenant comes from. Everything else about users is scoped to a tenant.
 */

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  // E-mails are unique without regard to case; COLLATE NOCASE lets the query use that unique index.
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<boolean>`email = ${email} COLLATE NOCASE`)
    .executeTakeFirst();
}

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function branchName(db: Db, scope: TenantScope, branchId: number | null): Promise<string> {
  if (branchId === null) return '';
  const row = await db.selectFrom('branches').select('name').where(tenantIn(scope)).where('id', '=', branchId).executeTakeFirst();
  return row?.name ?? '';
}

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

/**
 * Sets a user's password and ends everything the old one opened: every access token issued before (the new
 * credentials version is returned, for a token of the client that made the change), every reset token, every open
 * MFA challenge (a sign-in's, a set-up token, a confirmation code) and MFA set-up waiting. Undefined when no such
 * user is in the scope. Run it in a transaction.
 */
export async function setPassword(db: Db, scope: TenantScope, userId: number, passwordHash: string): Promise<number | undefined> {
  const row = await db
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, token_version: eb('token_version', '+', 1) }))
    .where(tenantIn(scope))
    .where('id', '=', userId)
    .returning('token_version')
    .executeTakeFirst();
  if (!row) return undefined;
  for (const table of ['password_resets', 'mfa_challenges', 'mfa_enrolments'] as const)
    await db.deleteFrom(table).where('user_id', '=', userId).execute();
  return row.token_version;
}

export async function recordTotpStep(db: Db, userId: number, step: number): Promise<boolean> {
  // Only moves forward: a step at or below the last accepted one is a replay.
  const res = await db
    .updateTable('users')
    .set({ last_totp_step: step })
    .where('id', '=', userId)
    .where('last_totp_step', '<', step)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
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
