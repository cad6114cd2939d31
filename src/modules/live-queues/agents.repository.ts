import type { Db } from '../../db/database';

/*
 * What the agent routes read of the users table (the users module's): which extension a user is, and the DND
 * of an extension's user. Reads only, as branches.repository reads who still uses a branch.
 */

/** The extension (id and peerName) a user is, as its own row says. */
export async function extensionOfUser(db: Db, userId: number): Promise<{ ext_id: number | null; peer_name: string } | undefined> {
  return db.selectFrom('users').select(['ext_id', 'peer_name']).where('id', '=', userId).executeTakeFirst();
}

/** The DND flag of the user of an extension, if one has it. */
export async function dndOfExtension(db: Db, extensionId: number): Promise<number | undefined> {
  return (await db.selectFrom('users').select('dnd').where('ext_id', '=', extensionId).executeTakeFirst())?.dnd;
}
