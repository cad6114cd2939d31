import { sql } from 'kysely';
import { engineOf } from '../../db/migrations/engine';
import { lockKey, TARS_LOCK_SPACE } from './coordination';
import { transaction, type Db } from './database';

/*
 * Work that must be done by one instance at a time when several run on one PostgreSQL database (issue 32, design §5):
 * PostgreSQL's advisory locks, which die with their transaction or session, so a killed instance never holds one.
 * On SQLite there is one process writing at a time already (a transaction takes the one write lock when it begins),
 * so these take no lock there and change nothing.
 *
 * Keys are the coordinator's (./coordination.ts): PostgreSQL's two-int form (TARS_LOCK_SPACE, FNV-1a hash of a
 * name), so an operator finds these in pg_locks beside the AMI links' as those with classid = TARS_LOCK_SPACE. The
 * coordinator holds locks on its own session for as long as the process lives (leadership); these are shorter: for
 * one transaction (lockedTransaction) or one run of a job (runAlone), on a connection of the pool.
 */

/**
 * Runs `work` in a transaction that holds the locks of `names` from its first statement to its end, so that of two
 * such transactions naming one lock, the second starts its reads once the first has committed, and sees its writes.
 *
 * On PostgreSQL the transaction is READ COMMITTED, not transaction()'s SERIALIZABLE: a serializable transaction's
 * snapshot is taken when its first statement starts, before the lock is granted, so it would not see the writes of
 * the holder it waited for and would fail (40001) instead; each statement of a READ COMMITTED one sees every commit
 * before it. The locks are taken in sorted order (two transactions that name the same locks never wait for each
 * other in a cycle). `work` must do all its checking and writing on rows that only holders of these locks write.
 * On SQLite: transaction(), whose write lock is already the one lock.
 */
export async function lockedTransaction<T>(db: Db, names: readonly string[], work: (trx: Db) => Promise<T>): Promise<T> {
  if (engineOf(db) === 'sqlite' || db.isTransaction) {
    if (engineOf(db) === 'postgres') await takeLocks(db, names); // inside a caller's transaction: its locks until it ends
    return transaction(db, work);
  }
  return db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      await takeLocks(trx, names);
      return work(trx);
    });
}

async function takeLocks(trx: Db, names: readonly string[]): Promise<void> {
  for (const key of [...new Set(names.map(lockKey))].sort((a, b) => a - b))
    await sql`SELECT pg_advisory_xact_lock(${TARS_LOCK_SPACE}::int, ${key}::int)`.execute(trx);
}

/**
 * Runs `work` unless another instance runs the work named `name` now, and says whether it ran. On PostgreSQL the
 * lock is a session lock (pg_try_advisory_lock) held by one connection of the pool for the length of `work` and
 * released after it; an instance killed meanwhile loses it with its connection. On SQLite `work` always runs.
 */
export async function runAlone(db: Db, name: string, work: () => Promise<void>): Promise<boolean> {
  if (engineOf(db) === 'sqlite') {
    await work();
    return true;
  }
  const key = lockKey(name);
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ got: boolean }>`SELECT pg_try_advisory_lock(${TARS_LOCK_SPACE}::int, ${key}::int) AS got`.execute(conn);
    if (!rows[0]?.got) return false;
    try {
      await work();
    } finally {
      await sql`SELECT pg_advisory_unlock(${TARS_LOCK_SPACE}::int, ${key}::int)`.execute(conn);
    }
    return true;
  });
}
