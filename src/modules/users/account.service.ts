import type { Caller } from '../../access/caller';
import type { Db } from '../../db/database';
import { notAuthenticated } from '../../errors';
import { updateOwnSettings, type OwnSettings } from './users.repository';

/** What the signed-in user's settings use (docs/architecture.md, "The service shape"). */
export interface AccountDeps {
  readonly db: Db;
}

/**
 * PATCH /v2/users/user-settings/...: sets the columns of the signed-in user's row that the body's fields name
 * (`columns`: field → column; a boolean is stored as 0/1) and answers with the body as given.
 */
export async function changeOwnSettings<B extends object>(
  deps: AccountDeps,
  caller: Caller,
  columns: Readonly<Record<string, keyof OwnSettings>>,
  body: B,
): Promise<B> {
  const given = body as Record<string, unknown>;
  const set: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(columns))
    set[column] = typeof given[field] === 'boolean' ? Number(given[field]) : given[field];
  if (!(await updateOwnSettings(deps.db, caller.user.id, set as OwnSettings))) throw notAuthenticated();
  return body;
}
