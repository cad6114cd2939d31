import { type Db, transaction } from '../../db/database';
import type { MfaChallengeTable } from '../../db/schema';
import type { Insertable } from 'kysely';

/*
 * MFA challenges (src/modules/auth/mfa.ts): a sign-in's code, a set-up token, a confirmation code. Their tokens and
 * codes are stored only as hashes; they are found by a token's hash or by their user.
 */

/** Stores a challenge; the expired ones go first. */
export async function insertChallenge(db: Db, row: Insertable<MfaChallengeTable>, now: number): Promise<void> {
  await transaction(db, async (trx) => {
    await trx.deleteFrom('mfa_challenges').where('expires_at', '<=', now).execute();
    await trx.insertInto('mfa_challenges').values(row).execute();
  });
}

/** The challenge of a token's hash while it is live: not expired, fewer than `maxWrong` wrong codes. */
export function findLiveChallenge(db: Db, tokenHash: string, now: number, maxWrong: number) {
  return db
    .selectFrom('mfa_challenges')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxWrong)
    .executeTakeFirst();
}

/** The user's live confirmation (mode `confirm`): its token's and code's hashes. */
export function findLiveConfirmation(db: Db, userId: number, now: number, maxWrong: number) {
  return db
    .selectFrom('mfa_challenges')
    .select(['token_hash', 'code_hash'])
    .where('user_id', '=', userId)
    .where('mode', '=', 'confirm')
    .where('expires_at', '>', now)
    .where('attempts', '<', maxWrong)
    .executeTakeFirst();
}

/** One wrong code more for the challenge of a token's hash. */
export async function countWrongChallengeCode(db: Db, tokenHash: string): Promise<void> {
  await db
    .updateTable('mfa_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .execute();
}

/** Deletes the challenge of a token's hash; whether there was one. */
export async function deleteChallenge(db: Db, tokenHash: string): Promise<boolean> {
  const res = await db.deleteFrom('mfa_challenges').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** Deletes the user's confirmations. */
export async function deleteConfirmations(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('mfa_challenges').where('user_id', '=', userId).where('mode', '=', 'confirm').execute();
}
