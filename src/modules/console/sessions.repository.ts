import { CALLER_COLUMNS, type CallerUser } from '../../access/caller';
import type { Db } from '../../db/database';

/** A stored session with the caller columns of its user, as read for every request that sends its cookie. */
export interface SessionRow {
  readonly id: number;
  readonly sessionVersion: number;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly expiresAt: number;
  readonly user: CallerUser;
}

export async function insertSession(
  db: Db,
  s: { idHash: string; userId: number; tokenVersion: number; now: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({
      id_hash: s.idHash,
      user_id: s.userId,
      token_version: s.tokenVersion,
      created_at: s.now,
      last_seen_at: s.now,
      expires_at: s.expiresAt,
    })
    .execute();
}

/** The session whose id hashes to `idHash`, with its user (none: no such session, or its user is gone). */
export async function findSession(db: Db, idHash: string): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id as sid', 's.token_version as session_version', 's.created_at', 's.last_seen_at', 's.expires_at'])
    .select(CALLER_COLUMNS.map((c) => `u.${c}` as const))
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { sid, session_version, created_at, last_seen_at, expires_at, ...user } = row;
  return { id: sid, sessionVersion: session_version, createdAt: created_at, lastSeenAt: last_seen_at, expiresAt: expires_at, user };
}

export async function touchSession(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

/** Forgets the sessions that ended by themselves (expired, idle too long, or of credentials since changed). */
export async function deleteEndedSessions(db: Db, now: number, idleMs: number): Promise<void> {
  await db
    .deleteFrom('console_sessions')
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb('last_seen_at', '<=', now - idleMs),
        eb('token_version', '!=', eb.selectFrom('users').select('token_version').whereRef('users.id', '=', 'console_sessions.user_id')),
      ]),
    )
    .execute();
}
