import { route, type RouteDef } from '../../http/route';
import { branchPage, changeBranch, createBranch, getBranch, removeBranch, type BranchDeps } from './branches.service';

export function branchRoutes(deps: BranchDeps): RouteDef[] {
  return [
    route({
      method: 'post',
      path: '/v2/admin/branches',
      tag: 'Branches',
      summary: 'Create a branch',
      permission: 'admin.branches.create',
      body: 'branch-create',
      response: 'branch',
      handler: ({ caller, body }) => createBranch(deps, caller, body),
    }),
    route({
      method: 'get',
      path: '/v2/admin/branches',
      tag: 'Branches',
      summary: 'List branches, paged',
      addition: true,
      permission: 'admin.branches.read',
      query: 'list-query',
      response: 'branch-page',
      handler: ({ caller, query }) => branchPage(deps, caller, query),
    }),
    route({
      method: 'get',
      path: '/v2/admin/branches/:id',
      tag: 'Branches',
      summary: 'Read one branch',
      addition: true,
      permission: 'admin.branches.read',
      params: 'id-params',
      response: 'branch',
      handler: ({ caller, params }) => getBranch(deps, caller, params.id),
    }),
    route({
      method: 'patch',
      path: '/v2/admin/branches/:id',
      tag: 'Branches',
      summary: 'Change a branch (name, timezone, default)',
      addition: true,
      permission: 'admin.branches.update',
      params: 'id-params',
      body: 'branch-update',
      response: 'branch',
      handler: ({ caller, params, body }) => changeBranch(deps, caller, params.id, body),
    }),
    route({
      method: 'delete',
      path: '/v2/admin/branches/:id',
      tag: 'Branches',
      summary: 'Delete a branch that is not the default and that nothing refers to',
      addition: true,
      permission: 'admin.branches.delete',
      params: 'id-params',
      response: 'branch',
      handler: ({ caller, params }) => removeBranch(deps, caller, params.id),
    }),
  ];
}
