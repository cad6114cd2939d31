import type { Db } from '../../db/database';
import type { PhoneDestinationList } from '../../db/schema';
import { toDestinationColumns, type Destination } from '../destinations';

/** The phone-number detail record with tenantId, branchId and smsExtId instead of the nested objects. */
export interface PhoneNumberInput {
  id?: number;
  tenantId: number;
  branchId: number;
  number: string;
  registeredCNAM?: string | null;
  diCommentName?: string | null;
  recording?: string | null;
  fax?: string | null;
  faxEmail?: string | null;
  faxStore?: number | null;
  namePrefix?: string | null;
  unconditionalStatus?: number | null;
  emailRecording?: string | null;
  storeAndForwardNumber?: string | null;
  smsExtId: number;
  routingDestinations?: Destination[];
  forwardingDestinations?: Destination[];
  smsDestinations?: Destination[];
}

export const PHONE_DESTINATION_LISTS: ReadonlyArray<[PhoneDestinationList, 'routingDestinations' | 'forwardingDestinations' | 'smsDestinations']> = [
  ['routing', 'routingDestinations'],
  ['forwarding', 'forwardingDestinations'],
  ['sms', 'smsDestinations'],
];

export async function insertPhoneNumber(db: Db, input: PhoneNumberInput): Promise<number> {
  const row = await db
    .insertInto('phone_numbers')
    .values({
      id: input.id,
      tenant_id: input.tenantId,
      branch_id: input.branchId,
      number: input.number,
      registered_cnam: input.registeredCNAM ?? null,
      di_comment_name: input.diCommentName ?? null,
      recording: input.recording ?? null,
      fax: input.fax ?? null,
      fax_email: input.faxEmail ?? null,
      fax_store: input.faxStore ?? null,
      name_prefix: input.namePrefix ?? null,
      unconditional_status: input.unconditionalStatus ?? null,
      email_recording: input.emailRecording ?? null,
      store_and_forward_number: input.storeAndForwardNumber ?? null,
      sms_ext_id: input.smsExtId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const destinations = PHONE_DESTINATION_LISTS.flatMap(([list, key]) =>
    (input[key] ?? []).map((d, i) => ({ phone_number_id: row.id, list, ...toDestinationColumns(d, i) })),
  );
  if (destinations.length > 0) await db.insertInto('phone_number_destinations').values(destinations).execute();
  return row.id;
}
