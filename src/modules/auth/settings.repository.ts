import type { Db } from '../../db/database';

/* tars_settings (db/migrations/2026-11-27T1800_several_instances.ts): values every instance of one database shares. */

/** Writes `value` under `name` unless a value is there already (the first writer wins, whoever races it). */
export async function insertSettingIfAbsent(db: Db, name: string, value: string): Promise<void> {
  await db
    .insertInto('tars_settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** The value stored under `name`, if any. */
export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('tars_settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Every setting, by name order. */
export function allSettings(db: Db): Promise<{ name: string; value: string }[]> {
  return db.selectFrom('tars_settings').select(['name', 'value']).orderBy('name').execute();
}

/** Writes each setting, replacing a value stored under its name. */
export async function upsertSettings(db: Db, rows: readonly { name: string; value: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('tars_settings')
    .values([...rows])
    .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
    .execute();
}
