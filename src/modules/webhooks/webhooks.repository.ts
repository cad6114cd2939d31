import type { Selectable } from 'kysely';
import { selectOnce, type Db } from '../../db/database';
import type { WebhookTable } from '../../db/schema';
import { keptInScope } from '../../db/tenant-filter';
import type { TenantScope } from '../../http/scope';
import { newWebhookSecret } from './secret';
import type { WebhookUpdate } from './webhook';

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

// The columns of the API's seven fields: never the signing secret, which only delivery reads.
const API_COLUMNS = ['id', 'tenant_id', 'type', 'url', 'username', 'password', 'authtoken'] as const;
export type WebhookRow = Pick<Selectable<WebhookTable>, (typeof API_COLUMNS)[number]>;

const webhookById = selectOnce((db) => db.selectFrom('webhooks').select(API_COLUMNS).where('id', '=', 0));

/** By its id (the primary key), then kept only when its tenant is in the scope: one compiled query for every scope. */
export async function findWebhook(db: Db, scope: TenantScope, id: number): Promise<WebhookRow | undefined> {
  const [row] = await webhookById(db, [id]);
  return keptInScope(scope, row);
}

export function listWebhooks(db: Db, tenantId: number): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').select(API_COLUMNS).where('tenant_id', '=', tenantId).orderBy('id').execute();
}

/**
 * The API fields of a webhook are its column names: the fields given are set, the others kept. An update
 * also re-enables a webhook that delivery disabled (its receiver answered 410 Gone).
 */
export async function updateWebhookColumns(db: Db, tenantId: number, id: number, fields: WebhookUpdate): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ ...fields, disabled_at: null, disabled_reason: null })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function deleteWebhook(db: Db, tenantId: number, id: number): Promise<void> {
  await db.deleteFrom('webhooks').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}
