import { type Db, transaction } from '../../db/database';
import type { MfaEnrolmentTable } from '../../db/schema';
import type { MfaMode } from './mfa';

/*
 * What self-service accounts keep besides the user row (issue 19): MFA modes waiting for their first right code,
 * and password-reset tokens (hashes only). Both are the signed-in user's own or reached through a token hash.
 */

export type Enrolment = Omit<MfaEnrolmentTable, 'mode'> & { mode: MfaMode };

export async function saveEnrolment(db: Db, e: Enrolment): Promise<void> {
  await db
    .insertInto('mfa_enrolments')
    .values(e)
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'mode'])
        .doUpdateSet({ secret: e.secret, phone_number: e.phone_number, code_hash: e.code_hash, expires_at: e.expires_at }),
    )
    .execute();
}

export async function findEnrolment(db: Db, userId: number, mode: MfaMode, now: number): Promise<Enrolment | undefined> {
  const row = await db
    .selectFrom('mfa_enrolments')
    .selectAll()
    .where('user_id', '=', userId)
    .where('mode', '=', mode)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row ? { ...row, mode: row.mode as MfaMode } : undefined;
}

export async function dropEnrolment(db: Db, userId: number, mode: MfaMode): Promise<void> {
  await db.deleteFrom('mfa_enrolments').where('user_id', '=', userId).where('mode', '=', mode).execute();
}

export async function saveReset(db: Db, tokenHash: string, userId: number, now: number, expiresAt: number): Promise<void> {
  await transaction(db, async (trx) => {
    await trx.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
    await trx.insertInto('password_resets').values({ token_hash: tokenHash, user_id: userId, expires_at: expiresAt }).execute();
  });
}

/** Takes a reset token: the user it was for when it is live, and it is gone either way (single use). */
export async function takeReset(db: Db, tokenHash: string, now: number): Promise<number | undefined> {
  const row = await db
    .deleteFrom('password_resets')
    .where('token_hash', '=', tokenHash)
    .returning(['user_id', 'expires_at'])
    .executeTakeFirst();
  return row && row.expires_at > now ? row.user_id : undefined;
}

export async function tenantRequiresMfa(db: Db, tenantId: number): Promise<boolean> {
  const row = await db.selectFrom('tenants').select('mfa_required').where('id', '=', tenantId).executeTakeFirst();
  return row?.mfa_required === 1;
}
