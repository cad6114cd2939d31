import type { Screen } from './router';
import { SignIn } from './screens/sign-in';

/**
 * Every screen of the console, in menu order. A new screen is one entry here (part 2's reports, directory and
 * PBX screens: `load: () => import('./screens/…')`, so their code and chart library load only when opened).
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
  },
  {
    path: '/wallboard/links',
    title: 'TV links',
    load: () => import('./screens/wallboard-links'),
    permission: 'reporting.wallboards.manage',
    nav: 'TV links',
  },
  {
    path: '/reports/queues',
    title: 'Queue statistics',
    load: () => import('./screens/queue-stats'),
    permission: 'reporting.queues.read',
    nav: 'Statistics',
  },
  {
    path: '/reports/service-level',
    title: 'Service level',
    load: () => import('./screens/service-level'),
    permission: 'reporting.queues.read',
    nav: 'Service level',
  },
  {
    path: '/reports/lost-calls',
    title: 'Lost callers',
    load: () => import('./screens/lost-calls'),
    permission: 'reporting.queues.read',
    nav: 'Lost callers',
  },
  {
    path: '/reports/agents',
    title: 'Agents',
    load: () => import('./screens/agents'),
    permission: 'reporting.queues.read',
    nav: 'Agents',
  },
  {
    path: '/reports/agent-sessions',
    title: 'Agent sessions',
    load: () => import('./screens/agent-sessions'),
    permission: 'reporting.queues.read',
    nav: 'Sessions',
  },
  {
    path: '/reports/agent-availability',
    title: 'Agent availability',
    load: () => import('./screens/agent-availability'),
    permission: 'reporting.queues.read',
    nav: 'Availability',
  },
  {
    path: '/reports/saved',
    title: 'Saved reports',
    load: () => import('./screens/saved-reports'),
    permission: 'reporting.saved.read',
    nav: 'Saved',
  },
  {
    path: '/pbx/links',
    title: 'AMI links',
    load: () => import('./screens/pbx-links'),
    permission: 'reporting.queues.read',
    nav: 'AMI links',
  },
  {
    path: '/pbx/imports',
    title: 'Recent imports',
    load: () => import('./screens/pbx-imports'),
    permission: 'reporting.logs.ingest',
    nav: 'Imports',
  },
  {
    // The API answers platform admins only; the menu leaves it out for roles that cannot manage tenants at all.
    path: '/pbx/sync',
    title: 'Config sync',
    load: () => import('./screens/pbx-sync'),
    permission: 'admin.tenants.create',
    nav: 'Config sync',
  },
  { path: '/account', title: 'Account', load: () => import('./screens/account'), nav: 'Account' },
];

/** Where `/` leads once signed in: the first screen of the menu the user may open. */
export function homeOf(can: (permission: string) => boolean): string {
  return SCREENS.find((s) => s.nav && (!s.permission || can(s.permission)))?.path ?? '/account';
}
