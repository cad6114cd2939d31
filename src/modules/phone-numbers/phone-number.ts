import type { ResponseBody } from '../../http/route';
import type { Selectable } from 'kysely';
import type { PhoneDestinationList, PhoneNumberTable } from '../../db/schema';
import type { Destination } from '../destinations';

/** A phone number row with the names of its tenant, branch and SMS extension. */
export interface PhoneNumberRow extends Selectable<PhoneNumberTable> {
  tenant_name: string;
  branch_name: string;
  sms_ext_name: string;
}

/** The flat list record of api.md §2.3 (schemas/phone-number-record.json). */
export type ApiPhoneNumberRecord = ResponseBody<'phone-number-record'>;

/** The nested detail record of api.md §2.3 (schemas/phone-number.json). */
export type ApiPhoneNumber = ResponseBody<'phone-number'>;

export interface PhoneNumberFilters {
  tenantId?: number;
  number?: string;
  branchId?: number;
  fax?: number;
}

export type PhoneDestinations = Readonly<Record<PhoneDestinationList, Destination[]>>;

// api.md types every text field of the list record as a string and the two flags as "0"/"1" (decisions.md §3).
const text = (v: string | null) => v ?? '';
const flagText = (v: number | null) => (v === 1 ? '1' : '0');

export function toPhoneNumberRecord(r: Selectable<PhoneNumberTable>): ApiPhoneNumberRecord {
  return {
    id: r.id,
    number: r.number,
    registeredCNAM: text(r.registered_cnam),
    tenantId: r.tenant_id,
    branchId: r.branch_id,
    diCommentName: text(r.di_comment_name),
    recording: text(r.recording),
    fax: text(r.fax),
    faxEmail: text(r.fax_email),
    faxStore: flagText(r.fax_store),
    namePrefix: text(r.name_prefix),
    unconditionalStatus: flagText(r.unconditional_status),
    emailRecording: text(r.email_recording),
    storeAndForwardNumber: text(r.store_and_forward_number),
    smsExtId: r.sms_ext_id,
  };
}

export function toPhoneNumber(r: PhoneNumberRow, d: PhoneDestinations): ApiPhoneNumber {
  return {
    id: r.id,
    number: r.number,
    registeredCNAM: r.registered_cnam,
    tenant: { id: r.tenant_id, name: r.tenant_name },
    branch: { id: r.branch_id, name: r.branch_name },
    diCommentName: r.di_comment_name,
    recording: r.recording,
    fax: r.fax,
    faxEmail: r.fax_email,
    faxStore: r.fax_store,
    namePrefix: r.name_prefix,
    unconditionalStatus: r.unconditional_status,
    emailRecording: r.email_recording,
    storeAndForwardNumber: r.store_and_forward_number,
    smsExt: { id: r.sms_ext_id, name: r.sms_ext_name },
    routingDestinations: d.routing,
    forwardingDestinations: d.forwarding,
    smsDestinations: d.sms,
  };
}
