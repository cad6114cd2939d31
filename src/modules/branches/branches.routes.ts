import type { AppDeps } from '../../deps';
import { route, type RouteDef } from '../../http/route';
import type { BranchCreate } from './branch';
import { createBranch } from './branches.service';

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
  ];
}
