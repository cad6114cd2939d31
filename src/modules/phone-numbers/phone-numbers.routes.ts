import type { AppDeps } from '../../deps';
import type { PageQuery } from '../../access/paging';
import { route, type RouteDef } from '../../http/route';
import type { PhoneNumberFilters } from './phone-number';
import { getNumber, listNumbers, setCallerIdName } from './phone-numbers.service';

export function phoneNumberRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  const tag = 'Phone numbers';
  return [
    route<unknown, PhoneNumberFilters & PageQuery>({
      method: 'get',
      path: '/v2/admin/phone-numbers',
      tag,
      summary: 'List phone numbers (filters tenantId, number, branchId, fax; paged)',
      permission: 'admin.phone-numbers.read',
      query: 'phone-number-query',
      response: 'phone-number-page',
      handler: ({ caller, query }) => listNumbers(db, caller, query),
    }),
    route<{ callerIdName: string }, unknown, { id: number }>({
      method: 'patch',
      path: '/v2/admin/phone-numbers/caller-id-name/:id',
      tag,
      summary: "Change a phone number's caller ID name (its registered CNAM)",
      permission: 'admin.phone-numbers.update',
      params: 'path-params',
      body: 'caller-id-name',
      response: 'phone-number',
      handler: ({ caller, params, body }) => setCallerIdName(db, caller, params.id, body.callerIdName),
    }),
    route<unknown, unknown, { id: number }>({
      method: 'get',
      path: '/v2/admin/phone-numbers/:id',
      tag,
      summary: 'Read one phone number (detail record)',
      addition: true,
      permission: 'admin.phone-numbers.read',
      params: 'path-params',
      response: 'phone-number',
      handler: ({ caller, params }) => getNumber(db, caller, params.id),
    }),
  ];
}
