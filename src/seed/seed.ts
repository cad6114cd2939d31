import { readFile } from 'node:fs/promises';
import { type Db, transaction } from '../db/database';
import { advanceIds } from '../db/ids';
import type { NewUser } from '../db/schema';
import { AppError } from '../errors';
import type { Validator } from '../validation/validation';
import { insertCampaign } from '../modules/call-campaigns/call-campaigns.repository';
import { insertLocation } from '../modules/emergency-locations/emergency-locations.repository';
import { insertExtension } from '../modules/extensions/extensions.repository';
import { insertPhoneNumber } from '../modules/phone-numbers/phone-numbers.repository';
import { insertQueue } from '../modules/queues/queues.repository';
import { insertSavedFilter } from '../modules/saved-filters/saved-filters.repository';
import { insertTenant } from '../modules/tenants/tenants.repository';
import { hashPassword } from '../modules/auth/passwords';
import { insertUser } from '../modules/users/users.repository';
import { PROFILE_COLUMNS } from '../modules/auth/user';
import { insertWebhook } from '../modules/webhooks/webhooks.repository';
import { registerWebhookTypeFormat } from '../modules/webhooks/webhooks.service';
import { insertBranch } from '../modules/branches/branches.repository';
import { colonAfterField, fixtureProblems } from './checks';
import { FIXTURE_KEYS, type Fixture, type FixtureUser } from './fixture';

/** A fixture that cannot be loaded: every problem, as `key[index].field: what is wrong`. Nothing was written. */
export class SeedError extends Error {
  constructor(readonly problems: string[]) {
    super(`the fixture was not loaded (nothing was written):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export type SeedSummary = Record<(typeof FIXTURE_KEYS)[number], number>;

export async function readFixtureFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SeedError([`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SeedError([`${path}: not valid JSON (${(err as Error).message})`]);
  }
}

/**
 * Loads a fixture (docs/fixture-format.md) in one transaction: ids kept, passwords hashed, every broken
 * rule reported at once, nothing written on failure.
 */
export async function seedFixture(database: { readonly db: Db }, validator: Validator, data: unknown, now: Date): Promise<SeedSummary> {
  let fx: Fixture;
  try {
    registerWebhookTypeFormat(); // the fixture's webhooks name their types (a format the webhooks module knows)
    fx = validator.body('fixture', structuredClone(data));
  } catch (err) {
    if (err instanceof AppError && err.validationErrors) throw new SeedError(err.validationErrors.map(colonAfterField));
    throw err;
  }
  // Hashing is slow on purpose: do it before taking the write lock.
  const hashes = await Promise.all((fx.users ?? []).map((u) => hashPassword(u.password)));
  const createdAt = now.toISOString();

  return transaction(database.db, async (trx) => {
    const problems = await fixtureProblems(trx, validator, fx);
    if (problems.length > 0) throw new SeedError(problems);
    const step = async <T>(key: keyof Fixture, list: readonly T[] | undefined, insert: (rec: T, i: number) => Promise<unknown>) => {
      for (const [i, rec] of (list ?? []).entries()) {
        try {
          await insert(rec, i);
        } catch (err) {
          throw new SeedError([`${key}[${i}]: could not be stored (${(err as { code?: string }).code ?? 'error'})`]);
        }
      }
    };
    await step('tenants', fx.tenants, (t) => insertTenant(trx, t));
    await step('branches', fx.branches, (b) =>
      insertBranch(trx, { id: b.id, tenant_id: b.tenantId, name: b.name, timezone: b.timezone ?? 'UTC', is_default: b.default ?? 0 }),
    );
    await step('users', fx.users, (u, i) => insertUser(trx, userRow(u, hashes[i] as string, createdAt)));
    await step('extensions', fx.extensions, (e) => insertExtension(trx, e));
    await step('queues', fx.queues, (q) => insertQueue(trx, q));
    await step('phoneNumbers', fx.phoneNumbers, (p) => insertPhoneNumber(trx, p));
    await step('emergencyLocations', fx.emergencyLocations, (l) => insertLocation(trx, l));
    await step('callCampaigns', fx.callCampaigns, (c) => insertCampaign(trx, c));
    await step('webhooks', fx.webhooks, (w) => insertWebhook(trx, w, createdAt));
    await step('savedFilters', fx.savedFilters, (f) => insertSavedFilter(trx, f, createdAt));
    await advanceIds(trx); // PostgreSQL: the next rows numbered by the database come after the fixture's ids
    return Object.fromEntries(FIXTURE_KEYS.map((k) => [k, fx[k]?.length ?? 0])) as SeedSummary;
  });
}

function userRow(u: FixtureUser, passwordHash: string, createdAt: string): NewUser {
  const row: Record<string, unknown> = {
    id: u.id,
    tenant_id: u.tenantId,
    branch_id: u.branchId ? u.branchId : null,
    email: u.email,
    password_hash: passwordHash,
    user_role: u.userRole,
    partner_id: u.partnerId ?? 0,
    permissions: JSON.stringify(u.permissions ?? []),
    mfa_app_secret: typeof u.mfaAppSecret === 'string' ? u.mfaAppSecret.toUpperCase() : '',
    peer_secret: typeof u.peerSecret === 'string' ? u.peerSecret : '',
    created_at: createdAt,
  };
  for (const [field, column] of Object.entries(PROFILE_COLUMNS)) {
    if (u[field] !== undefined) row[column] = u[field];
  }
  return row as unknown as NewUser;
}
