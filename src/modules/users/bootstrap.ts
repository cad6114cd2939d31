import type { Db } from '../../db/database';
import { generatePassword, hashPassword } from '../auth/passwords';
import { countUsers, insertUser } from './users.repository';

export interface FirstAdmin {
  email: string;
  /** Set only when the password was generated: the caller shows it once. */
  generatedPassword: string | undefined;
}

/**
 * On a database without users, creates the first platform administrator (role 1) with the configured
 * e-mail and password, or a generated password. It belongs to the first tenant, or to a new tenant
 * "Default" when there is none. Returns undefined when users already exist.
 */
export async function ensureFirstAdmin(db: Db, email: string, password: string | undefined, now: Date): Promise<FirstAdmin | undefined> {
  if ((await countUsers(db)) > 0) return undefined;
  const plain = password ?? generatePassword();
  const hash = await hashPassword(plain);
  return db.transaction().execute(async (trx) => {
    if ((await countUsers(trx)) > 0) return undefined; // another process was quicker
    let tenant = await trx.selectFrom('tenants').select('id').orderBy('id').executeTakeFirst();
    tenant ??= await trx.insertInto('tenants').values({ name: 'Default', partner_id: 0 }).returning('id').executeTakeFirstOrThrow();
    await insertUser(trx, {
      tenant_id: tenant.id,
      branch_id: null,
      email,
      password_hash: hash,
      user_role: 1,
      title: 'Platform administrator',
      created_at: now.toISOString(),
    });
    return { email, generatedPassword: password ? undefined : plain };
  });
}
