import { roleValue } from '../../access/permissions';
import { transaction, type Db } from '../../db/database';
import { generatePassword, hashPassword } from '../auth/auth.service';
import { firstTenant, insertTenant } from '../tenants/tenants.repository';
import { countUsers, insertUser } from './users.repository';

export interface FirstAdmin {
  email: string;
  /** Set only when the password was generated: the caller shows it once. */
  generatedPassword: string | undefined;
}

/**
 * On a database without users, creates the first platform administrator with the configured e-mail and password,
 * or a generated password. It belongs to the first tenant, or to a new tenant "Default" when there is none.
 * Returns undefined when users already exist.
 */
export async function ensureFirstAdmin(db: Db, email: string, password: string | undefined, now: Date): Promise<FirstAdmin | undefined> {
  if ((await countUsers(db)) > 0) return undefined;
  const plain = password ?? generatePassword();
  const hash = await hashPassword(plain);
  return transaction(db, async (trx) => {
    if ((await countUsers(trx)) > 0) return undefined; // another process was quicker
    const tenantId = (await firstTenant(trx))?.id ?? (await insertTenant(trx, { name: 'Default', partnerId: 0 }));
    await insertUser(trx, {
      tenant_id: tenantId,
      branch_id: null,
      email,
      password_hash: hash,
      user_role: roleValue('PLATFORM_ADMIN'),
      title: 'Platform administrator',
      created_at: now.toISOString(),
    });
    return { email, generatedPassword: password ? undefined : plain };
  });
}
