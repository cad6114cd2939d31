import { type Db, transaction } from '../../db/database';
import { badRequest, conflict, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { inScope, listScope, requireTenant } from '../../access/scope';
import { isBranchOfTenant } from '../branches/branches.repository';
import {
  toPhoneNumber,
  toPhoneNumberRecord,
  type ApiPhoneNumber,
  type ApiPhoneNumberRecord,
  type PhoneNumberFilters,
} from './phone-number';
import { isExtensionOfTenant } from '../extensions/extensions.repository';
import {
  deletePhoneNumber,
  findPhoneNumber,
  insertPhoneNumber,
  listPhoneNumbers,
  phoneDestinations,
  phoneNumberByNumber,
  setRegisteredCnam,
} from './phone-numbers.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface PhoneNumberDeps {
  readonly db: Db;
}

export async function listNumbers(
  deps: PhoneNumberDeps,
  caller: Caller,
  q: PhoneNumberFilters & PageQuery,
): Promise<Page<ApiPhoneNumberRecord>> {
  const { db } = deps;
  const scope = listScope(caller.scope, q.tenantId);
  const { rows, total } = await listPhoneNumbers(db, scope, q, pageWindow(q));
  return pageOf(rows.map(toPhoneNumberRecord), total, q);
}

export async function getNumber(deps: PhoneNumberDeps, caller: Caller, id: number): Promise<ApiPhoneNumber> {
  const { db } = deps;
  const row = await findPhoneNumber(db, caller.scope, id);
  if (!row) throw notFound(`Phone number ${id}`);
  return toPhoneNumber(row, await phoneDestinations(db, id));
}

/** decisions.md §3: the caller ID name is the number's registered CNAM; both forms show it. */
export async function setCallerIdName(deps: PhoneNumberDeps, caller: Caller, id: number, callerIdName: string): Promise<ApiPhoneNumber> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    if (!(await setRegisteredCnam(trx, caller.scope, id, callerIdName))) throw notFound(`Phone number ${id}`);
    return getNumber({ ...deps, db: trx }, caller, id);
  });
}

/**
 * Adds a number to a tenant (an addition to the hosted API): its branch and SMS extension must be the
 * tenant's (400), the number unique on the server (409).
 */
export async function createNumber(
  deps: PhoneNumberDeps,
  caller: Caller,
  input: SchemaTypes['phone-number-create'],
): Promise<ApiPhoneNumber> {
  const { db } = deps;
  requireTenant(caller.scope, input.tenantId);
  return transaction(db, async (trx) => {
    const problems: string[] = [];
    if (!(await isBranchOfTenant(trx, input.tenantId, input.branchId)))
      problems.push(`branchId: branch ${input.branchId} is not a branch of tenant ${input.tenantId}`);
    if (!(await isExtensionOfTenant(trx, input.tenantId, input.smsExtId)))
      problems.push(`smsExtId: extension ${input.smsExtId} is not an extension of tenant ${input.tenantId}`);
    if (problems.length > 0) throw badRequest(problems);
    const taken = await phoneNumberByNumber(trx, input.number);
    // Numbers are unique on the server: the record is named only when the caller reaches it.
    if (taken)
      throw conflict(
        `The number ${input.number} is ${inScope(caller.scope, taken.tenant_id) ? `already phone number ${taken.id}` : 'already taken on this server'}`,
      );
    return getNumber({ ...deps, db: trx }, caller, await insertPhoneNumber(trx, input));
  });
}

/** Deletes a number with its destinations (they cascade); returns its detail record as it was. */
export async function removeNumber(deps: PhoneNumberDeps, caller: Caller, id: number): Promise<ApiPhoneNumber> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    const number = await getNumber({ ...deps, db: trx }, caller, id);
    await deletePhoneNumber(trx, requireTenant(caller.scope, number.tenant.id), id);
    return number;
  });
}
