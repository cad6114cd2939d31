import type { SchemaTypes } from '../../validation/schema-types';
import type { WebhookInput, WebhookRow, WebhookUpdate } from './webhooks.repository';

/** The seven fields of api.md §2.8 (get, create, update and delete forms): never the signing secret. */
export type ApiWebhook = SchemaTypes['webhook'];

/** The list form of api.md §2.8. */
export type ApiWebhookListItem = Pick<ApiWebhook, 'id' | 'tenantId' | 'type' | 'url'>;

export type WebhookCreate = Omit<WebhookInput, 'id'>;

/** PATCH: each field given replaces the stored one (schemas/webhook-update.json). */
export type { WebhookUpdate };

export function toApiWebhook(r: WebhookRow): ApiWebhook {
  return { id: r.id, tenantId: r.tenant_id, type: r.type, url: r.url, username: r.username, password: r.password, authtoken: r.authtoken };
}

export function toWebhookListItem(r: WebhookRow): ApiWebhookListItem {
  return { id: r.id, tenantId: r.tenant_id, type: r.type, url: r.url };
}
