import type { Screen } from './router';
import { SignIn } from './screens/sign-in';

/**
 * Every screen of the console, in menu order. A new screen is one entry here, `load: () => import('./screens/…')` so
 * that its code (and a report's chart library) loads only when opened, with `group` naming its menu group: Live,
 * Reports, Directory, PBX.
 */
export const SCREENS: readonly Screen[] = [
  { path: '/sign-in', title: 'Sign in', component: SignIn, public: true },
  { path: '/tv', title: 'Wallboard', load: () => import('./screens/tv'), public: true, bare: true },
  {
    path: '/wallboard',
    title: 'Wallboard',
    load: () => import('./screens/wallboard'),
    permission: 'reporting.queues.read',
    nav: 'Wallboard',
    group: 'Live',
  },
  {
    path: '/wallboard/links',
    title: 'TV links',
    load: () => import('./screens/wallboard-links'),
    permission: 'reporting.wallboards.manage',
    nav: 'TV links',
    group: 'Live',
  },
  {
    path: '/reports/queues',
    title: 'Queue statistics',
    load: () => import('./screens/queue-stats'),
    permission: 'reporting.queues.read',
    nav: 'Queue statistics',
    group: 'Reports',
  },
  {
    path: '/reports/service-level',
    title: 'Service level',
    load: () => import('./screens/service-level'),
    permission: 'reporting.queues.read',
    nav: 'Service level',
    group: 'Reports',
  },
  {
    path: '/reports/lost-calls',
    title: 'Lost callers',
    load: () => import('./screens/lost-calls'),
    permission: 'reporting.queues.read',
    nav: 'Lost callers',
    group: 'Reports',
  },
  {
    path: '/reports/agents',
    title: 'Agents',
    load: () => import('./screens/agents'),
    permission: 'reporting.queues.read',
    nav: 'Agents',
    group: 'Reports',
  },
  {
    path: '/reports/agent-sessions',
    title: 'Agent sessions',
    load: () => import('./screens/agent-sessions'),
    permission: 'reporting.queues.read',
    nav: 'Agent sessions',
    group: 'Reports',
  },
  {
    path: '/reports/agent-availability',
    title: 'Agent availability',
    load: () => import('./screens/agent-availability'),
    permission: 'reporting.queues.read',
    nav: 'Agent availability',
    group: 'Reports',
  },
  {
    path: '/reports/saved',
    title: 'Saved reports',
    load: () => import('./screens/saved-reports'),
    permission: 'reporting.saved.read',
    nav: 'Saved reports',
    group: 'Reports',
  },
  {
    path: '/directory/tenants',
    title: 'Tenants',
    load: () => import('./screens/tenants'),
    permission: 'admin.tenants.read',
    nav: 'Tenants',
    group: 'Directory',
  },
  {
    path: '/directory/branches',
    title: 'Branches',
    load: () => import('./screens/branches'),
    permission: 'admin.branches.read',
    nav: 'Branches',
    group: 'Directory',
  },
  {
    path: '/directory/extensions',
    title: 'Extensions',
    load: () => import('./screens/extensions'),
    permission: 'admin.extensions.read',
    nav: 'Extensions',
    group: 'Directory',
  },
  {
    path: '/directory/queues',
    title: 'Queues',
    load: () => import('./screens/queues'),
    permission: 'admin.queues.read',
    nav: 'Queues',
    group: 'Directory',
  },
  {
    path: '/directory/users',
    title: 'Users',
    load: () => import('./screens/users'),
    permission: 'admin.users.read',
    nav: 'Users',
    group: 'Directory',
  },
  {
    path: '/directory/phone-numbers',
    title: 'Phone numbers',
    load: () => import('./screens/phone-numbers'),
    permission: 'admin.phone-numbers.read',
    nav: 'Phone numbers',
    group: 'Directory',
  },
  {
    path: '/directory/e911',
    title: 'E911 locations',
    load: () => import('./screens/emergency-locations'),
    permission: 'admin.emergency-locations.read',
    nav: 'E911 locations',
    group: 'Directory',
  },
  {
    path: '/directory/webhooks',
    title: 'Webhooks',
    load: () => import('./screens/webhooks'),
    permission: 'webhooks.read',
    nav: 'Webhooks',
    group: 'Directory',
  },
  {
    path: '/pbx/links',
    title: 'AMI links',
    load: () => import('./screens/pbx-links'),
    permission: 'reporting.queues.read',
    nav: 'AMI links',
    group: 'PBX',
  },
  {
    path: '/pbx/imports',
    title: 'Recent imports',
    load: () => import('./screens/pbx-imports'),
    permission: 'reporting.logs.ingest',
    nav: 'Imports',
    group: 'PBX',
  },
  {
    // The API answers platform admins only; the menu leaves it out for roles that cannot manage tenants at all.
    path: '/pbx/sync',
    title: 'Config sync',
    load: () => import('./screens/pbx-sync'),
    permission: 'admin.tenants.create',
    nav: 'Config sync',
    group: 'PBX',
  },
  { path: '/account', title: 'Account', load: () => import('./screens/account'), nav: 'Account' },
];

/** Where `/` leads once signed in: the first screen of the menu the user may open. */
export function homeOf(can: (permission: string) => boolean): string {
  return SCREENS.find((s) => s.nav && (!s.permission || can(s.permission)))?.path ?? '/account';
}
