import type { Db } from '../../db/database';

/** A PBX extension; agents are extensions, and `peerName` is their name in the queue log (PJSIP/101). */
export interface ExtensionInput {
  id?: number;
  tenantId: number;
  extNum: number;
  extName?: string;
  peerName: string;
  /** Other names of its agent in the PBX's logs (reporting.md R14). */
  agentAliases?: readonly string[];
  callerIdNumber?: string;
}

export async function insertExtension(db: Db, input: ExtensionInput): Promise<number> {
  const row = await db
    .insertInto('extensions')
    .values({
      id: input.id,
      tenant_id: input.tenantId,
      ext_num: input.extNum,
      ext_name: input.extName ?? '',
      peer_name: input.peerName,
      caller_id_number: input.callerIdNumber ?? '',
      agent_aliases: JSON.stringify(input.agentAliases ?? []),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
