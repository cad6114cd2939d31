import type { Db } from '../../db/database';
import { newWebhookSecret } from './secret';

export interface WebhookInput {
  id?: number;
  tenantId: number;
  type: string;
  url: string;
  username?: string | null;
  password?: string | null;
  authtoken?: string | null;
}

export async function insertWebhook(db: Db, input: WebhookInput, createdAt: string): Promise<number> {
  const row = await db
    .insertInto('webhooks')
    .values({
      id: input.id,
      tenant_id: input.tenantId,
      type: input.type,
      url: input.url,
      username: input.username ?? null,
      password: input.password ?? null,
      authtoken: input.authtoken ?? null,
      secret: newWebhookSecret(),
      created_at: createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
