import { sql, type Updateable } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import type { UserRow, UserTable } from '../../db/schema';
import { ciEquals } from '../../db/portable';

/*
 * A user's credentials, auth's part of the user row: the e-mail and password a sign-in checks, the token version
 * that ends access tokens, the MFA columns. Users are looked up across tenants only to authenticate (by e-mail at
 * login, by id from a token): that is where the tenant comes from. Everything else about users is scoped to a
 * tenant (src/modules/users/users.repository.ts).
 */

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  // E-mails are unique without regard to case; ciEquals is the form of that unique index, which serves the query.
  return db.selectFrom('users').selectAll().where(ciEquals('email', email)).executeTakeFirst();
}

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
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

/** The MFA columns a change of a factor sets. */
export type MfaColumns = Pick<
  Updateable<UserTable>,
  'mfa_enabled' | 'mfa_mode' | 'mfa_app_secret' | 'mfa_app_verified' | 'mfa_phone_number' | 'mfa_sms_verified' | 'mfa_email_verified'
>;

/** Changes MFA columns of the user and ends its tokens (one statement); the new credentials version. */
export async function changeMfa(db: Db, userId: number, set: MfaColumns): Promise<number> {
  const { token_version } = await db
    .updateTable('users')
    .set({ ...set, token_version: sql<number>`token_version + 1` })
    .where('id', '=', userId)
    .returning('token_version')
    .executeTakeFirstOrThrow();
  return token_version;
}

/** Switches MFA on with a mode already verified (its tokens stay). */
export async function enableMfa(db: Db, userId: number, mode: string): Promise<void> {
  await db.updateTable('users').set({ mfa_enabled: 1, mfa_mode: mode }).where('id', '=', userId).execute();
}

/**
 * A mode set up and verified by its first code: its columns set, MFA on with it, the user's tokens ended, its
 * set-up waiting gone, and every set-up token of the user with it (those were given for the password alone: with a
 * factor on, none may set another up). The new credentials version. Run it in a transaction.
 */
export async function switchMfaOn(db: Db, userId: number, mode: string, verified: MfaColumns): Promise<number> {
  const version = await changeMfa(db, userId, { ...verified, mfa_enabled: 1, mfa_mode: mode });
  await db.deleteFrom('mfa_enrolments').where('user_id', '=', userId).where('mode', '=', mode).execute();
  await db.deleteFrom('mfa_challenges').where('user_id', '=', userId).where('mode', '=', 'setup').execute();
  return version;
}

/**
 * Forgets every MFA mode of the user `id` of the scope (MFA off, no secret, no phone, nothing verified), with its
 * set-ups waiting and open challenges, and ends its tokens (an admin's reset, for a user who lost its factor). Run it
 * in a transaction. False when no such user is in the scope.
 */
export async function clearMfa(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const res = await db
    .updateTable('users')
    .set({
      mfa_enabled: 0,
      mfa_mode: '',
      mfa_app_secret: '',
      mfa_app_verified: 0,
      mfa_phone_number: '',
      mfa_sms_verified: 0,
      mfa_email_verified: 0,
      token_version: sql<number>`token_version + 1`,
    })
    .where('id', '=', id)
    .where(tenantIn(scope))
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  await db.deleteFrom('mfa_enrolments').where('user_id', '=', id).execute();
  await db.deleteFrom('mfa_challenges').where('user_id', '=', id).execute();
  return true;
}
