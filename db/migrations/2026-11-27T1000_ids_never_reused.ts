import type { Kysely } from 'kysely';
import { neverReuseIds } from './never-reused-ids';

/** The directory's tables that the API deletes from (issue 18) and whose ids tokens, users and clients hold. */
const TABLES = ['tenants', 'users', 'extensions', 'queues'] as const;

/**
 * Ids are never given again (issue 27): these tables were made with a plain INTEGER PRIMARY KEY, which SQLite
 * numbers max(id) + 1, so deleting the newest user and creating another gave the new one the old id, and the deleted
 * user's access token (which names its user by id) worked for the new one; a user's extId, a client's queue id
 * named the next extension or queue likewise. AUTOINCREMENT, as the other deletable tables have, never reuses one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await neverReuseIds(db, TABLES);
}
