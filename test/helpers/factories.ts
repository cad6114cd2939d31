import type { Insertable } from 'kysely';
import type { Db } from '../../src/db/database';
import type { UserTable } from '../../src/db/schema';
import { hashPassword } from '../../src/modules/auth/passwords';
import type { TestApp } from './app';

/*
 * Factories: each test builds the records it needs. Ids come from SQLite; names carry a counter so
 * that records of one test file never collide.
 */
let counter = 0;
const next = () => ++counter;

export const DEFAULT_PASSWORD = 'correct horse battery';
let defaultHash: Promise<string> | undefined;
/** scrypt is slow on purpose; factories share one hash of DEFAULT_PASSWORD. */
const hashOfDefault = () => (defaultHash ??= hashPassword(DEFAULT_PASSWORD));

export async function buildTenant(
  db: Db,
  over: { name?: string; partnerId?: number } = {},
): Promise<{ id: number; name: string; partnerId: number }> {
  const name = over.name ?? `Tenant ${next()}`;
  const partnerId = over.partnerId ?? 0;
  const row = await db.insertInto('tenants').values({ name, partner_id: partnerId }).returning('id').executeTakeFirstOrThrow();
  return { id: row.id, name, partnerId };
}

export async function buildBranch(db: Db, tenantId: number, over: { name?: string; timezone?: string; isDefault?: 0 | 1 } = {}) {
  const values = {
    tenant_id: tenantId,
    name: over.name ?? `Branch ${next()}`,
    timezone: over.timezone ?? 'UTC',
    is_default: over.isDefault ?? 0,
  };
  const row = await db.insertInto('branches').values(values).returning('id').executeTakeFirstOrThrow();
  return { id: row.id, ...values };
}

export interface BuiltUser {
  id: number;
  email: string;
  password: string;
  tenantId: number;
  role: number;
}

export async function buildUser(
  db: Db,
  tenantId: number,
  role: number,
  over: Partial<Insertable<UserTable>> & { password?: string } = {},
): Promise<BuiltUser> {
  const { password, ...columns } = over;
  const email = columns.email ?? `user${next()}@example.test`;
  const row = await db
    .insertInto('users')
    .values({
      tenant_id: tenantId,
      branch_id: null,
      user_role: role,
      created_at: new Date().toISOString(),
      ...columns,
      email,
      password_hash: password ? await hashPassword(password) : await hashOfDefault(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, email, password: password ?? DEFAULT_PASSWORD, tenantId, role };
}

/** An account admin of a new tenant whose MFA is an authenticator app with this TOTP secret. */
export async function buildAppMfaUser(db: Db, secret: string): Promise<BuiltUser> {
  const tenant = await buildTenant(db);
  return buildUser(db, tenant.id, ROLE.account, { mfa_enabled: 1, mfa_mode: 'app', mfa_app_secret: secret, mfa_app_verified: 1 });
}

/** An access token for a user without going through the (slow) login. */
export async function tokenFor(app: TestApp, user: { id: number }): Promise<string> {
  const row = await app.deps.database.db.selectFrom('users').select('token_version').where('id', '=', user.id).executeTakeFirstOrThrow();
  return app.deps.tokens.issue({ uid: user.id, ver: row.token_version });
}

/** Roles by name (decisions.md §5). */
export const ROLE = { platform: 1, partner: 11, account: 3, reports: 9, queues: 7, basic: 5 } as const;

/**
 * Two tenants of different partners, each with an account admin, plus a platform admin: the cast of
 * every "another tenant cannot read or change it" test.
 */
export async function twoTenants(app: TestApp) {
  const db = app.deps.database.db;
  const a = await buildTenant(db, { partnerId: 1 });
  const b = await buildTenant(db, { partnerId: 2 });
  const adminA = await buildUser(db, a.id, ROLE.account);
  const adminB = await buildUser(db, b.id, ROLE.account);
  const root = await buildUser(db, a.id, ROLE.platform);
  return {
    a,
    b,
    adminA,
    adminB,
    root,
    tokenA: await tokenFor(app, adminA),
    tokenB: await tokenFor(app, adminB),
    tokenRoot: await tokenFor(app, root),
  };
}
