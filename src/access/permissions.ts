/**
 * Roles and permissions (decisions.md §5), in one place. A route names the one permission it needs
 * (`permission: 'admin.branches.create'`); the README's role table is generated from PERMISSIONS and
 * ROLES below (scripts/print-roles.ts), so the two cannot drift apart.
 *
 * Permission names are `<area>.<resource>.<action>`. In patterns, `*` matches one segment and `#` any
 * number of segments (including none); a pattern starting with `!` denies and wins over every grant.
 * A user's effective permissions are its role's defaults plus its own grants, minus its own denials.
 */
import { forbidden } from '../errors';

export const PERMISSIONS = {
  'reporting.saved.create': 'create a saved filter',
  'reporting.saved.read': 'list and read saved filters',
  'reporting.saved.update': 'change a saved filter',
  'reporting.saved.delete': 'delete a saved filter',
  'reporting.saved.run': 'run a saved filter now and e-mail the report',
  'reporting.queues.read': 'the queue reports: statistics, agent availability, service level, agents, lost calls, agent sessions',
  'reporting.calls.read': 'the calls report',
  'reporting.logs.ingest': 'send PBX log lines over HTTP',
  'reporting.wallboards.manage': "make, list and revoke read-only wallboard links (TV mode) to the live state of a tenant's queues",
  'admin.phone-numbers.read': 'list and read phone numbers',
  'admin.phone-numbers.update': 'change a caller ID name',
  'admin.phone-numbers.create': 'add a phone number',
  'admin.phone-numbers.delete': 'delete a phone number',
  'admin.emergency-locations.create': 'create an E911 location',
  'admin.emergency-locations.read': 'list and read E911 locations',
  'admin.emergency-locations.update': 'change an E911 location',
  'admin.emergency-locations.delete': 'delete an E911 location',
  'admin.call-campaigns.create': 'create a call campaign',
  'admin.call-campaigns.read': 'list and read call campaigns',
  'admin.call-campaigns.update': 'change a call campaign',
  'admin.call-campaigns.delete': 'delete a call campaign',
  'admin.tenants.create': 'create a tenant (platform admins; partner admins in their partner)',
  'admin.tenants.read': 'list and read tenants',
  'admin.tenants.update': 'change a tenant',
  'admin.tenants.delete': 'delete a tenant',
  'admin.users.create': 'create a user (with no role above the creator’s)',
  'admin.users.read': 'list and read users',
  'admin.users.update': "change a user's role, branch or extension; reset its MFA; e-mail it a password reset",
  'admin.users.delete': 'delete a user',
  'admin.extensions.create': 'create an extension',
  'admin.extensions.read': 'list and read extensions',
  'admin.extensions.update': "change an extension and its agent's aliases",
  'admin.extensions.delete': 'delete an extension',
  'admin.queues.create': 'create a queue',
  'admin.queues.read': 'list and read queues and their members',
  'admin.queues.update': 'change a queue and its static members',
  'admin.queues.delete': 'delete a queue',
  'queues.agents.manage':
    "log any agent of the tenant in or out of its queues, pause it, set its DND in a queue (one's own extension needs no permission)",
  'admin.branches.create': 'create a branch',
  'admin.branches.read': 'list and read branches',
  'admin.branches.update': 'change a branch',
  'admin.branches.delete': 'delete a branch',
  'webhooks.create': 'create a webhook',
  'webhooks.read': 'list and read webhooks, their signing secret and deliveries',
  'webhooks.update': 'change a webhook, rotate its secret or retry a failed delivery',
  'webhooks.delete': 'delete a webhook',
} as const;

export type Permission = keyof typeof PERMISSIONS;
export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

/** How far a role reaches across tenants. */
export type Reach = 'all' | 'partner' | 'own';

export type RoleName = 'PLATFORM_ADMIN' | 'PARTNER_ADMIN' | 'ACCOUNT_ADMIN' | 'REPORTS_ADMIN' | 'QUEUE_MANAGER' | 'BASIC_USER';

export interface Role {
  /** The number the hosted API and the users table carry (`userRole`); code names a role by its name (roleValue). */
  readonly value: number;
  readonly name: RoleName;
  readonly reach: Reach;
  /** Default permission patterns. */
  readonly grants: readonly string[];
}

export const ROLES: readonly Role[] = [
  { value: 1, name: 'PLATFORM_ADMIN', reach: 'all', grants: ['#'] },
  { value: 11, name: 'PARTNER_ADMIN', reach: 'partner', grants: ['#'] },
  // Tenants are above a tenant: an account admin manages everything in its own tenant, no tenant itself.
  { value: 3, name: 'ACCOUNT_ADMIN', reach: 'own', grants: ['#', '!admin.tenants.#'] },
  { value: 9, name: 'REPORTS_ADMIN', reach: 'own', grants: ['reporting.saved.*', 'reporting.queues.read', 'reporting.calls.read'] },
  {
    value: 7,
    name: 'QUEUE_MANAGER',
    reach: 'own',
    grants: ['reporting.queues.read', 'reporting.wallboards.manage', 'queues.agents.manage'],
  },
  { value: 5, name: 'BASIC_USER', reach: 'own', grants: [] },
];

export function roleOf(value: number): Role | undefined {
  return ROLES.find((r) => r.value === value);
}

/** The number of a role, by its name: code compares roles by name, never by number. */
export function roleValue(name: RoleName): number {
  return (ROLES.find((r) => r.name === name) as Role).value;
}

/**
 * Roles ranked by reach and power, by name: a caller gives no role above its own (users-admin), so nobody raises
 * its own role.
 */
const RANK: Readonly<Record<RoleName, number>> = {
  PLATFORM_ADMIN: 5,
  PARTNER_ADMIN: 4,
  ACCOUNT_ADMIN: 3,
  REPORTS_ADMIN: 2,
  QUEUE_MANAGER: 2,
  BASIC_USER: 1,
};

/** A role's rank by its name: an unknown number given ranks above everyone, an unknown caller's below. */
function rankOf(value: number, unknown: number): number {
  const role = roleOf(value);
  return role ? RANK[role.name] : unknown;
}

/** 403 when `role` is above the role of the one who gives it (`callerRole`). */
export function requireMayGiveRole(callerRole: number, role: number): void {
  if (rankOf(role, 99) > rankOf(callerRole, 0))
    throw forbidden(`Role ${roleOf(role)?.name ?? role} is above your own (${roleOf(callerRole)?.name ?? callerRole})`);
}

/** Does `pattern` (without a leading "!") match the permission `name`? */
export function matches(pattern: string, name: string): boolean {
  return matchSegments(pattern.split('.'), 0, name.split('.'), 0);
}

function matchSegments(p: string[], i: number, n: string[], j: number): boolean {
  if (i === p.length) return j === n.length;
  const seg = p[i];
  if (seg === '#') {
    for (let k = j; k <= n.length; k++) if (matchSegments(p, i + 1, n, k)) return true;
    return false;
  }
  if (j === n.length) return false;
  return (seg === '*' || seg === n[j]) && matchSegments(p, i + 1, n, j + 1);
}

/** The set of permissions a user holds: role defaults + own grants − own denials. */
export function effectivePermissions(roleValue: number, own: readonly string[]): ReadonlySet<Permission> {
  const patterns = [...(roleOf(roleValue)?.grants ?? []), ...own];
  const grants = patterns.filter((p) => !p.startsWith('!'));
  const denials = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  return new Set(ALL_PERMISSIONS.filter((perm) => grants.some((g) => matches(g, perm)) && !denials.some((d) => matches(d, perm))));
}

/** The user's own permission patterns (grants and "!" denials), as stored. */
export function ownPermissions(row: { readonly permissions: string }): string[] {
  try {
    const list: unknown = JSON.parse(row.permissions);
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
