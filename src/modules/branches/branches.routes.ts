import type { AppDeps } from '../../deps';
import { route, type RouteDef } from '../../http/route';
import type { BranchCreate } from './branch';
import type { PageQuery } from '../../access/paging';
import { branchPage, createBranch, getBranch } from './branches.service';

export function branchRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  return [
    route<BranchCreate>({
      method: 'post',
      path: '/v2/admin/branches',
      tag: 'Branches',
      summary: 'Create a branch',
      permission: 'admin.branches.create',
      body: 'branch-create',
      response: 'branch',
      handler: ({ caller, body }) => createBranch(db, caller, body),
    }),
    route<unknown, { tenantId?: number } & PageQuery>({
      method: 'get',
      path: '/v2/admin/branches',
      tag: 'Branches',
      summary: 'List branches, paged',
      addition: true,
      permission: 'admin.branches.read',
      query: 'list-query',
      response: 'branch-page',
      handler: ({ caller, query }) => branchPage(db, caller, query),
    }),
    route<unknown, unknown, { id: number }>({
      method: 'get',
      path: '/v2/admin/branches/:id',
      tag: 'Branches',
      summary: 'Read one branch',
      addition: true,
      permission: 'admin.branches.read',
      params: 'path-params',
      response: 'branch',
      handler: ({ caller, params }) => getBranch(db, caller, params.id),
    }),
  ];
}
