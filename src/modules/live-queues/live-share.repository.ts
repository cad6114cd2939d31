import type { Db } from '../../db/database';
import type { AmiActionStatus, LiveStateTable } from '../../db/schema';

/*
 * What the instance holding a PBX's AMI link shares with the other instances (docs/design/postgresql.md §5.4):
 * the published live state, and the agent actions the others ask it to carry out.
 */

export type LiveStateRow = LiveStateTable;

/** Writes a PBX's state; a write with a version not above the stored one (an old holder, late) changes nothing. */
export async function publishLiveState(db: Db, row: LiveStateRow): Promise<boolean> {
  const { pbx: _pbx, ...rest } = row;
  const res = await db
    .insertInto('live_state')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('pbx')
        .doUpdateSet(rest)
        .where('live_state.version', '<', (eb) => eb.ref('excluded.version')),
    )
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function liveStateOf(db: Db, pbx: string): Promise<LiveStateRow | undefined> {
  return db.selectFrom('live_state').selectAll().where('pbx', '=', pbx).executeTakeFirst();
}

export interface AskedAction {
  readonly pbx: string;
  readonly fields: Readonly<Record<string, string | number>>;
  readonly now: number;
  readonly expiresAt: number;
}

/** Records an action for the holder of `pbx`'s link; returns its id. */
export async function askAction(db: Db, action: AskedAction): Promise<number> {
  const row = await db
    .insertInto('ami_actions')
    .values({
      pbx: action.pbx,
      fields: JSON.stringify(action.fields),
      status: 'pending',
      error: null,
      requested_at: action.now,
      expires_at: action.expiresAt,
      done_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The ids of the actions waiting for the holder of one of `pbxs`, oldest first. */
export async function pendingActions(db: Db, pbxs: readonly string[], now: number): Promise<number[]> {
  if (pbxs.length === 0) return [];
  const rows = await db
    .selectFrom('ami_actions')
    .select('id')
    .where('pbx', 'in', pbxs)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Takes a pending action to carry it out: one conditional UPDATE, so that of two holders (an old one not yet
 * fenced off) only one gets it. An action past its expiry is never taken: the one who asked has given up.
 */
export async function claimAction(
  db: Db,
  id: number,
  pbxs: readonly string[],
  now: number,
): Promise<{ pbx: string; fields: Record<string, string | number> } | undefined> {
  if (pbxs.length === 0) return undefined;
  const row = await db
    .updateTable('ami_actions')
    .set({ status: 'running' })
    .where('id', '=', id)
    .where('pbx', 'in', pbxs)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .returning(['pbx', 'fields'])
    .executeTakeFirst();
  return row && { pbx: row.pbx, fields: JSON.parse(row.fields) as Record<string, string | number> };
}

export async function finishAction(db: Db, id: number, error: string | null, now: number): Promise<void> {
  await db.updateTable('ami_actions').set({ status: 'done', error, done_at: now }).where('id', '=', id).execute();
}

export async function actionOutcome(db: Db, id: number): Promise<{ status: AmiActionStatus; error: string | null } | undefined> {
  return db.selectFrom('ami_actions').select(['status', 'error']).where('id', '=', id).executeTakeFirst();
}

/** Deletes the actions asked before `before` (done or given up): the table holds only the last day's. */
export async function forgetActions(db: Db, before: number): Promise<number> {
  const res = await db.deleteFrom('ami_actions').where('requested_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
