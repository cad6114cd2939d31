import type { Selectable } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { defineQuery, type Params } from '../../db/query';
import type { WebhookTable } from '../../db/schema';
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

/** PATCH: each field given replaces the stored one. */
export type WebhookUpdate = Partial<Omit<WebhookInput, 'id' | 'tenantId'>>;

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

const webhookById = defineQuery((db, p: Params<{ id: number; scope: TenantScope }>) =>
  db.selectFrom('webhooks').select(API_COLUMNS).where('id', '=', p.id).where(tenantIn(p.scope)),
);

/** One webhook of the scope; another tenant's is not found. Compiled once per scope variant (GET /v2/webhooks/{id} is hot). */
export function findWebhook(db: Db, scope: TenantScope, id: number): Promise<WebhookRow | undefined> {
  return webhookById.first(db, { id, scope });
}

export function listWebhooks(db: Db, scope: TenantScope): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').select(API_COLUMNS).where(tenantIn(scope)).orderBy('id').execute();
}

/**
 * The API fields of a webhook are its column names: the fields given are set, the others kept. An update
 * also re-enables a webhook that delivery disabled (its receiver answered 410 Gone).
 */
export async function updateWebhookColumns(db: Db, scope: TenantScope, id: number, fields: WebhookUpdate): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ ...fields, disabled_at: null, disabled_reason: null })
    .where(tenantIn(scope))
    .where('id', '=', id)
    .execute();
}

export async function deleteWebhook(db: Db, scope: TenantScope, id: number): Promise<void> {
  await db.deleteFrom('webhooks').where(tenantIn(scope)).where('id', '=', id).execute();
}
