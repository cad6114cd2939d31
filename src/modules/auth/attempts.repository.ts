import type { Db } from '../../db/database';

/* The counts of attempts (src/modules/auth/attempt-limits.ts): one row (key, at) per attempt that holds its place. */

/** The times of the key's latest attempts after `since`, newest first, at most `limit`. */
export function recentAttempts(db: Db, key: string, since: number, limit: number): Promise<{ at: number }[]> {
  return db
    .selectFrom('login_failures')
    .select('at')
    .where('key', '=', key)
    .where('at', '>', since)
    .orderBy('at', 'desc')
    .limit(limit)
    .execute();
}

/** Deletes the attempts at or before `before` (older than any window). */
export async function forgetAttemptsUntil(db: Db, before: number): Promise<void> {
  await db.deleteFrom('login_failures').where('at', '<=', before).execute();
}

/** The key's latest places after `since`, newest first, at most `limit`: when each was taken, and until when it is held. */
export function placesSince(db: Db, key: string, since: number, limit: number): Promise<{ at: number; pending_until: number | null }[]> {
  return db
    .selectFrom('login_failures')
    .select(['at', 'pending_until'])
    .where('key', '=', key)
    .where('at', '>', since)
    .orderBy('at', 'desc')
    .limit(limit)
    .execute();
}

/** Records an attempt of the key at `at`, held until `pendingUntil` (null: a settled failure); its id, to give the place back. */
export async function insertAttempt(db: Db, key: string, at: number, pendingUntil: number | null = null): Promise<number> {
  const row = await db
    .insertInto('login_failures')
    .values({ key, at, pending_until: pendingUntil })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The attempts of these ids settled as failures: they count, no longer held. */
export async function settleAttempts(db: Db, ids: readonly number[]): Promise<void> {
  await db.updateTable('login_failures').set({ pending_until: null }).where('id', 'in', ids).execute();
}

/** Deletes the attempts of these ids (their places given back). */
export async function deleteAttempts(db: Db, ids: readonly number[]): Promise<void> {
  await db.deleteFrom('login_failures').where('id', 'in', ids).execute();
}
