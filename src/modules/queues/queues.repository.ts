import type { Db } from '../../db/database';

/** A call queue; `logName` is its name in the PBX's queue_log. */
export interface QueueInput {
  id?: number;
  tenantId: number;
  name: string;
  logName: string;
}

export async function insertQueue(db: Db, input: QueueInput): Promise<number> {
  const row = await db
    .insertInto('queues')
    .values({ id: input.id, tenant_id: input.tenantId, name: input.name, log_name: input.logName })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
