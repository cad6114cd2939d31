import type { Db } from '../../db/database';
import { notFound } from '../../errors';
import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope } from '../../access/scope';
import {
  toPhoneNumber,
  toPhoneNumberRecord,
  type ApiPhoneNumber,
  type ApiPhoneNumberRecord,
  type PhoneNumberFilters,
} from './phone-number';
import { findPhoneNumber, listPhoneNumbers, phoneDestinations, setRegisteredCnam } from './phone-numbers.repository';

export async function listNumbers(db: Db, caller: Caller, q: PhoneNumberFilters & PageQuery): Promise<Page<ApiPhoneNumberRecord>> {
  const scope = listScope(caller.scope, q.tenantId);
  const { rows, total } = await listPhoneNumbers(db, scope, q, pageWindow(q));
  return pageOf(rows.map(toPhoneNumberRecord), total, q);
}

export async function getNumber(db: Db, caller: Caller, id: number): Promise<ApiPhoneNumber> {
  const row = await findPhoneNumber(db, caller.scope, id);
  if (!row) throw notFound(`Phone number ${id}`);
  return toPhoneNumber(row, await phoneDestinations(db, id));
}

/** decisions.md §3: the caller ID name is the number's registered CNAM; both forms show it. */
export async function setCallerIdName(db: Db, caller: Caller, id: number, callerIdName: string): Promise<ApiPhoneNumber> {
  return db.transaction().execute(async (trx) => {
    if (!(await setRegisteredCnam(trx, caller.scope, id, callerIdName))) throw notFound(`Phone number ${id}`);
    return getNumber(trx, caller, id);
  });
}
