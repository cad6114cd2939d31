import { sql } from 'kysely';
import type { Db } from '../../db/database';

/** Answers once the database does: the smallest query there is. */
export async function ping(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
