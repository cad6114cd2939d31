import { route, type RouteDef } from '../../http/route';
import type { PasswordDeps } from '../auth/password.service';
import {
  changeUser,
  createUser,
  getUser,
  removeUser,
  resetUserMfa,
  sendUserPasswordReset,
  userPage,
  type UserAdminDeps,
} from './users-admin.service';

/** A tenant's users for its admins: an addition to the hosted API (docs/api.md "Directory"). */
export function userAdminRoutes(deps: UserAdminDeps & Omit<PasswordDeps, 'tokens'>): RouteDef[] {
  const tag = 'Directory';
  const path = '/v2/admin/users';
  return [
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create a user of a tenant',
      addition: true,
      permission: 'admin.users.create',
      body: 'user-create',
      response: 'user',
      handler: ({ caller, body }) => createUser(deps, caller, body),
    }),
    route({
      method: 'get',
      path,
      tag,
      summary: 'List users (filter tenantId; paged)',
      addition: true,
      permission: 'admin.users.read',
      query: 'list-query',
      response: 'user-page',
      handler: ({ caller, query }) => userPage(deps, caller, query),
    }),
    route({
      method: 'get',
      path: `${path}/:userId`,
      tag,
      summary: 'Read one user',
      addition: true,
      permission: 'admin.users.read',
      params: 'user-id-params',
      response: 'user',
      handler: ({ caller, params }) => getUser(deps, caller, params.userId),
    }),
    route({
      method: 'patch',
      path: `${path}/:userId`,
      tag,
      summary: "Change a user's role, branch or extension",
      addition: true,
      permission: 'admin.users.update',
      params: 'user-id-params',
      body: 'user-update',
      response: 'user',
      handler: ({ caller, params, body }) => changeUser(deps, caller, params.userId, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:userId`,
      tag,
      summary: 'Delete a user',
      addition: true,
      permission: 'admin.users.delete',
      params: 'user-id-params',
      response: 'user',
      handler: ({ caller, params }) => removeUser(deps, caller, params.userId),
    }),
    route({
      method: 'post',
      path: `${path}/:userId/mfa-reset`,
      tag,
      summary: "Reset a user's MFA (every mode forgotten, its sessions ended): for a user who lost its phone",
      addition: true,
      permission: 'admin.users.update',
      params: 'user-id-params',
      response: 'status-response',
      handler: ({ caller, params }) => resetUserMfa(deps, caller, params.userId),
    }),
    route({
      method: 'post',
      path: `${path}/:userId/password-reset`,
      tag,
      summary: 'E-mail a user a password-reset token (as its own request would)',
      addition: true,
      permission: 'admin.users.update',
      params: 'user-id-params',
      response: 'status-response',
      handler: ({ caller, params, ip }) => sendUserPasswordReset(deps, caller, params.userId, ip),
    }),
  ];
}
