import type { Db } from '../db/database';
import { existingRecords } from './seed.repository';
import type { Validator } from '../validation/validation';
import { savedFilterProblems } from '../modules/saved-filters/saved-filter-rules';
import { FIXTURE_KEYS, type Fixture } from './fixture';
import { pbxNameKey } from '../pbx-name';

/**
 * The rules of a fixture that one schema cannot express: unique ids and keys (within the file and against
 * the database), and references that must point at an existing record of the same tenant. Every broken
 * rule is reported as `key[index].field: what is wrong`.
 */
export async function fixtureProblems(db: Db, validator: Validator, fx: Fixture): Promise<string[]> {
  const problems: string[] = [];
  const existing = await existingRecords(db);

  // Ids: unique within the key and new to the database.
  const tables: Record<(typeof FIXTURE_KEYS)[number], keyof typeof existing> = {
    tenants: 'tenants',
    branches: 'branches',
    users: 'users',
    extensions: 'extensions',
    queues: 'queues',
    phoneNumbers: 'phoneNumbers',
    emergencyLocations: 'emergencyLocations',
    callCampaigns: 'callCampaigns',
    webhooks: 'webhooks',
    savedFilters: 'savedFilters',
  };
  for (const key of FIXTURE_KEYS) {
    const seen = new Set<number>();
    (fx[key] ?? []).forEach((rec, i) => {
      if (seen.has(rec.id)) problems.push(`${key}[${i}].id: id ${rec.id} is given twice`);
      else if ((existing[tables[key]] as { has(id: number): boolean }).has(rec.id))
        problems.push(`${key}[${i}].id: a record with id ${rec.id} already exists in the database`);
      seen.add(rec.id);
    });
  }

  // Tenant of each record that others point at: from the file, else from the database.
  const tenantOf = (key: 'tenants' | 'branches' | 'users' | 'extensions') => {
    const m = new Map<number, number>(existing[key]);
    for (const r of fx[key] ?? []) m.set(r.id, key === 'tenants' ? r.id : (r as { tenantId: number }).tenantId);
    return m;
  };
  const tenants = tenantOf('tenants');
  const branches = tenantOf('branches');
  const users = tenantOf('users');
  const extensions = tenantOf('extensions');

  const refer = (where: string, what: string, id: number, map: Map<number, number>, tenantId?: number) => {
    const owner = map.get(id);
    if (owner === undefined) problems.push(`${where}: no ${what} with id ${id}`);
    else if (tenantId !== undefined && owner !== tenantId)
      problems.push(`${where}: ${what} ${id} belongs to tenant ${owner}, not to tenant ${tenantId}`);
  };
  for (const key of FIXTURE_KEYS) {
    if (key === 'tenants') continue;
    (fx[key] ?? []).forEach((rec, i) => refer(`${key}[${i}].tenantId`, 'tenant', (rec as { tenantId: number }).tenantId, tenants));
  }
  (fx.users ?? []).forEach((u, i) => {
    if (u.branchId) refer(`users[${i}].branchId`, 'branch', u.branchId, branches, u.tenantId);
  });
  (fx.phoneNumbers ?? []).forEach((p, i) => {
    refer(`phoneNumbers[${i}].branchId`, 'branch', p.branchId, branches, p.tenantId);
    refer(`phoneNumbers[${i}].smsExtId`, 'extension', p.smsExtId, extensions, p.tenantId);
  });
  (fx.savedFilters ?? []).forEach((f, i) => refer(`savedFilters[${i}].userId`, 'user', f.userId, users));

  // Unique keys other than ids.
  const unique = <T>(
    key: string,
    field: string,
    list: readonly T[] | undefined,
    value: (r: T) => string,
    taken: Set<string>,
    what: string,
  ) => {
    const seen = new Set<string>();
    (list ?? []).forEach((r, i) => {
      const v = value(r);
      if (seen.has(v) || taken.has(v))
        problems.push(`${key}[${i}].${field}: ${what} ${JSON.stringify(v.split('\u0000').pop())} is already used`);
      seen.add(v);
    });
  };
  unique('users', 'email', fx.users, (u) => u.email.toLowerCase(), existing.emails, 'e-mail');
  unique('extensions', 'extNum', fx.extensions, (e) => `${e.tenantId}\u0000${e.extNum}`, existing.extNums, 'extension number');
  unique('extensions', 'peerName', fx.extensions, (e) => `${e.tenantId}\u0000${e.peerName}`, existing.peerNames, 'peer name');
  // Without case, as Asterisk looks queues up (reporting.md R2).
  unique('queues', 'logName', fx.queues, (q) => pbxNameKey(q.logName), existing.logNames, 'queue log name');
  // An alias names one agent: never another extension's peerName or alias in the tenant (R14).
  const names = new Map<string, number>();
  for (const [i, e] of (fx.extensions ?? []).entries()) names.set(`${e.tenantId}\u0000${e.peerName}`, i);
  for (const [i, e] of (fx.extensions ?? []).entries()) {
    for (const alias of e.agentAliases ?? []) {
      const key = `${e.tenantId}\u0000${alias}`;
      const owner = names.get(key);
      if (owner !== undefined && owner !== i)
        problems.push(`extensions[${i}].agentAliases: ${JSON.stringify(alias)} already names extensions[${owner}]`);
      names.set(key, i);
    }
  }
  unique('phoneNumbers', 'number', fx.phoneNumbers, (p) => p.number, existing.numbers, 'number');

  const groupIds = new Set<number>();
  (fx.emergencyLocations ?? []).forEach((l, i) =>
    (l.notificationGroups ?? []).forEach((g, j) => {
      if (g.id === undefined) return;
      if (groupIds.has(g.id) || existing.groupIds.has(g.id))
        problems.push(`emergencyLocations[${i}].notificationGroups[${j}].id: id ${g.id} is already used`);
      groupIds.add(g.id);
    }),
  );
  // The rules of the API's saved filters hold for seeded ones too.
  (fx.savedFilters ?? []).forEach((f, i) =>
    problems.push(...savedFilterProblems(validator, f).map((p) => `savedFilters[${i}].${colonAfterField(p)}`)),
  );
  return problems;
}

/** "users[3].email must be …" → "users[3].email: must be …" (key, index and field first). */
export function colonAfterField(problem: string): string {
  return problem.replace(/^(\S+) /, '$1: ');
}
