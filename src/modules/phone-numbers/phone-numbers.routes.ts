import { route, type RouteDef } from '../../http/route';
import { createNumber, getNumber, listNumbers, removeNumber, setCallerIdName, type PhoneNumberDeps } from './phone-numbers.service';

export function phoneNumberRoutes(deps: PhoneNumberDeps): RouteDef[] {
  const tag = 'Phone numbers';
  return [
    route({
      method: 'post',
      path: '/v2/admin/phone-numbers',
      tag,
      summary: 'Add a phone number to a tenant',
      addition: true,
      permission: 'admin.phone-numbers.create',
      body: 'phone-number-create',
      response: 'phone-number',
      handler: ({ caller, body }) => createNumber(deps, caller, body),
    }),
    route({
      method: 'delete',
      path: '/v2/admin/phone-numbers/:id',
      tag,
      summary: 'Delete a phone number with its destinations',
      addition: true,
      permission: 'admin.phone-numbers.delete',
      params: 'id-params',
      response: 'phone-number',
      handler: ({ caller, params }) => removeNumber(deps, caller, params.id),
    }),
    route({
      method: 'get',
      path: '/v2/admin/phone-numbers',
      tag,
      summary: 'List phone numbers (filters tenantId, number, branchId, fax; paged)',
      permission: 'admin.phone-numbers.read',
      query: 'phone-number-query',
      response: 'phone-number-page',
      handler: ({ caller, query }) => listNumbers(deps, caller, query),
    }),
    route({
      method: 'patch',
      path: '/v2/admin/phone-numbers/caller-id-name/:id',
      tag,
      summary: "Change a phone number's caller ID name (its registered CNAM)",
      permission: 'admin.phone-numbers.update',
      params: 'id-params',
      body: 'caller-id-name',
      response: 'phone-number',
      handler: ({ caller, params, body }) => setCallerIdName(deps, caller, params.id, body.callerIdName),
    }),
    route({
      method: 'get',
      path: '/v2/admin/phone-numbers/:id',
      tag,
      summary: 'Read one phone number (detail record)',
      addition: true,
      permission: 'admin.phone-numbers.read',
      params: 'id-params',
      response: 'phone-number',
      handler: ({ caller, params }) => getNumber(deps, caller, params.id),
    }),
  ];
}
